/// A span once it ended: everything the exporter sends, in plain values (no closures, no locks).
public struct FinishedSpan: Sendable {
    /// What OTLP calls the span's kind.
    public enum Kind: Int, Sendable {
        case `internal` = 1
        case server = 2
        case client = 3
        case producer = 4
        case consumer = 5
    }

    /// An attribute's value, as OTLP's `AnyValue` holds it.
    public enum Value: Sendable, Equatable {
        case string(String)
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case strings([String])
        case ints([Int64])
        case doubles([Double])
        case bools([Bool])
    }

    public struct Event: Sendable {
        public var name: String
        public var nanoseconds: UInt64
        public var attributes: [(String, Value)]
    }

    public struct Link: Sendable {
        public var parent: TraceParent
        public var attributes: [(String, Value)]
    }

    /// OTLP's status: unset, ok, or an error with its message.
    public enum Status: Sendable, Equatable {
        case unset
        case ok
        case error(String?)
    }

    public var name: String
    public var kind: Kind
    public var context: TraceParent
    public var parentSpanID: UInt64?
    public var start: UInt64
    public var end: UInt64
    public var attributes: [(String, Value)]
    public var events: [Event]
    public var links: [Link]
    public var status: Status
}
