import DriftCoordinator
import DriftCore
import DriftJobs
import DriftReports
import DriftSchema
import Foundation
import Prometheus
import Synchronization

/// What a running `driftfix repair` shows at `/metrics`, fed by the dispatcher's events: the jobs queued and out on
/// lease, done, failed and requeued, the audio repaired, the workers connected, when the run started and when it
/// last made progress (a night that stalls at 03:00 shows it at 03:05). The end-of-run text file keeps its own
/// `driftfix_last_run_*` series; these are the run in progress. The per-device drift series carry the text file's
/// names: measured when the night is planned, with the history's alerts once it ends.
public final class LiveRunMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let traces = TraceSeries()
    private let workers: Gauge
    private let started: Gauge
    private let progress: Gauge
    private let state = LockedState()
    private let deviceGauges = DeviceGauges()
    private let workerSeries = WorkerSeries()

    public init(now: Date = Date()) {
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

    /// A round's jobs about to be dispatched (its unfinished ones) and their audio seconds. `round` labels the job
    /// series of a night in rounds (a sound night's `prints` and `clips`); nil keeps them unlabelled (a night by
    /// names, as dashboards know it). One night uses one way throughout.
    public func planned(_ jobs: [JobRecord], round: String? = nil) {
        let series = state.plan(jobs, round: round) { Round(registry, label: round) }
        series.queued.set(Double(jobs.count))
        series.leased.set(0.0)
    }

    public func event(_ event: DispatchEvent, at now: Date = Date()) {
        switch event {
        case .workerJoined(let name, _):
            workers.increment()
            workerSeries.connected(name, true, in: registry)
        case .workerLost(let name, _):
            workers.decrement()
            workerSeries.connected(name, false, in: registry)
        case .jobStarted(let id, _, _):
            guard let round = state.round(of: id) else { return }
            round.queued.decrement()
            round.leased.increment()
            progress.set(now.timeIntervalSince1970)
        case .jobRequeued(let id, _):
            guard let round = state.round(of: id) else { return }
            round.requeued.increment()
            round.queued.increment()
            round.leased.decrement()
        case .jobFinished(let job):
            guard let round = state.round(of: job.id) else { return }
            round.leased.decrement()
            progress.set(now.timeIntervalSince1970)
            switch job.state {
            case .done(let result):
                round.done.increment()
                round.audio.increment(by: state.audio(of: job.id))
                workerSeries.done(by: result.worker, in: registry)
            case .failed(let failure):
                round.failed.increment()
                // By the kind the retry rule and the report read, never the message (a series per file).
                registry.makeCounter(
                    name: "driftfix_run_jobs_failed_by_reason_total",
                    labels: [("reason", failure.kind.rawValue)] + round.labels,
                    help: "Jobs of the run in progress that failed for good, by reason."
                ).increment()
            case .queued, .leased: break
            }
        case .workerSilent, .leaseLost, .duplicateResult, .staleResult, .dropped: break
        }
    }

    /// One round's job series: the jobs queued and leased, done, failed and requeued, the audio done.
    private final class Round: Sendable {
        let labels: [(String, String)]
        let queued: Gauge
        let leased: Gauge
        let done: Counter
        let failed: Counter
        let requeued: Counter
        let audio: Counter

        init(_ registry: PrometheusCollectorRegistry, label: String?) {
            let round = label.map { [("round", $0)] } ?? []
            labels = round
            let jobsHelp = "Jobs of the run in progress by state: queued, or leased to a worker."
            queued = registry.makeGauge(
                name: "driftfix_run_jobs", labels: [("state", "queued")] + round, help: jobsHelp)
            leased = registry.makeGauge(
                name: "driftfix_run_jobs", labels: [("state", "leased")] + round, help: jobsHelp)
            done = registry.makeCounter(
                name: "driftfix_run_jobs_done_total", labels: round,
                help: "Jobs of the run in progress that finished with a verified result.")
            failed = registry.makeCounter(
                name: "driftfix_run_jobs_failed_total", labels: round,
                help: "Jobs of the run in progress that failed for good.")
            requeued = registry.makeCounter(
                name: "driftfix_run_jobs_requeued_total", labels: round,
                help: "Leases of the run in progress put back in the queue.")
            audio = registry.makeCounter(
                name: "driftfix_run_audio_seconds_repaired_total", labels: round,
                help: "Seconds of audio the run in progress repaired.")
        }
    }

    /// The fleet's devices, worst first, at most `limit` with series of their own (label cardinality); called again
    /// with the same devices, it updates their values.
    public func devices(_ summaries: [DeviceSummary], limit: Int) {
        deviceGauges.update(summaries, limit: limit, in: registry)
    }

    /// The exposition, as `/metrics` serves it.
    /// What became of this process's spans (nil: not traced, no series).
    public func spans(_ counts: SpanCounts?) {
        if let counts { traces.update(counts, in: registry) }
    }

    public func render() -> [UInt8] { registry.emitToBuffer() }

    /// The gauges of `driftfix_device_*`, made on first use and kept by device name.
    private final class DeviceGauges: Sendable {
        private let made = Mutex<[String: Gauge]>([:])

        func update(_ summaries: [DeviceSummary], limit: Int, in registry: PrometheusCollectorRegistry) {
            made.withLock { gauges in
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
    private final class WorkerSeries: Sendable {
        private let connected = Mutex<[String: Gauge]>([:])
        private let done = Mutex<[String: Counter]>([:])

        func connected(_ name: String, _ up: Bool, in registry: PrometheusCollectorRegistry) {
            cached(connected, name) {
                registry.makeGauge(
                    name: "driftfix_run_worker_connected", labels: [("worker", name)],
                    help: "1 while the worker is connected to the run in progress, 0 once it is gone.")
            }.set(up ? 1.0 : 0.0)
        }

        func done(by name: String, in registry: PrometheusCollectorRegistry) {
            cached(done, name) {
                registry.makeCounter(
                    name: "driftfix_run_worker_jobs_done_total", labels: [("worker", name)],
                    help: "Jobs of the run in progress each worker finished with a verified result.")
            }.increment()
        }

        /// The series of `name`, made on first use.
        private func cached<Series: Sendable>(
            _ made: borrowing Mutex<[String: Series]>, _ name: String, make: () -> Series
        ) -> Series {
            made.withLock { series in
                if let existing = series[name] { return existing }
                let made = make()
                series[name] = made
                return made
            }
        }
    }

    /// Each planned job's audio seconds and round, and each round's series, read from the loop thread.
    private final class LockedState: Sendable {
        private struct State {
            var jobs: [Int: (seconds: Double, round: Round)] = [:]
            var rounds: [String: Round] = [:]
        }
        private let state = Mutex(State())

        /// The series of `round` (made on first use), with `jobs` now in it.
        func plan(_ planned: [JobRecord], round label: String?, make: () -> Round) -> Round {
            state.withLock { state in
                let key = label ?? ""
                let round = state.rounds[key] ?? make()
                state.rounds[key] = round
                for job in planned { state.jobs[job.id] = (job.audioSeconds, round) }
                return round
            }
        }

        func round(of job: Int) -> Round? { state.withLock { $0.jobs[job]?.round } }
        func audio(of job: Int) -> Double { state.withLock { $0.jobs[job]?.seconds ?? 0 } }
    }
}
