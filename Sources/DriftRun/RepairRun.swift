import DriftAudio
import DriftConfig
import DriftCoordinator
import DriftCore
import DriftJobs
import DriftJournal
import DriftMetrics
import DriftPlanning
import DriftReports
import DriftSchema
import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// One `driftfix repair`, end to end: the composition root of the coordinator side. Built from settings, it opens the
/// journal, sweeps leftovers of dead writers, prepares the run (resume or plan), runs the coordinator's services to
/// the end, records the outcome, prunes old runs, adds the drift history and writes the metrics. The command line
/// only maps flags to settings and the outcome to a report and an exit code; the benchmark runs the same way.
public final class RepairRun {
    public struct Settings: Sendable {
        /// Absolute, standardised roots.
        public var roots: [String]
        /// The absolute output root.
        public var outputRoot: String
        public var configuration: Configuration
        /// Overrides the configuration's quality.
        public var quality: ResampleQuality?
        /// Overrides the configuration's engine (and its rules) for every pair.
        public var engine: EngineChoice?
        /// How workers are reached: local processes, an endpoint, CURVE, timeouts.
        public var dispatch: DispatchSettings
        /// The journal file (absolute).
        public var journalPath: String
        /// true: must resume; false: never; nil: when there is an unfinished run.
        public var resume: Bool?
        public var full = false
        /// The Prometheus text file to write after the run.
        public var metricsFile: String?
        /// Where to serve live metrics (`/metrics`, `/healthz`) while the run goes on; nil: nowhere.
        public var metricsAddress: MetricsAddress?

        public init(
            roots: [String], outputRoot: String, configuration: Configuration, localWorkers: Int, journalPath: String
        ) {
            self.roots = roots
            self.outputRoot = outputRoot
            self.configuration = configuration
            dispatch = DispatchSettings(localWorkers: localWorkers)
            self.journalPath = journalPath
        }

        /// Refuses settings that could not work, before anything is created: an output root inside a root (repaired
        /// files would be scanned as recordings) or a root inside the output root; paths compared with links resolved.
        public func validate() throws(SettingsError) {
            let realOut = PathResolution.resolved(outputRoot)
            if let inside = roots.first(where: { PathResolution.isInside(realOut, PathResolution.resolved($0)) }) {
                throw SettingsError(
                    "the output root \(outputRoot) lies inside the root \(inside): repaired files would be scanned as recordings"
                )
            }
            if let root = roots.first(where: { PathResolution.isInside(PathResolution.resolved($0), realOut) }) {
                throw SettingsError(
                    "the root \(root) lies inside the output root \(outputRoot): repaired files could land on recordings"
                )
            }
            if resume == true && full {
                throw SettingsError("resuming keeps the stored plan and a full run makes a fresh one: choose one")
            }
        }
    }

    /// Settings that cannot work (a usage error).
    public struct SettingsError: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// How a run ended.
    public struct Outcome: Sendable {
        /// The report with each pair's outcome and the drift history.
        public var report: ScanReport
        public var status: RunStatus
        /// What went wrong beside the pairs' own outcomes; each makes the night unsuccessful.
        public var problems: [RunProblem] = []

        /// Every pair repaired, unchanged or skipped, and everything recorded.
        public var succeeded: Bool { problems.isEmpty && report.isGoodRun }
    }

    /// Sees the run as it goes (progress bars, logs).
    public protocol Observer: Sendable {
        /// The jobs that will be dispatched (unfinished ones), once the run is prepared.
        func planned(_ jobs: [JobRecord])
        /// A dispatch event, on the coordinator loop's thread.
        func event(_ event: DispatchEvent)
        /// Dispatch ended.
        func finished()
    }

    private let settings: Settings
    private let logger: Logger
    private let observer: Observer?

    public init(settings: Settings, logger: Logger, observer: Observer? = nil) {
        self.settings = settings
        self.logger = logger
        self.observer = observer
    }

