import Foundation
import Instrumentation
import Logging
import Synchronization
import Tracing

/// The process's tracing: off (swift-distributed-tracing's no-op tracer, the default) or on, exporting to the
/// collector `TraceSettings` name. Started once, by the composition root, before any span.
public enum Traces {
    private static let active = Mutex<SpanExporter?>(nil)

    /// Turns tracing on for this process (nil settings: leaves it off). `role` names the process in its resource
    /// (`driftfix.role`: coordinator or worker), `instance` its identity (`service.instance.id`, a worker's name).
    /// Later calls in the same process change nothing (the tracer is bootstrapped once).
    public static func start(_ settings: TraceSettings?, role: String, instance: String? = nil, logger: Logger) {
        guard let settings, !isOn else { return }
        var resource: [(String, FinishedSpan.Value)] = [
            ("service.name", .string(settings.serviceName)),
            ("host.name", .string(ProcessInfo.processInfo.hostName)),
            ("process.pid", .int(Int64(getpid()))),
            ("process.executable.name", .string("driftfix")),
            ("driftfix.role", .string(role)),
        ]
        if let instance { resource.append(("service.instance.id", .string(instance))) }
        for (key, value) in settings.resource where !resource.contains(where: { $0.0 == key }) {
            resource.append((key, .string(value)))
        }
        let exporter = SpanExporter(settings: settings, resource: resource) { why in
            logger.warning("traces: cannot export (\(why)); spans are dropped and counted until it answers")
        }
        active.withLock { $0 = exporter }
        InstrumentationSystem.bootstrap(OTLPTracer(exporter: exporter))
        logger.info("traces: exporting to \(settings.endpoint) as \(settings.serviceName)")
    }

    /// Whether spans are recorded and exported.
    public static var isOn: Bool { active.withLock { $0 != nil } }

    /// The exporter's counts (spans exported, dropped), nil when tracing is off.
    public static var counts: SpanExporter.Counts? { active.withLock { $0?.counts } }

    /// Sends what is queued now (a night's end), giving up at the first failed request.
    public static func flush() {
        active.withLock { $0 }?.flush()
    }

    /// Sends what is queued and stops exporting: call before the process exits.
    public static func shutdown() {
        active.withLock { $0 }?.shutdown()
    }

    /// Puts the current span's trace and span ids in every log line written inside it (`trace_id`, `span_id`, as
    /// OpenTelemetry's log data model names them).
    public static let logMetadata = Logger.MetadataProvider {
        guard let parent = InstrumentationContext.current?.traceParent else { return [:] }
        return ["trace_id": .string(parent.traceID), "span_id": .string(parent.spanIDHex)]
    }

    /// The `traceparent` of the current span (to put in a message), nil outside one or when tracing is off.
    public static var currentParent: String? { InstrumentationContext.current?.traceParent?.description }

    /// Runs `body` inside a span continuing the trace `traceparent` names (a job's, sent by the coordinator).
    public static func continuing<T>(
        _ traceparent: String?, _ name: String, ofKind kind: SpanKind = .server, _ body: (any Span) throws -> T
    ) rethrows -> T {
        var context = InstrumentationContext.topLevel
        if let traceparent, let parent = TraceParent(traceparent) { context.traceParent = parent }
        return try withSpan(name, context: context, ofKind: kind, body)
    }
}
