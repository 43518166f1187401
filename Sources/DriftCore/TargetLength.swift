/// How long a repaired recording must be, as the user or the planner states it.
public enum TargetLength: Sendable, Equatable, CustomStringConvertible {
    /// Exactly this many frames.
    case frames(Int64)
    /// This duration in seconds, exact.
    case seconds(Rational)
    /// The reference's duration: `frames` at `sampleRate` (an audio reference, read from its header).
    case duration(frames: Int64, sampleRate: Int)
    /// The input length scaled by this ratio (output length / input length).
    case ratio(Rational)

    /// The exact output frame count for an input of `inputFrames` frames at `sampleRate` Hz.
    ///
    /// Computed in integers: `round(ticks × sampleRate / timescale)`, halves rounded up.
    public func resolve(inputFrames: Int64, sampleRate: Int) throws(TargetLengthError) -> Int64 {
        try resolve(inputFrames: inputFrames, inputRate: sampleRate, outputRate: sampleRate)
    }

    /// The exact output frame count at `outputRate` for an input of `inputFrames` frames at `inputRate`.
    /// A ratio scales the input's duration; the other forms are durations or counts at the output rate.
    public func resolve(inputFrames: Int64, inputRate: Int, outputRate: Int) throws(TargetLengthError) -> Int64 {
        guard inputRate > 0, outputRate > 0 else { throw .invalid("sample rate must be positive") }
        let result: Int64?
        switch self {
        case .frames(let n):
            result = n
        case .seconds(let seconds):
            result = seconds.multipliedRounded(by: Int64(outputRate))
        case .duration(let frames, let referenceRate):
            guard referenceRate > 0 else { throw .invalid("reference sample rate \(referenceRate)") }
            result = Rational(frames, 1).multipliedRounded(by: Int64(outputRate), dividedBy: Int64(referenceRate))
        case .ratio(let ratio):
            result = ratio.multipliedExactly(by: Rational(Int64(outputRate), Int64(inputRate)))?
                .multipliedRounded(by: inputFrames)
        }
        guard let frames = result else { throw .invalid("\(self) overflows a 64-bit frame count") }
        guard frames > 0 else { throw .invalid("\(self) gives \(frames) frames; the target must be at least 1 frame") }
        return frames
    }

    public var description: String {
        switch self {
        case .frames(let n): return "\(n) frames"
        case .seconds(let s): return "\(s.decimalString()) s"
        case .duration(let frames, let rate): return "\(frames) frames at \(rate) Hz"
        case .ratio(let r): return "ratio \(r.decimalString())"
        }
    }
}

/// A target length that cannot be turned into a frame count.
public enum TargetLengthError: Error, Equatable, CustomStringConvertible {
    case invalid(String)
    public var description: String {
        switch self {
        case .invalid(let why): return "invalid target length: \(why)"
        }
    }
}

extension Rational {
    /// A decimal rendering for messages, exact where the value has a short decimal expansion.
    public func decimalString(maxFractionDigits: Int = 9) -> String {
        let negative = numerator < 0
        var remainder = Int128(numerator.magnitude) % Int128(denominator)
        let whole = Int128(numerator.magnitude) / Int128(denominator)
        var digits = ""
        var count = 0
        while remainder != 0 && count < maxFractionDigits {
            remainder *= 10
            digits.append(String(remainder / Int128(denominator)))
            remainder %= Int128(denominator)
            count += 1
        }
        let body = digits.isEmpty ? "\(whole)" : "\(whole).\(digits)"
        return (negative ? "-" : "") + body + (remainder != 0 ? "…" : "")
    }
}
