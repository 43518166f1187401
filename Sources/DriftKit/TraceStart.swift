import DriftConfig
import DriftTrace
import Logging

#if LiveMetrics
    import DriftMetrics
#endif

/// Where a process's traces go: the standard `OTEL_*` variables over the configuration's `tracing:` section.
enum TraceStart {
    /// The settings, or nil (off). A setting that cannot be followed is one line, and the night goes on untraced:
    /// traces never stop a night.
    static func settings(
        _ configured: TracingSettings, environment: [String: String], logger: Logger
    ) -> TraceSettings? {
        var asked = TraceSettings.Configured()
        asked.enabled = configured.enabled
        asked.endpoint = configured.endpoint
        asked.serviceName = configured.serviceName
        asked.resourceAttributes = configured.resourceAttributes
        asked.headers = configured.headers
        do {
            return try TraceSettings.resolve(environment: environment, configured: asked)
        } catch {
            logger.error("traces: \(error); the night goes on without traces")
            return nil
        }
    }
}

/// What every log line carries beside its message: inside a traced span, its trace and span ids (`trace_id`,
/// `span_id`), so a person can go from an error line to its trace.
public enum LogContext {
    public static let metadataProvider: Logger.MetadataProvider = Traces.logMetadata
}

#if LiveMetrics
    extension Traces {
        /// The exporter's counts as the metrics take them; nil while tracing is off.
        static var spanCounts: SpanCounts? {
            counts.map { SpanCounts(exported: $0.exported, dropped: $0.dropped, failedRequests: $0.failedRequests) }
        }
    }
#endif
