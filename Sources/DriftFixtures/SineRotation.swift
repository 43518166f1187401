import Foundation

/// The cosine and sine of an angle that advances by a fixed step: each step a rotation (four multiplies and two adds,
/// where `sin` and `cos` cost tens of nanoseconds). A step adds an error of a few units in the last place, so a caller
/// starts a new rotation from an angle computed exactly every few hundred steps.
public struct SineRotation: Sendable {
    public var cosine: Double
    public var sine: Double
    @usableFromInline let stepCosine: Double
    @usableFromInline let stepSine: Double

    public init(angle: Double, step: Double) {
        (cosine, sine) = (cos(angle), sin(angle))
        (stepCosine, stepSine) = (cos(step), sin(step))
    }

    /// On by one step.
    @inlinable public mutating func advance() {
        (cosine, sine) = (cosine * stepCosine - sine * stepSine, sine * stepCosine + cosine * stepSine)
    }
}
