extension Rational {
    /// `duration` in seconds, exactly (its attoseconds kept); nil where the reduced fraction does not fit 64 bits.
    public init?(exactly duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let scale: Int128 = 1_000_000_000_000_000_000
        guard let value = Rational.reduced(Int128(seconds) * scale + Int128(attoseconds), scale) else { return nil }
        self = value
    }

    /// The value as a `Duration`, to the attosecond (for display and timers, not frame arithmetic).
    public var duration: Duration {
        let scale: Int128 = 1_000_000_000_000_000_000
        let attoseconds = Int128(numerator) * scale / Int128(denominator)
        return Duration(secondsComponent: Int64(attoseconds / scale), attosecondsComponent: Int64(attoseconds % scale))
    }
}
