/// An exact rational number: a duration in seconds (ticks over a timescale) or a length ratio.
///
/// driftfix keeps every duration and ratio exact until the last step (a frame count), so a 3-hour file does not
/// pick up the rounding error of floating-point seconds multiplied by hundreds of millions of frames.
public struct Rational: Hashable, Sendable, CustomStringConvertible {
    /// Numerator; carries the sign.
    public let numerator: Int64
    /// Denominator; always positive.
    public let denominator: Int64

    /// Creates `numerator / denominator`, reduced. The denominator must not be zero.
    public init(_ numerator: Int64, _ denominator: Int64 = 1) {
        precondition(denominator != 0, "Rational with a zero denominator")
        let sign: Int64 = denominator < 0 ? -1 : 1
        let divisor = Rational.gcd(numerator.magnitude, denominator.magnitude)
        self.numerator = sign * numerator / Int64(divisor)
        self.denominator = sign * denominator / Int64(divisor)
    }

    /// Parses a decimal (`3600.0375`, `-0.5`, `1e-6`) or a fraction (`1001/1000`) exactly.
    public init(parsing text: String) throws(RationalParseError) {
        let trimmed = String(text.trimmingWhitespace())
        if let slash = trimmed.firstIndex(of: "/") {
            let top = try Rational(parsing: String(trimmed[..<slash]))
            let bottom = try Rational(parsing: String(trimmed[trimmed.index(after: slash)...]))
            guard bottom.numerator != 0 else { throw RationalParseError(text: text, reason: "division by zero") }
            guard let quotient = top.dividedExactly(by: bottom) else {
                throw RationalParseError(text: text, reason: "too many digits")
            }
            self = quotient
            return
        }
        self = try Rational.parseDecimal(trimmed, original: text)
    }

    /// The value as a `Double`: for display and for C APIs that take a double, never for frame arithmetic.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    /// `self × integer`, rounded to the nearest integer (halves away from zero), computed without overflow.
    /// Returns nil when the result does not fit in 64 bits.
    public func multipliedRounded(by integer: Int64) -> Int64? {
        Rational.roundedQuotient(Int128(numerator) * Int128(integer), Int128(denominator))
    }

    /// `self × other / divisor`, rounded to the nearest integer, computed in 128-bit integers.
    /// This is `targetFrames = round(ticks × sampleRate / timescale)` from the design's exactness rules.
    public func multipliedRounded(by integer: Int64, dividedBy divisor: Int64) -> Int64? {
        guard divisor != 0 else { return nil }
        return Rational.roundedQuotient(
            Int128(numerator) * Int128(integer) * (divisor < 0 ? -1 : 1),
            Int128(denominator) * Int128(divisor.magnitude)
        )
    }

    /// `self / other` when it fits in 64-bit terms, else nil.
    public func dividedExactly(by other: Rational) -> Rational? {
        let top = Int128(numerator) * Int128(other.denominator)
        let bottom = Int128(denominator) * Int128(other.numerator)
        return Rational.reduced(top, bottom)
    }

    /// `self × other` when it fits in 64-bit terms, else nil.
    public func multipliedExactly(by other: Rational) -> Rational? {
        Rational.reduced(Int128(numerator) * Int128(other.numerator), Int128(denominator) * Int128(other.denominator))
    }

    /// Compares exactly.
    public static func < (lhs: Rational, rhs: Rational) -> Bool {
        Int128(lhs.numerator) * Int128(rhs.denominator) < Int128(rhs.numerator) * Int128(lhs.denominator)
    }

    static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : x
    }

    static func reduced(_ top: Int128, _ bottom: Int128) -> Rational? {
        guard bottom != 0 else { return nil }
        var (x, y) = (top.magnitude, bottom.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        let divisor = x == 0 ? 1 : x
        let sign: Int128 = (top < 0) != (bottom < 0) && top != 0 ? -1 : 1
        let n = Int128(top.magnitude / divisor) * sign
        let d = Int128(bottom.magnitude / divisor)
        guard let n64 = Int64(exactly: n), let d64 = Int64(exactly: d) else { return nil }
        return Rational(n64, d64)
    }

    /// Nearest integer to `top / bottom` (bottom > 0), halves rounded away from zero.
    static func roundedQuotient(_ top: Int128, _ bottom: Int128) -> Int64? {
        precondition(bottom > 0)
        let half = bottom / 2
        let adjusted = top >= 0 ? (top + half) / bottom : -((-top + half) / bottom)
        // An odd divisor has no exact half; an even one rounds .5 up via `half`.
        return Int64(exactly: adjusted)
    }

    private static func parseDecimal(_ text: String, original: String) throws(RationalParseError) -> Rational {
        var rest = Substring(text)
        guard !rest.isEmpty else { throw RationalParseError(text: original, reason: "empty") }
        var exponent = 0
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(rest[rest.index(after: e)...]) else {
                throw RationalParseError(text: original, reason: "bad exponent")
            }
            guard abs(value) <= 18 else {
                throw RationalParseError(
                    text: original, reason: "exponent beyond ±18: too \(value > 0 ? "large" : "small") to use exactly")
            }
            exponent = value
            rest = rest[..<e]
        }
        var negative = false
        if rest.first == "-" || rest.first == "+" {
            negative = rest.first == "-"
            rest = rest.dropFirst()
        }
        var digits: Int128 = 0
        var scale = 0
        var seenPoint = false
        var seenDigit = false
        for ch in rest {
            if ch == "." && !seenPoint {
                seenPoint = true
            } else if let d = ch.wholeNumberValue, ch.isASCII {
                seenDigit = true
                digits = digits * 10 + Int128(d)
                if seenPoint { scale += 1 }
                guard digits <= Int128(Int64.max) else {
                    throw RationalParseError(text: original, reason: "too many digits")
                }
            } else {
                throw RationalParseError(text: original, reason: "not a number")
            }
        }
        guard seenDigit else { throw RationalParseError(text: original, reason: "not a number") }
        scale -= exponent
        var top = negative ? -digits : digits
        var bottom: Int128 = 1
        if scale > 0 {
            for _ in 0..<scale { bottom *= 10 }
        } else {
            for _ in 0..<(-scale) { top *= 10 }
        }
        guard let value = Rational.reduced(top, bottom) else {
            throw RationalParseError(text: original, reason: "out of range")
        }
        return value
    }
}

/// A number given on the command line or in a file that is not an exact decimal or fraction.
public struct RationalParseError: Error, Equatable, CustomStringConvertible {
    public let text: String
    public let reason: String
    public var description: String { "'\(text)' is not a valid number (\(reason))" }
}

extension String {
    func trimmingWhitespace() -> Substring {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return s
    }
}
