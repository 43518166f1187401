import Foundation

/// A signal whose amplitude envelope is known analytically: a broadband multi-tone (or a harmonic, speech-like
/// tone) under a sequence of smooth bumps of random length and spacing. A pitch-preserving stretch by α must
/// deliver the same envelope at output position k as the input had at k / α: that is the time map the tests
/// check, independent of waveform phase.
public struct EnvelopeSignal: Sendable {
    public struct Bump: Sendable {
        public let start: Double
        public let length: Double
        public let height: Double
    }

    public let length: Int64
    public let channelCount: Int
    public let bumps: [Bump]
    public let tones: [TestSignal.Tone]

    /// - Parameters:
    ///   - harmonicBase: when given, tones are harmonics of this fundamental (cycles per sample) shaped by three
    ///     formant peaks, like a sustained vowel; otherwise a seeded broadband multi-tone.
    public init(length: Int64, channelCount: Int, seed: UInt64, harmonicBase: Double? = nil) {
        var rng = SplitMix64(seed: seed)
        self.length = length
        self.channelCount = channelCount
        var bumps: [Bump] = []
        var position = 200.0
        while position < Double(length) - 2000 {
            let bumpLength = 1200 + 6000 * rng.nextUnit()  // 25...150 ms at 48 kHz
            let height = 0.3 + 0.7 * rng.nextUnit()
            bumps.append(
                Bump(start: position, length: min(bumpLength, Double(length) - 200 - position), height: height))
            position += bumpLength * (0.6 + 0.8 * rng.nextUnit())
        }
        self.bumps = bumps
        if let base = harmonicBase {
            let formants = [(0.0146, 1.0), (0.0333, 0.5), (0.0521, 0.25)]  // 700, 1600, 2500 Hz at 48 kHz
            self.tones = (1...Int(0.17 / base)).map { h in
                let f = base * Double(h)
                let gain = formants.map { centre, level in level / (1 + pow((f - centre) / 0.003, 2)) }.reduce(0, +)
                return TestSignal.Tone(cyclesPerSample: f, amplitude: 0.3 * gain, phase: rng.nextUnit())
            }
        } else {
            self.tones = (0..<16).map { _ in
                TestSignal.Tone(cyclesPerSample: 0.01 + 0.19 * rng.nextUnit(), amplitude: 0.05, phase: rng.nextUnit())
            }
        }
    }

    /// The envelope at input position `t` (frames).
    public func envelope(_ t: Double) -> Double {
        var value = 0.0
        for bump in bumps where t > bump.start && t < bump.start + bump.length {
            value += bump.height * (0.5 - 0.5 * cos(2 * Double.pi * (t - bump.start) / bump.length))
        }
        return value
    }

    /// The recording, interleaved (every channel carries the same content, scaled by 1 / (channel + 1)).
    public func recording() -> [Float] {
        var out = [Float](repeating: 0, count: Int(length) * channelCount)
        for n in 0..<Int(length) {
            let e = envelope(Double(n))
            guard e > 0 else { continue }
            var sum = 0.0
            for tone in tones {
                sum += tone.amplitude * sin(2 * Double.pi * (tone.cyclesPerSample * Double(n) + tone.phase))
            }
            for c in 0..<channelCount { out[n * channelCount + c] = Float(e * sum / Double(c + 1)) }
        }
        return out
    }

    /// The measured envelope of `samples` (channel 0): RMS over `window` frames, centred, every `step` frames.
    public static func measuredEnvelope(_ samples: [Float], channels: Int, window: Int, step: Int) -> [Double] {
        let frames = samples.count / channels
        var out: [Double] = []
        var centre = 0
        while centre < frames {
            var sum = 0.0
            var count = 0
            for n in max(0, centre - window / 2)..<min(frames, centre + window / 2) {
                let v = Double(samples[n * channels])
                sum += v * v
                count += 1
            }
            out.append(count > 0 ? (sum / Double(count)).squareRoot() : 0)
            centre += step
        }
        return out
    }
}
