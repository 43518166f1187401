import DriftCoordinator
import DriftCore
import DriftJobs
import DriftSchema
import Foundation
import Prometheus

/// What a running `driftfix repair` shows at `/metrics`, fed by the dispatcher's events: the jobs queued and out on
/// lease, done, failed and requeued, the audio repaired, the workers connected, when the run started and when it
/// last made progress (a night that stalls at 03:00 shows it at 03:05). The end-of-run text file keeps its own
/// `driftfix_last_run_*` series; these are the run in progress. The per-device drift series carry the text file's
/// names: measured when the night is planned, with the history's alerts once it ends.
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
    private let deviceGauges = DeviceGauges()
    private let workerSeries = WorkerSeries()

    public init(now: Date = Date()) {
        queued = registry.makeGauge(
            name: "driftfix_run_jobs", labels: [("state", "queued")],
            help: "Jobs of the run in progress by state: queued, or leased to a worker.")
        leased = registry.makeGauge(
            name: "driftfix_run_jobs", labels: [("state", "leased")],
            help: "Jobs of the run in progress by state: queued, or leased to a worker.")
        done = registry.makeCounter(
            name: "driftfix_run_jobs_done_total",
            help: "Jobs of the run in progress that finished with a verified result.")
        failed = registry.makeCounter(
            name: "driftfix_run_jobs_failed_total", help: "Jobs of the run in progress that failed for good.")
        requeued = registry.makeCounter(
            name: "driftfix_run_jobs_requeued_total", help: "Leases of the run in progress put back in the queue.")
        audio = registry.makeCounter(
            name: "driftfix_run_audio_seconds_repaired_total", help: "Seconds of audio the run in progress repaired.")
        workers = registry.makeGauge(
            name: "driftfix_run_workers_connected", help: "Workers connected to the coordinator.")
        started = registry.makeGauge(
            name: "driftfix_run_start_timestamp_seconds", help: "Unix time the run in progress started.")
        progress = registry.makeGauge(
            name: "driftfix_run_last_progress_timestamp_seconds",
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
        case .workerJoined(let name, _):
            workers.increment()
            workerSeries.connected(name, true, in: registry)
        case .workerLost(let name, _):
            workers.decrement()
            workerSeries.connected(name, false, in: registry)
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
                workerSeries.done(by: result.worker, in: registry)
            } else {
                failed.increment()
                // By the kind the retry rule and the report read, never the message (a series per file).
                registry.makeCounter(
                    name: "driftfix_run_jobs_failed_by_reason_total",
                    labels: [("reason", (job.failureKind ?? .other).rawValue)],
                    help: "Jobs of the run in progress that failed for good, by reason."
                ).increment()
            }
        case .workerSilent, .leaseLost, .duplicateResult, .dropped: break
        }
    }

    /// The fleet's devices, worst first, at most `limit` with series of their own (label cardinality); called again
    /// with the same devices, it updates their values.
    public func devices(_ summaries: [DeviceSummary], limit: Int) {
        deviceGauges.update(summaries, limit: limit, in: registry)
    }

    /// The exposition, as `/metrics` serves it.
    public func render() -> [UInt8] { registry.emitToBuffer() }

    /// The gauges of `driftfix_device_*`, made on first use and kept by device name.
    private final class DeviceGauges: @unchecked Sendable {
        private let lock = NSLock()
        private var gauges: [String: Gauge] = [:]

        func update(_ summaries: [DeviceSummary], limit: Int, in registry: PrometheusCollectorRegistry) {
            lock.withLock {
                func gauge(_ name: String, _ labels: [(String, String)], _ help: String) -> Gauge {
                    let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined()
                    if let existing = gauges[key] { return existing }
                    let made = registry.makeGauge(name: name, labels: labels, help: help)
                    gauges[key] = made
                    return made
                }
                for family in DeviceSeries.families(summaries, limit: limit) {
                    for sample in family.samples { gauge(family.name, sample.labels, family.help).set(sample.value) }
                }
            }
        }
    }

    /// Per worker, by the name it goes by (`slurm-4711_3@node07` for a Slurm task, `host-pid` otherwise): whether it
    /// is connected and the jobs it finished, so a dashboard follows each worker (and each node) through the night.
    private final class WorkerSeries: @unchecked Sendable {
        private let lock = NSLock()
        private var connected: [String: Gauge] = [:]
        private var done: [String: Counter] = [:]

        func connected(_ name: String, _ up: Bool, in registry: PrometheusCollectorRegistry) {
            cached(&connected, name) {
                registry.makeGauge(
                    name: "driftfix_run_worker_connected", labels: [("worker", name)],
                    help: "1 while the worker is connected to the run in progress, 0 once it is gone.")
            }.set(up ? 1.0 : 0.0)
        }

        func done(by name: String, in registry: PrometheusCollectorRegistry) {
            cached(&done, name) {
                registry.makeCounter(
                    name: "driftfix_run_worker_jobs_done_total", labels: [("worker", name)],
                    help: "Jobs of the run in progress each worker finished with a verified result.")
            }.increment()
        }

        /// The series of `name`, made on first use.
        private func cached<Series>(_ series: inout [String: Series], _ name: String, make: () -> Series) -> Series {
            lock.withLock {
                if let existing = series[name] { return existing }
                let made = make()
                series[name] = made
                return made
            }
        }
    }

    /// Audio seconds by job, written once when planned, read from the loop thread.
    private final class LockedState: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: [Int: Double] = [:]

        func set(audio: [Int: Double]) { lock.withLock { seconds = audio } }
        func audio(of job: Int) -> Double { lock.withLock { seconds[job] ?? 0 } }
    }
}
