import DriftCore
import Foundation
import Prometheus

/// What a running `driftfix worker` shows at `/metrics`: jobs done and failed (failures by reason), frames written,
/// jobs running now, and whether a coordinator is answering.
public final class WorkerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let traces = TraceSeries()
    private let done: Counter
    private let frames: Counter
    private let running: Gauge
    private let connected: Gauge

    public init() {
        done = registry.makeCounter(
            name: "driftfix_worker_jobs_done_total", help: "Jobs this worker finished with a verified result.")
        frames = registry.makeCounter(
            name: "driftfix_worker_output_frames_total", help: "Frames of verified output this worker wrote.")
        running = registry.makeGauge(name: "driftfix_worker_jobs_running", help: "Jobs this worker is running now.")
        connected = registry.makeGauge(
            name: "driftfix_worker_coordinator_connected",
            help: "1 while a coordinator is answering, 0 while the worker waits for one.")
    }

    public func started() { running.increment() }

    /// A job ended: the frames it wrote when it succeeded, or the reason it failed.
    /// A job ended: its output's frames when it wrote one, or why it failed.
    public func finished(outputFrames: Int64?, failure: FailureKind?) {
        running.decrement()
        if let failure {
            registry.makeCounter(
                name: "driftfix_worker_jobs_failed_total", labels: [("reason", failure.rawValue)],
                help: "Jobs this worker failed, by reason."
            ).increment()
        } else {
            done.increment()
            frames.increment(by: outputFrames ?? 0)
        }
    }

    public func coordinator(connected isConnected: Bool) { connected.set(isConnected ? 1.0 : 0.0) }

    /// What became of this process's spans (nil: not traced, no series).
    public func spans(_ counts: SpanCounts?) {
        if let counts { traces.update(counts, in: registry) }
    }

    public func render() -> [UInt8] { registry.emitToBuffer() }
}
