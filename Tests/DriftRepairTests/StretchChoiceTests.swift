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
    @Test("a named engine is itself at every ratio; auto takes WSOLA where it measured higher, by ratio and sound")
    func rule() {
        // (ratio, share, engine auto takes): sound with gaps or a beat shortened by up to a fifth or lengthened within
        // 0.2 %; the vocoder everywhere else.
        let cases: [(Double, Double?, StretchEngine)] = [
            (0.5, 0.6, .vocoder), (0.79, 0.6, .vocoder), (0.8, 0.6, .wsola), (0.97, 0.35, .wsola),
            (0.999, 0.3, .wsola), (1.001, 0.6, .wsola), (1.002, 0.6, .wsola), (1.003, 0.6, .vocoder),
            (1.25, 0.6, .vocoder), (2, 0.6, .vocoder), (0.8, 0.2, .wsola), (0.9, 0.15, .wsola),
            (1.03, 0.2, .vocoder), (0.97, 0.14, .vocoder), (0.999, 0.03, .vocoder), (0.999, nil, .vocoder),
        ]
        for (ratio, share, expected) in cases {
            #expect(
                StretchChoice.auto.engine(ratio: ratio, lowEnergyShare: share) == expected,
                "x\(ratio), share \(String(describing: share))")
            #expect(StretchChoice.auto.needsSound(ratio: ratio) == (0.8...1.002).contains(ratio))
            #expect(StretchChoice.vocoder.engine(ratio: ratio, lowEnergyShare: share) == .vocoder)
            #expect(StretchChoice.wsola.engine(ratio: ratio, lowEnergyShare: share) == .wsola)
            #expect(!StretchChoice.vocoder.needsSound(ratio: ratio) && !StretchChoice.wsola.needsSound(ratio: ratio))
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
        let sustained = try measure(chord(seconds: 10))
        #expect((sustained.lowEnergyShare ?? 1) < 0.05, "chord: \(String(describing: sustained.lowEnergyShare))")
        let nothing = try measure([Float](repeating: 0, count: 480_000))
        #expect(nothing.lowEnergyShare == nil)
    }

    @Test(
        "process --method stretch: the engine that ran is named, auto chosen by the sound",
        arguments: [
            ("bursts", 1_001, StretchChoice.auto, StretchEngine.wsola),
            ("bursts", 900, .auto, .wsola),
            ("bursts", 1_250, .auto, .vocoder),
            ("bursts", 600, .auto, .vocoder),
            ("chord", 1_001, .auto, .vocoder),
            ("chord", 900, .auto, .vocoder),
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
