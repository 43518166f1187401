import Foundation
import Instrumentation
import Synchronization
import Tracing

/// swift-distributed-tracing's `Tracer`, exporting over OTLP/HTTP: spans are made here, carried in task-local
/// contexts (and in job messages as `traceparent`), and handed to the `SpanExporter` when they end.
public final class OTLPTracer: Tracer, Sendable {
    public let exporter: SpanExporter

    public init(exporter: SpanExporter) { self.exporter = exporter }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> OTLPSpan {
        var context = context()
        let parent = context.traceParent
        let own = parent?.child() ?? TraceParent.newTrace()
        context.traceParent = own
        return OTLPSpan(
            name: operationName, kind: FinishedSpan.Kind(kind), context: context, own: own,
            parent: parent?.spanID, start: instant().nanosecondsSinceEpoch, exporter: exporter)
    }

    public func forceFlush() { exporter.flush() }

    public func extract<Carrier, Extract>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Extract: Extractor, Extract.Carrier == Carrier {
        if let header = extractor.extract(key: "traceparent", from: carrier), let parent = TraceParent(header) {
            context.traceParent = parent
        }
    }

    public func inject<Carrier, Inject>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject: Injector, Inject.Carrier == Carrier {
        if let parent = context.traceParent {
            injector.inject(parent.description, forKey: "traceparent", into: &carrier)
        }
    }
}

/// A span being recorded. Its state sits behind a lock: a job's span is ended by whichever thread sees the result.
public final class OTLPSpan: Tracing.Span, Sendable {
    private struct State {
        var name: String
        var attributes = SpanAttributes()
        var events: [FinishedSpan.Event] = []
        var links: [FinishedSpan.Link] = []
        var status = FinishedSpan.Status.unset
        var ended = false
    }

    public let context: InstrumentationContext
    private let own: TraceParent
    private let parent: UInt64?
    private let kind: FinishedSpan.Kind
    private let start: UInt64
    private let exporter: SpanExporter
    private let state: Mutex<State>

    init(
        name: String, kind: FinishedSpan.Kind, context: InstrumentationContext, own: TraceParent, parent: UInt64?,
        start: UInt64, exporter: SpanExporter
    ) {
        self.context = context
        self.own = own
        self.parent = parent
        self.kind = kind
        self.start = start
        self.exporter = exporter
        state = Mutex(State(name: name))
    }

    public var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    public var isRecording: Bool { state.withLock { !$0.ended } }

    public func setStatus(_ status: SpanStatus) {
        state.withLock { state in
            switch status.code {
            case .ok: state.status = .ok
            case .error: if state.status != .ok { state.status = .error(status.message) }
            }
        }
    }

    public func addEvent(_ event: SpanEvent) {
        let recorded = FinishedSpan.Event(
            name: event.name, nanoseconds: event.nanosecondsSinceEpoch, attributes: event.attributes.values)
        state.withLock { $0.events.append(recorded) }
    }

    public func recordError<Instant: TracerInstant>(
        _ error: Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        var attributes = attributes
        attributes["exception.type"] = String(describing: type(of: error))
        attributes["exception.message"] = "\(error)"
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: attributes))
    }

    public func addLink(_ link: SpanLink) {
        guard let parent = link.context.traceParent else { return }
        state.withLock { $0.links.append(FinishedSpan.Link(parent: parent, attributes: link.attributes.values)) }
    }

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let end = instant().nanosecondsSinceEpoch
        let finished = state.withLock { state -> FinishedSpan? in
            guard !state.ended else { return nil }
            state.ended = true
            return FinishedSpan(
                name: state.name, kind: kind, context: own, parentSpanID: parent, start: start, end: max(end, start),
                attributes: state.attributes.values, events: state.events, links: state.links, status: state.status)
        }
        if let finished { exporter.submit(finished) }
    }
}

extension FinishedSpan.Kind {
    init(_ kind: SpanKind) {
        switch kind {
        case .server: self = .server
        case .client: self = .client
        case .producer: self = .producer
        case .consumer: self = .consumer
        default: self = .internal
        }
    }
}

extension SpanAttributes {
    /// The attributes as OTLP values, in name order (stable output).
    var values: [(String, FinishedSpan.Value)] {
        var out: [(String, FinishedSpan.Value)] = []
        forEach { name, attribute in out.append((name, FinishedSpan.Value(attribute))) }
        return out.sorted { $0.0 < $1.0 }
    }
}

extension FinishedSpan.Value {
    init(_ attribute: SpanAttribute) {
        switch attribute {
        case .int32(let value): self = .int(Int64(value))
        case .int64(let value): self = .int(value)
        case .int32Array(let values): self = .ints(values.map(Int64.init))
        case .int64Array(let values): self = .ints(values)
        case .double(let value): self = .double(value)
        case .doubleArray(let values): self = .doubles(values)
        case .bool(let value): self = .bool(value)
        case .boolArray(let values): self = .bools(values)
        case .string(let value): self = .string(value)
        case .stringArray(let values): self = .strings(values)
        case .stringConvertible(let value): self = .string(value.description)
        case .stringConvertibleArray(let values): self = .strings(values.map(\.description))
        default: self = .string("\(attribute)")
        }
    }
}
