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

        /// Its phase in cycles at position `whole + fraction`, exact however far in (the whole cycles dropped).
        func cycles(whole: Int64, fraction: Double) -> Double {
            TestSignal.fractionalCycles(cyclesPerSample, whole) + cyclesPerSample * fraction + phase
        }
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
            sum += tone.amplitude * sin(2 * .pi * tone.cycles(whole: whole, fraction: fraction))
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
        var sums = [Double](repeating: 0, count: count)
        for c in 0..<channelCount {
            sumTones(channel: c, from: start, count: count, step: 1, into: &sums) { ($0, 0) }
            for i in 0..<count {
                out[i * channelCount + c] = Float(sums[i] * envelope(Double(start + Int64(i))))
            }
        }
        return out
    }

    /// The ideal repair to `target` frames: frames `start..<start + count` of the signal sampled at
    /// k × length / target, computed with an exact integer split of the position.
    public func ideal(target: Int64, start: Int64, count: Int) -> [Double] {
        var out = [Double](repeating: 0, count: count * channelCount)
        var sums = [Double](repeating: 0, count: count)
        let position = { (k: Int64) -> (whole: Int64, fraction: Double) in
            let numerator = Int128(k) * Int128(length)
            return (Int64(numerator / Int128(target)), Double(Int64(numerator % Int128(target))) / Double(target))
        }
        for c in 0..<channelCount {
            sumTones(
                channel: c, from: start, count: count, step: Double(length) / Double(target), into: &sums,
                at: position)
            for i in 0..<count {
                let (whole, fraction) = position(start + Int64(i))
                out[i * channelCount + c] = sums[i] * envelope(Double(whole) + fraction)
            }
        }
        return out
    }

    /// The fractional part of `cyclesPerSample × whole`, exact before its last rounding: the product of the tone's
    /// significand and the position in 128-bit integers, so that hours in (10⁸ cycles) lose nothing to a double's
    /// 53 bits, which would leave the phase about 10⁻⁸ cycles out.
    public static func fractionalCycles(_ cyclesPerSample: Double, _ whole: Int64) -> Double {
        // From 2^-11 (40 Hz at 82 kHz): the remainder below then fits 64 bits.
        precondition(cyclesPerSample >= 0x1p-11 && cyclesPerSample < 1)
        let significand = Int128(cyclesPerSample.significandBitPattern | (1 << 52))
        let shift = 52 - Int(cyclesPerSample.exponent)  // cyclesPerSample = significand × 2^-shift
        let product = significand * Int128(whole)
        let modulus = Int128(1) << shift
        let remainder = ((product % modulus) + modulus) % modulus
        // Below 2^shift ≤ 2^63: a 64-bit integer's conversion, not the generic 128-bit one (many times slower).
        return Double(UInt64(remainder)) * Double(sign: .plus, exponent: -shift, significand: 1)
    }

    /// Frames between two phases computed exactly: between them a tone turns by rotation, which adds an error of
    /// a few units in the last place per frame (about 10⁻¹³ at the most, 250 dB below the tone), at a fraction of
    /// the cost of a sine per frame. The runs start at multiples of it, so that a frame's value is the same in
    /// whatever block it is asked for.
    public static let rotationRun = 256

    /// Sums the tones of `channel` (as `value` does, without the envelope) at the positions of indices
    /// `first..<first + count`, `step` frames apart (index k at `position(k)`), into `sums`.
    private func sumTones(
        channel: Int, from first: Int64, count: Int, step: Double, into sums: inout [Double],
        at position: (Int64) -> (whole: Int64, fraction: Double)
    ) {
        for i in 0..<count { sums[i] = 0 }
        let run = Int64(Self.rotationRun)
        let end = first + Int64(count)
        sums.withUnsafeMutableBufferPointer { sums in
            for tone in channels[channel] {
                let turn = 2 * Double.pi * tone.cyclesPerSample * step
                var anchor = first - ((first % run) + run) % run
                while anchor < end {
                    let (whole, fraction) = position(anchor)
                    var rotation = SineRotation(
                        angle: 2 * .pi * tone.cycles(whole: whole, fraction: fraction), step: turn)
                    for k in anchor..<min(end, anchor + run) {
                        if k >= first { sums[Int(k - first)] += tone.amplitude * rotation.sine }
                        rotation.advance()
                    }
                    anchor += run
                }
            }
        }
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
