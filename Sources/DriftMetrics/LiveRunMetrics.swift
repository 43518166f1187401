import DriftCoordinator
import Foundation
import Prometheus

/// What a running `driftfix repair` shows at `/metrics`, fed by the dispatcher's events: the jobs queued and out on
/// lease, done, failed and requeued, the audio repaired, the workers connected, when the run started and when it
/// last made progress (a night that stalls at 03:00 shows it at 03:05). The end-of-run text file keeps its own
/// `driftfix_last_run_*` series; these are the run in progress.
public final class LiveRunMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let queued: Gauge
    private let leased: Gauge
    private let done: Counter
    private let failed: Counter
    private let requeued: Counter
    private let audio: Counter
    private let workers: Gauge
    private let started: Gauge
    private let progress: Gauge
    private let state = LockedState()

    public init(now: Date = Date()) {
        queued = registry.makeGauge(name: "driftfix_run_jobs", labels: [("state", "queued")],
                                    help: "Jobs of the run in progress by state: queued, or leased to a worker.")
        leased = registry.makeGauge(name: "driftfix_run_jobs", labels: [("state", "leased")],
                                    help: "Jobs of the run in progress by state: queued, or leased to a worker.")
        done = registry.makeCounter(name: "driftfix_run_jobs_done_total", help: "Jobs of the run in progress that finished with a verified result.")
        failed = registry.makeCounter(name: "driftfix_run_jobs_failed_total", help: "Jobs of the run in progress that failed for good.")
        requeued = registry.makeCounter(name: "driftfix_run_jobs_requeued_total", help: "Leases of the run in progress put back in the queue.")
        audio = registry.makeCounter(name: "driftfix_run_audio_seconds_repaired_total", help: "Seconds of audio the run in progress repaired.")
        workers = registry.makeGauge(name: "driftfix_run_workers_connected", help: "Workers connected to the coordinator.")
        started = registry.makeGauge(name: "driftfix_run_start_timestamp_seconds", help: "Unix time the run in progress started.")
        progress = registry.makeGauge(name: "driftfix_run_last_progress_timestamp_seconds",
                                      help: "Unix time a job of the run in progress last finished or started.")
        started.set(now.timeIntervalSince1970)
        progress.set(now.timeIntervalSince1970)
    }

    /// The jobs about to be dispatched (unfinished ones) and their audio seconds.
    public func planned(_ jobs: [JobRecord]) {
        state.set(audio: Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, $0.audioSeconds) }))
        queued.set(Double(jobs.count))
        leased.set(0.0)
    }

    public func event(_ event: DispatchEvent, at now: Date = Date()) {
        switch event {
        case .workerJoined: workers.increment()
        case .workerLost: workers.decrement()
        case .jobStarted:
            queued.decrement()
            leased.increment()
            progress.set(now.timeIntervalSince1970)
        case .jobRequeued:
            requeued.increment()
            queued.increment()
            leased.decrement()
        case .jobFinished(let job):
            leased.decrement()
            progress.set(now.timeIntervalSince1970)
            if case .done(let result) = job.state, result.succeeded {
                done.increment()
                audio.increment(by: state.audio(of: job.id))
            } else {
                failed.increment()
            }
        case .workerSilent, .leaseLost, .duplicateResult, .dropped: break
        }
    }

    /// The exposition, as `/metrics` serves it.
    public func render() -> [UInt8] { registry.emitToBuffer() }

    /// Audio seconds by job, written once when planned, read from the loop thread.
    private final class LockedState: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: [Int: Double] = [:]

        func set(audio: [Int: Double]) { lock.withLock { seconds = audio } }
        func audio(of job: Int) -> Double { lock.withLock { seconds[job] ?? 0 } }
    }
}
