import DriftAudio
import DriftCore
import DriftDSP
import DriftFixtures
import Foundation
import Testing

@testable import DriftRepair

/// 16-bit PCM of `samples` (mono, 48 kHz) as a WAV file.
private func writeMono(_ samples: [Float], to path: String) throws {
    var audio: [UInt8] = []
    audio.reserveCapacity(samples.count * 2)
    for sample in samples {
        let value = Int16(clamping: Int((max(-1, min(1, sample)) * 32_767).rounded()))
        audio += WaveBytes.le16(UInt16(bitPattern: value))
    }
    try Data(WaveBytes.file(channels: 1, audio: audio)).write(to: URL(fileURLWithPath: path))
}

/// Syllable-like bursts: 120 ms of a 180 Hz harmonic tone, then 180 ms of silence, over and over.
private func bursts(seconds: Int) -> [Float] {
    (0..<(seconds * 48_000)).map { n in
        guard n % 14_400 < 5_760 else { return 0 }
        let t = Double(n) / 48_000
        return Float(0.2 * sin(2 * .pi * 180 * t) + 0.1 * sin(2 * .pi * 360 * t))
    }
}

/// A held chord with a slow 30 % tremolo: sustained sound, never a gap.
private func chord(seconds: Int) -> [Float] {
    (0..<(seconds * 48_000)).map { n in
        let t = Double(n) / 48_000
        let level = 0.7 + 0.3 * sin(2 * .pi * 2 * t)
        return Float(level * 0.1 * (sin(2 * .pi * 262 * t) + sin(2 * .pi * 330 * t) + sin(2 * .pi * 392 * t)))
    }
}

@Suite("The stretch engine: chosen by the ratio and the sound, said in the method")
struct StretchChoiceTests {
    @Test("a named engine is itself at every ratio; auto takes WSOLA only for gappy sound within 0.2 % of 1")
    func rule() {
        for ratio in [0.5, 0.8, 0.999, 1.001, 1.25, 2] {
            for gappy in [false, true] {
                #expect(StretchChoice.vocoder.engine(ratio: ratio, speechLike: gappy) == .vocoder)
                #expect(StretchChoice.wsola.engine(ratio: ratio, speechLike: gappy) == .wsola)
                let near = abs(ratio - 1) <= 0.002
                #expect(
                    StretchChoice.auto.engine(ratio: ratio, speechLike: gappy) == (near && gappy ? .wsola : .vocoder))
                #expect(StretchChoice.auto.needsSound(ratio: ratio) == near)
                #expect(!StretchChoice.vocoder.needsSound(ratio: ratio))
            }
        }
    }

    @Test("the low-energy share: bursts with 60 % silence read about 0.6, a held chord near 0, silence nothing")
    func sparseness() throws {
        let folder = TemporaryFolder()
        func measure(_ samples: [Float]) throws -> SoundSparseness {
            let path = folder.file("s.wav")
            try writeMono(samples, to: path)
            let reader = try AudioFileReader(path: path)
            return try SoundSparseness.measure(reader, range: 0..<reader.frameCount, sampleRate: 48_000)
        }
        let gaps = try measure(bursts(seconds: 10))
        let share = try #require(gaps.lowEnergyShare)
        #expect(abs(share - 0.6) < 0.05, "bursts: \(share)")
        #expect(gaps.isGappy)
        let sustained = try measure(chord(seconds: 10))
        #expect((sustained.lowEnergyShare ?? 1) < 0.05, "chord: \(String(describing: sustained.lowEnergyShare))")
        #expect(!sustained.isGappy)
        let nothing = try measure([Float](repeating: 0, count: 480_000))
        #expect(nothing.lowEnergyShare == nil && !nothing.isGappy)
    }

    @Test(
        "process --method stretch: the engine that ran is named, auto chosen by the sound",
        arguments: [
            ("bursts", 1_001, StretchChoice.auto, StretchEngine.wsola),
            ("bursts", 1_250, .auto, .vocoder),
            ("chord", 1_001, .auto, .vocoder),
            ("chord", 999, .wsola, .wsola),
            ("bursts", 999, .vocoder, .vocoder),
        ])
    func chosen(sound: String, perMille: Int64, choice: StretchChoice, expected: StretchEngine) throws {
        let folder = TemporaryFolder()
        let input = folder.file("in.wav")
        try writeMono(sound == "bursts" ? bursts(seconds: 20) : chord(seconds: 20), to: input)
        let target = 20 * 48_000 * perMille / 1000
        var request = ProcessRequest(
            input: input, output: folder.file("out.wav"), target: .frames(target),
            method: MethodChoice(method: .stretch, reason: "test"))
        request.stretch = choice
        let result = try FileProcessor.run(request)
        #expect(result.outputFrames == target)
        #expect(result.method.contains("by \(expected.shownName)"), "\(result.method)")
        #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == target)
    }
}
