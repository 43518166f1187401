import Foundation

/// An analytic multi-tone test signal with smooth raised-cosine ends, evaluated at any real position.
///
/// It is the independent ideal the tests compare against: the "recording" is this signal sampled at integer
/// positions 0..<length, and the ideal repair of length M is the same signal sampled at k × length / M. Nothing
/// here uses the project's DSP.
public struct TestSignal: Sendable {
    public struct Tone: Sendable {
        /// Cycles per input sample.
        public let cyclesPerSample: Double
        public let amplitude: Double
        /// Phase in cycles.
        public let phase: Double
    }

    /// Tones per channel.
    public let channels: [[Tone]]
    /// The recording's length in frames (the raised-cosine fade-out ends at the last frame).
    public let length: Int64
    /// Frames of raised-cosine fade at each end.
    public let fadeFrames: Double

    /// A seeded multi-tone per channel with tones between 40 Hz and `maxFrequency` (as a fraction of the rate).
    public init(
        channelCount: Int, length: Int64, seed: UInt64 = 1, tonesPerChannel: Int = 12,
        maxCyclesPerSample: Double = 0.3, fadeFrames: Double = 480
    ) {
        var rng = SplitMix64(seed: seed)
        let amplitude = 0.8 / Double(tonesPerChannel)
        self.channels = (0..<channelCount).map { _ in
            (0..<tonesPerChannel).map { _ in
                let low = 40.0 / 48_000
                let cycles = low + (maxCyclesPerSample - low) * rng.nextUnit()
                return Tone(
                    cyclesPerSample: cycles, amplitude: amplitude * (0.5 + 0.5 * rng.nextUnit()),
                    phase: rng.nextUnit())
            }
        }
        self.length = length
        self.fadeFrames = fadeFrames
    }

    public var channelCount: Int { channels.count }

    /// The signal of `channel` at input position `whole + fraction` (fraction in [0, 1)), in full precision.
    public func value(channel: Int, whole: Int64, fraction: Double) -> Double {
        var sum = 0.0
        for tone in channels[channel] {
            // Split the phase so that huge positions (hours of audio) keep full precision.
            let cyclesWhole = tone.cyclesPerSample * Double(whole)
            let cycles = (cyclesWhole - cyclesWhole.rounded(.down)) + tone.cyclesPerSample * fraction + tone.phase
            sum += tone.amplitude * sin(2 * .pi * cycles)
        }
        return sum * envelope(Double(whole) + fraction)
    }

    /// The raised-cosine envelope: 0 at position 0 and at `length - 1`, 1 in between.
    public func envelope(_ position: Double) -> Double {
        let last = Double(length - 1)
        if position <= 0 || position >= last { return 0 }
        if position < fadeFrames { return 0.5 - 0.5 * cos(.pi * position / fadeFrames) }
        if position > last - fadeFrames { return 0.5 - 0.5 * cos(.pi * (last - position) / fadeFrames) }
        return 1
    }

    /// The recording: frames `start..<start + count`, interleaved.
    public func recording(start: Int64, count: Int) -> [Float] {
        var out = [Float](repeating: 0, count: count * channelCount)
        for i in 0..<count {
            for c in 0..<channelCount {
                out[i * channelCount + c] = Float(value(channel: c, whole: start + Int64(i), fraction: 0))
            }
        }
        return out
    }

    /// The ideal repair to `target` frames: frames `start..<start + count` of the signal sampled at
    /// k × length / target, computed with an exact integer split of the position.
    public func ideal(target: Int64, start: Int64, count: Int) -> [Double] {
        var out = [Double](repeating: 0, count: count * channelCount)
        for i in 0..<count {
            let k = Int128(start + Int64(i))
            let numerator = k * Int128(length)
            let whole = Int64(numerator / Int128(target))
            let fraction = Double(numerator % Int128(target)) / Double(target)
            for c in 0..<channelCount {
                out[i * channelCount + c] = value(channel: c, whole: whole, fraction: fraction)
            }
        }
        return out
    }
}

/// A small, fast, seedable generator (SplitMix64), so fixtures are the same on every run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
