/// A span once it ended: everything the exporter sends, in plain values (no closures, no locks).
public struct FinishedSpan: Sendable, Equatable {
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

    public struct Event: Sendable, Equatable {
        public var name: String
        public var nanoseconds: UInt64
        public var attributes: [(String, Value)]

        public static func == (a: Event, b: Event) -> Bool {
            a.name == b.name && a.nanoseconds == b.nanoseconds && a.attributes.elementsEqual(b.attributes, by: ==)
        }
    }

    public struct Link: Sendable, Equatable {
        public var parent: TraceParent
        public var attributes: [(String, Value)]

        public static func == (a: Link, b: Link) -> Bool {
            a.parent == b.parent && a.attributes.elementsEqual(b.attributes, by: ==)
        }
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

    public static func == (a: FinishedSpan, b: FinishedSpan) -> Bool {
        a.name == b.name && a.kind == b.kind && a.context == b.context && a.parentSpanID == b.parentSpanID
            && a.start == b.start && a.end == b.end && a.attributes.elementsEqual(b.attributes, by: ==)
            && a.events == b.events && a.links == b.links && a.status == b.status
    }
}
