import Foundation

/// The shape of a fade.
public enum FadeCurve: String, CaseIterable, Sendable, Codable {
    /// Gain rises in a straight line: -6 dB at the midpoint.
    case linear
    /// Gain follows a quarter sine: -3 dB at the midpoint, constant power when crossfading.
    case equalPower = "equal-power"

    /// Gain at `x` in [0, 1] of the way through a fade-in.
    public func gain(_ x: Double) -> Double {
        switch self {
        case .linear: return x
        case .equalPower: return sin(x * Double.pi / 2)
        }
    }
}

/// A fade of a given duration in output seconds.
public struct Fade: Sendable, Equatable {
    public var seconds: Rational
    public var curve: FadeCurve

    public init(seconds: Rational, curve: FadeCurve) {
        self.seconds = seconds
        self.curve = curve
    }
}

/// A fade resolved to frames of the output.
public struct FadeSpan: Sendable, Equatable {
    public var frames: Int64
    public var curve: FadeCurve
    public init(frames: Int64, curve: FadeCurve) {
        self.frames = frames
        self.curve = curve
    }
}

/// The everyday edits that can ride along with a repair, applied in one pass in this fixed order:
/// trim → reverse → length (resample or stretch, which also converts the rate when resampling) →
/// rate conversion (after a stretch) → fades.
public struct EditOperations: Sendable, Equatable {
    /// Keep only this part of the input (input time).
    public var trim: TrimRange?
    /// Play the samples backwards.
    public var reverse = false
    /// Fade in at the start of the output.
    public var fadeIn: Fade?
    /// Fade out at the end of the output.
    public var fadeOut: Fade?
    /// Convert to this sample rate.
    public var outputRate: Int?

    public init(
        trim: TrimRange? = nil, reverse: Bool = false, fadeIn: Fade? = nil, fadeOut: Fade? = nil,
        outputRate: Int? = nil
    ) {
        self.trim = trim
        self.reverse = reverse
        self.fadeIn = fadeIn
        self.fadeOut = fadeOut
        self.outputRate = outputRate
    }

    /// Whether any edit is requested.
    public var isEmpty: Bool { self == EditOperations() }
}
