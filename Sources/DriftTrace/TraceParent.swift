import Instrumentation

/// A span's place in a trace, as W3C Trace Context (`traceparent`) carries it between processes: the trace's id
/// (16 bytes), the span's own id (8 bytes) and whether the trace is sampled.
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    public var traceHigh: UInt64
    public var traceLow: UInt64
    public var spanID: UInt64
    public var sampled: Bool

    public init(traceHigh: UInt64, traceLow: UInt64, spanID: UInt64, sampled: Bool = true) {
        self.traceHigh = traceHigh
        self.traceLow = traceLow
        self.spanID = spanID
        self.sampled = sampled
    }

    /// A new trace's root: random ids (never all zero, which the standard reserves for "invalid").
    public static func newTrace() -> TraceParent {
        var generator = SystemRandomNumberGenerator()
        return TraceParent(
            traceHigh: generator.next(), traceLow: nonZero(&generator), spanID: nonZero(&generator))
    }

    /// A child of this span: the same trace, a new span id.
    public func child() -> TraceParent {
        var generator = SystemRandomNumberGenerator()
        return TraceParent(
            traceHigh: traceHigh, traceLow: traceLow, spanID: TraceParent.nonZero(&generator), sampled: sampled)
    }

    static func nonZero(_ generator: inout SystemRandomNumberGenerator) -> UInt64 {
        while true {
            let value: UInt64 = generator.next()
            if value != 0 { return value }
        }
    }

    /// The trace id as 32 lower-case hex digits (the form logs and collectors show).
    public var traceID: String { hex(traceHigh) + hex(traceLow) }
    /// The span id as 16 lower-case hex digits.
    public var spanIDHex: String { hex(spanID) }

    /// `00-<trace id>-<span id>-<flags>`, version 00 of the header.
    public var description: String { "00-\(traceID)-\(spanIDHex)-\(sampled ? "01" : "00")" }

    /// Parses a `traceparent` header; nil when it is not one (wrong length or digits, a reserved version, zero ids).
    /// A later version is read by its first four fields, as the standard asks.
    public init?(_ header: String) {
        let parts = header.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].count == 2, parts[1].count == 32, parts[2].count == 16, parts[3].count == 2,
            let version = UInt8(parts[0], radix: 16), version != 0xff, version != 0 || parts.count == 4,
            parts[0].allSatisfy(\.isHexDigitLowercase), parts[1].allSatisfy(\.isHexDigitLowercase),
            parts[2].allSatisfy(\.isHexDigitLowercase), parts[3].allSatisfy(\.isHexDigitLowercase),
            let high = UInt64(parts[1].prefix(16), radix: 16), let low = UInt64(parts[1].suffix(16), radix: 16),
            let span = UInt64(parts[2], radix: 16), let flags = UInt8(parts[3], radix: 16),
            high != 0 || low != 0, span != 0
        else { return nil }
        self.init(traceHigh: high, traceLow: low, spanID: span, sampled: flags & 1 == 1)
    }
}

extension Character {
    fileprivate var isHexDigitLowercase: Bool { ("0"..."9").contains(self) || ("a"..."f").contains(self) }
}

private func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}

/// Where the current span's `TraceParent` lives in an `InstrumentationContext`.
public enum TraceParentKey: InstrumentationContextKey {
    public typealias Value = TraceParent
    public static let nameOverride: String? = "traceparent"
}

extension InstrumentationContext {
    /// The span this context is inside, if any.
    public var traceParent: TraceParent? {
        get { self[TraceParentKey.self] }
        set { self[TraceParentKey.self] = newValue }
    }
}