    public func run() async throws(RunError) -> Outcome {
        do {
            try settings.validate()
        } catch {
            throw .invalidSettings(error.description)
        }
        // Refused before anything is created or served (opening a journal makes one); a journal without an unfinished
        // run over these roots is the same refusal, found when the run is prepared.
        if settings.resume == true && !FileManager.default.fileExists(atPath: settings.journalPath) {
            throw .nothingToResume(journal: settings.journalPath, exists: false)
        }
        guard let address = settings.metricsAddress else { return try await night(live: nil) }
        // Served from before the scan to after the reports, so a long scan or a stalled night shows.
        let live = LiveRunMetrics()
        let server = MetricsServer(host: address.host, port: address.port, logger: logger) { live.render() }
        let serving = Task { [logger] in
            do { try await server.run() } catch { logger.error("\(error); the run goes on without live metrics") }
        }
        let outcome: Result<Outcome, RunError>
        do {
            outcome = .success(try await night(live: live))
        } catch {
            outcome = .failure(error)
        }
        serving.cancel()
        await serving.value
        return try outcome.get()
    }

    private func night(live: LiveRunMetrics?) async throws(RunError) -> Outcome {
        let started = Date()
        let configuration = settings.configuration
        do {
            try FileManager.default.createDirectory(atPath: settings.outputRoot, withIntermediateDirectories: true)
        } catch {
            throw .outputRoot(path: settings.outputRoot, reason: error.localizedDescription)
        }
        let journal: Journal
        let prepared: PreparedRun
        do {
            journal = try Journal(path: settings.journalPath)
        } catch {
            throw failedBeforeStart(.journal(error), started: started)
        }
        sweep(journal, closing: false)
        do {
            prepared = try RunPreparation.prepare(
                journal: journal,
                options: RunPreparation.Options(
                    layout: RunPlanner.Layout(roots: settings.roots, outputRoot: settings.outputRoot),
                    configuration: configuration, quality: settings.quality ?? configuration.repair.quality,
                    resume: settings.resume, full: settings.full, engine: settings.engine), logger: logger)
        } catch {
            throw failedBeforeStart(error, started: started)
        }

        let store = JournalJobStore(journal: journal, run: prepared.run, jobs: prepared.jobs, prints: prepared.prints)
        let unfinished = prepared.jobs.filter { !$0.isFinished }
        observer?.planned(unfinished)
        live?.planned(unfinished)
        let deviceLimit = configuration.journal.metricsDeviceLimit
        // The drift is measured when the night is planned: a scrape during the night sees the fleet's devices.
        live?.devices(prepared.plan.report(with: [:]).deviceSummaries(), limit: deviceLimit)
        let result: CoordinatorRuntime.Result
        do {
            result = try await CoordinatorRuntime(settings: try runtimeSettings(), logger: logger).run(
                store: store,
                ready: { [settings, logger] endpoint in
                    if settings.dispatch.bind != nil { logger.notice("waiting for workers on \(endpoint)") }
                },
                onEvent: { [observer, live] event in
                    observer?.event(event)
                    live?.event(event)
                })
        } catch let error as RunError {
            throw error
        } catch {
            throw .dispatch("\(error)")
        }
        observer?.finished()
        // Writers that died during the night and were not cleaned up when their lease ended (a local worker started
        // by hand that was hung then killed, the workers of a killed coordinator that outlived its restart).
        sweep(journal, closing: true)
        let outcome = finish(prepared: prepared, store: store, result: result, journal: journal, started: started)
        live?.devices(outcome.report.deviceSummaries(), limit: deviceLimit)
        return outcome
    }

    /// `error`, after the metrics say that the nightly job failed before it began when the journal was the cause (the
    /// last success stays as it was).
    private func failedBeforeStart(_ error: RunError, started: Date) -> RunError {
        if case .journal = error, let file = settings.metricsFile {
            try? RunMetrics.failedBeforeStart(started: started, previous: file).write(to: file)
        }
        return error
    }

