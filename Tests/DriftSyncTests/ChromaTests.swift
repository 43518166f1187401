import DriftSync
import Foundation
import Testing

/// A print's pitch classes against the notes played: the classes follow from the frequencies (equal temperament,
/// A4 = 440 Hz), not from the code.
@Suite struct ChromaTests {
    /// Each frame's twelve classes as steps of 3 dB below its loudest (0 … 15), frames of the middle of the sound.
    static func steps(of notes: [Double], rate: Int) throws -> [[Int]] {
        let seconds = 3.0
        let samples = (0..<Int(seconds * Double(rate))).map { n -> Float in
            var sum = 0.0
            for hz in notes { sum += 0.2 * sin(2 * Double.pi * hz * Double(n) / Double(rate)) }
            return Float(sum)
        }
        let print = try SoundMatcherTests.print(samples, rate: rate)
        let chroma = print.chroma
        var frames: [[Int]] = []
        for start in stride(from: 0, to: chroma.count - chroma.count % 6, by: 6) {
            var frame: [Int] = []
            for c in 0..<12 {
                let byte = chroma[start + c / 2]
                frame.append(Int(c % 2 == 0 ? byte >> 4 : byte & 0x0F))
            }
            frames.append(frame)
        }
        // Away from the start (the first frames hold silence before it) and the end.
        return Array(frames[5..<(frames.count - 3)])
    }

    /// The pitch class of a frequency: semitones from C.
    static func pitchClass(_ hz: Double) -> Int { ((Int((12 * log2(hz / 261.6256)).rounded()) % 12) + 12) % 12 }

    @Test(
        "a tone, a triad and a fifth at 48, 44.1 and 8 kHz: the classes played at the top, the others 15 dB and more below",
        arguments: [
            ([440.0], 48000), ([261.63, 329.63, 392.0], 48000), ([220.0, 329.63], 44100), ([1174.66], 8000),
            ([440.0, 554.37], 8000),
        ])
    func classesOfNotes(notes: [Double], rate: Int) throws {
        let played = Set(notes.map(Self.pitchClass))
        for (f, frame) in try Self.steps(of: notes, rate: rate).enumerated() {
            for c in 0..<12 {
                if played.contains(c) {
                    #expect(
                        frame[c] <= 1, "frame \(f), class \(c) played, \(frame[c] * 3) dB below the loudest: \(frame)")
                } else {
                    #expect(frame[c] >= 5, "frame \(f), class \(c) not played, only \(frame[c] * 3) dB below: \(frame)")
                }
            }
        }
    }
}
