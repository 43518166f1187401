import Prometheus
import Synchronization

/// What became of a process's spans so far.
public struct SpanCounts: Sendable, Equatable {
    public var exported: Int
    public var dropped: Int
    public var failedRequests: Int

    public init(exported: Int, dropped: Int, failedRequests: Int) {
        self.exported = exported
        self.dropped = dropped
        self.failedRequests = failedRequests
    }
}

/// What became of this process's spans, for `/metrics`: exported, dropped (a full queue, or a collector that was
/// away), failed export requests. Fed at each scrape from the exporter's counts; registered on the first that has
/// tracing on, so an untraced process shows no trace series.
final class TraceSeries: Sendable {
    private struct Series {
        let exported: Counter
        let dropped: Counter
        let failures: Counter
        var seen = (exported: 0, dropped: 0, failures: 0)
    }

    private let state = Mutex<Series?>(nil)

    /// Brings the counters up to the exporter's totals (they only ever grow).
    func update(_ counts: SpanCounts, in registry: PrometheusCollectorRegistry) {
        let (exported, dropped, failedRequests) = (counts.exported, counts.dropped, counts.failedRequests)
        state.withLock { state in
            var series =
                state
                ?? Series(
                    exported: registry.makeCounter(
                        name: "driftfix_trace_spans_exported_total", help: "Spans the trace collector accepted."),
                    dropped: registry.makeCounter(
                        name: "driftfix_trace_spans_dropped_total",
                        help: "Spans dropped: the export queue was full, or the collector did not accept them."),
                    failures: registry.makeCounter(
                        name: "driftfix_trace_export_failures_total", help: "Span export requests that failed."))
            series.exported.increment(by: Int64(max(0, exported - series.seen.exported)))
            series.dropped.increment(by: Int64(max(0, dropped - series.seen.dropped)))
            series.failures.increment(by: Int64(max(0, failedRequests - series.seen.failures)))
            series.seen = (exported, dropped, failedRequests)
            state = series
        }
    }
}