    /// Deletes what writers that are gone left under the output root: at the start, those of earlier runs; at the
    /// close, those that died during this one.
    private func sweep(_ journal: Journal, closing: Bool) {
        let swept = StaleTemporaryFiles.sweep(
            root: settings.outputRoot, otherHostsBefore: try? journal.oldestOpenLease())
        if !swept.removed.isEmpty {
            let files = "\(swept.removed.count) temporary file\(swept.removed.count == 1 ? "" : "s")"
            logger.notice(
                closing
                    ? "removed \(files) left under \(settings.outputRoot) by writers that died during this run"
                    : "removed \(files) left under \(settings.outputRoot) by driftfix processes that no longer run")
        }
        for path in swept.kept { logger.info("\(path): kept: its writer may still be running") }
        for (path, reason) in swept.failed {
            logger.warning("\(path): cannot remove this leftover temporary file (\(reason))")
        }
    }

    /// The coordinator's endpoint, security and local workers.
    private func runtimeSettings() throws(RunError) -> CoordinatorRuntime.Settings {
        var dispatch = settings.dispatch
        dispatch.maxAttempts = settings.configuration.maxAttempts
        return try dispatch.runtime(roots: settings.roots, outputRoot: settings.outputRoot, logger: logger)
    }

    /// Records the run's end in the journal, prunes old runs, adds the drift history, writes the metrics.
    private func finish(
        prepared: PreparedRun, store: JournalJobStore, result runtime: CoordinatorRuntime.Result, journal: Journal,
        started: Date
    ) -> Outcome {
        let configuration = settings.configuration
        let status: RunStatus
        var problems: [RunProblem] = []
        switch runtime.outcome {
        case .complete: status = .complete
        case .stopped:
            status = .stopped
            logger.warning("stopped before every job finished; the next run over these roots resumes")
        case .noWorkers:
            status = .noWorkers
            logger.error(
                "no worker alive for \(Int(settings.dispatch.idleTimeout)) s with \(store.unfinishedCount) jobs unfinished; giving up (the next run resumes)"
            )
        case .storeFailed(let reason):
            status = .storeFailed
            problems.append(.storeFailed(reason))
        case .workersFailing(let reason):
            status = .workersFailing
            problems.append(.workersFailing(reason))
        }
        var report = prepared.plan.report(with: store.outcomes)
        report.disruptions = runtime.disruptions.isEmpty ? nil : runtime.disruptions
        if !runtime.disruptions.isEmpty {
            let lost = runtime.disruptions
            func count(_ n: Int, _ thing: String) -> String { "\(n) \(thing)\(n == 1 ? "" : "s")" }
            logger.warning(
                "disruptions: \(count(lost.workersLost, "worker")) lost, \(count(lost.workersRestarted, "worker")) replaced, \(count(lost.jobsRequeued, "job")) requeued"
            )
        }
        do {
            try journal.finishRun(prepared.run, status: status, succeeded: report.isGoodRun, report: report)
            do {
                try journal.prune(keepRuns: configuration.journal.keepRuns)
            } catch {
                logger.warning("\(error) (pruning old runs; the run itself is recorded)")
            }
            report.history = try journal.history(
                HistoryQuery(
                    runs: configuration.journal.historyRuns,
                    rule: configuration.journal.alertRule))
        } catch {
            // The outputs are fine, but the next run would resume this one: the exit code must not say all is well.
            problems.append(.notRecorded(error.description))
            logger.error("\(error)")
        }
        for alert in report.history?.alerts ?? [] { logger.warning("\(alert.name): \(alert.alert ?? "")") }
        var result = Outcome(report: report, status: status, problems: problems)
        if let file = settings.metricsFile {
            let lastSuccess = (try? journal.lastSuccess()) ?? nil
            var numbers = RunMetrics(report: report, started: started, finished: Date(), lastSuccess: lastSuccess)
            numbers.deviceLimit = configuration.journal.metricsDeviceLimit
            if !result.succeeded {
                numbers.succeeded = false
                numbers.lastSuccess = lastSuccess
            }
            do {
                try numbers.write(to: file)
            } catch {
                result.problems.append(.metricsNotWritten("\(error)"))
            }
        }
        if settings.dispatch.bind == nil {
            unlink(DispatchSettings.privateEndpointPath)
        }
        return result
    }
}
