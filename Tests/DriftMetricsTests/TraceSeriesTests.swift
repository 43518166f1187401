import DriftMetrics
import Testing

@Suite("trace series at /metrics")
struct TraceSeriesTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("a traced process's spans: exported, dropped and failed requests follow the exporter's totals")
    func counted() {
        let metrics = WorkerMetrics()
        metrics.spans(SpanCounts(exported: 10, dropped: 0, failedRequests: 0))
        metrics.spans(SpanCounts(exported: 12, dropped: 512, failedRequests: 1))
        metrics.spans(SpanCounts(exported: 12, dropped: 700, failedRequests: 3))
        let rendered = text(metrics.render())
        #expect(rendered.contains("driftfix_trace_spans_exported_total 12"), "\(rendered)")
        #expect(rendered.contains("driftfix_trace_spans_dropped_total 700"), "\(rendered)")
        #expect(rendered.contains("driftfix_trace_export_failures_total 3"), "\(rendered)")
    }

    @Test("an untraced process shows no trace series")
    func untraced() {
        let live = LiveRunMetrics()
        live.spans(nil)
        #expect(!text(live.render()).contains("driftfix_trace_"))
    }
}
