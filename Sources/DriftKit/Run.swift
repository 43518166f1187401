import DriftAudio
import DriftConfig
import DriftCoordinator
import DriftCore
import DriftJobs
import DriftJournal
import DriftReports
import DriftRules
import DriftSchema
import DriftSoundPairing
import DriftTimeline
import DriftTrace
import Foundation
import Logging
import Tracing

import struct SystemPackage.FilePath

#if LiveMetrics
    import DriftMetrics
#endif

/// One run of driftfix, whatever the command and whatever the pairing: the one use case `scan`, `repair` and `sync`
/// share. Built from settings, it pairs the files (by names, by sound, or names then sound), measures them, and with
/// an output repairs them as a night recorded in the journal (resumed when it did not finish; what an earlier night
/// made and still stands kept), with live metrics and a progress observer for every round, and returns one outcome
/// with one success rule. The command line maps flags to settings and the outcome to words and an exit code.
public struct Run: Sendable {
    /// How a run ended.
    public struct Outcome: Sendable {
        /// The drift report: one row per pair (and per clip and recording that heard it), with outcomes when the run
        /// wrote anything, and the drift history of a night recorded in a journal.
        public var report: ScanReport
        /// The pairing by sound as found (groups, matches, clips and recordings left over), where the run paired by it.
        public var sound: SoundPairingReport?
        /// The timeline files written (an EDL per camera track where there are several).
        public var timelineFiles: [FilePath] = []
        /// How the night ended in the journal; nil for a run that records none.
        public var status: RunStatus?
        /// What went wrong beside the rows' own outcomes; each makes the run unsuccessful.
        public var problems: [RunProblem] = []

        /// The one success rule: every row good (repaired, unchanged or skipped; measured, not refused, not failed),
        /// no folder left unread, and nothing else went wrong.
        public var succeeded: Bool { problems.isEmpty && report.isGoodRun }
    }

    let settings: Settings
    let logger: Logger
    let observer: RunObserver?

    public init(settings: Settings, logger: Logger, observer: RunObserver? = nil) {
        self.settings = settings
        self.logger = logger
        self.observer = observer
    }

    public func run() async throws(RunError) -> Outcome {
        defer { observer?.runEnded() }
        Traces.start(
            TraceStart.settings(
                settings.configuration.tracing, environment: ProcessInfo.processInfo.environment, logger: logger),
            role: "coordinator", logger: logger)
        // One trace per night: its scan, plan, dispatch and finish are children, each job's span below dispatch.
        let result = await withSpan("driftfix night", ofKind: .server) { span -> Result<Outcome, RunError> in
            span.attributes["driftfix.roots"] = settings.rootTexts
            span.attributes["driftfix.pairing"] = "\(settings.pairing)"
            if let outputRoot = settings.outputRootText { span.attributes["driftfix.output.root"] = outputRoot }
            let result: Result<Outcome, RunError>
            do throws(RunError) {
                result = .success(try await untraced())
            } catch {
                result = .failure(error)
            }
            Self.describe(result, on: span)
            return result
        }
        Traces.flush()
        return try result.get()
    }

    private static func describe(_ result: Result<Outcome, RunError>, on span: any Span) {
        switch result {
        case .success(let outcome):
            span.attributes["driftfix.pairs"] = outcome.report.pairs.count
            if let status = outcome.status { span.attributes["driftfix.status"] = status.rawValue }
            if !outcome.succeeded { span.setStatus(SpanStatus(code: .error, message: "not every pair succeeded")) }
        case .failure(let error):
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: "\(error)"))
        }
    }

    private func untraced() async throws(RunError) -> Outcome {
        do {
            try settings.validate()
        } catch {
            throw .invalidSettings(error)
        }
        // Refused before anything is created or served (opening a journal makes one); a journal without an unfinished
        // run over these roots is the same refusal, found when the run is prepared.
        if settings.resume == .always, let journal = settings.journalText,
            !FileManager.default.fileExists(atPath: journal)
        {
            throw .nothingToResume(journal: journal, exists: false)
        }
        guard let address = settings.metricsAddress else { return try await whole(live: nil) }
        #if LiveMetrics
            // Served from before the scan to after the reports, so a long scan or a stalled night shows.
            let live = LiveRunMetrics()
            let server: MetricsServer
            do {
                server = try MetricsServer(address: address, logger: logger) {
                    live.spans(Traces.spanCounts)
                    return live.render()
                }
            } catch {
                throw .invalidSettings(SettingsError(.metricsAddress, error.description))
            }
            let serving = Task { [logger] in
                do { try await server.run() } catch { logger.error("\(error); the run goes on without live metrics") }
            }
            let outcome: Result<Outcome, RunError>
            do {
                outcome = .success(try await whole(live: live))
            } catch {
                outcome = .failure(error)
            }
            serving.cancel()
            await serving.value
            return try outcome.get()
        #else
            throw .invalidSettings(SettingsError(.metricsAddress, MetricsError.notBuilt(address).description))
        #endif
    }

    /// The run between its metrics listener's start and end.
    private func whole(live: LiveRunMetrics?) async throws(RunError) -> Outcome {
        let started = Date()
        if let outputRoot = settings.outputRootText {
            do {
                try FileManager.default.createDirectory(atPath: outputRoot, withIntermediateDirectories: true)
            } catch {
                throw .outputRoot(path: outputRoot, reason: error.localizedDescription)
            }
        }
        var journal: Journal?
        if let path = settings.journalText {
            do {
                journal = try Journal(path: path)
            } catch {
                throw failedBeforeStart(.journal(error), started: started)
            }
        }
        let watch = Watch(observer: observer, live: live, labelled: settings.pairing != .name)
        if let journal, settings.outputRootText != nil { sweep(journal, closing: false) }
        var outcome: Outcome
        switch settings.pairing {
        case .name:
            outcome = try await NameNight(run: self, journal: journal, watch: watch).run(started: started)
        case .sound:
            outcome = try await SoundNight(run: self, journal: journal, watch: watch).run()
        case .nameThenSound:
            // Names first; a camera file with its own audio is left to the sound (a clip to find, not a pair by
            // itself).
            var names = self
            names.settingsForNames()
            let byNames = try await NameNight(run: names, journal: journal, watch: watch).run(started: started)
            let bySound = try await SoundNight(run: self, journal: journal, watch: watch).run()
            outcome = byNames
            outcome.report = SoundPairing.merged(names: byNames.report, sound: bySound.report)
            outcome.sound = bySound.sound
            outcome.problems += bySound.problems
            outcome.status = Self.worse(byNames.status, bySound.status)
        }
        watch.finished()
        let finishing = startSpan("finish")
        defer { finishing.end() }
        if let file = settings.timeline, let sound = outcome.sound {
            let (written, leftOff) = SoundTimeline(settings: settings).write(sound, to: file)
            for line in leftOff { logger.warning("\(line)") }
            switch written {
            case .success(let paths): outcome.timelineFiles = paths
            case .failure(let error): outcome.problems.append(.timelineNotWritten(error.description))
            }
        }
        guard let journal, settings.outputRootText != nil else { return outcome }
        // Writers that died during the night and were not cleaned up when their lease ended (a local worker started
        // by hand that was hung then killed, the workers of a killed coordinator that outlived its restart).
        sweep(journal, closing: true)
        history(&outcome, journal: journal)
        live?.devices(outcome.report.deviceSummaries(), limit: settings.configuration.journal.metricsDeviceLimit)
        writeMetrics(&outcome, journal: journal, started: started)
        return outcome
    }

    /// For the names part of names-then-sound: camera files with their own audio are left to the sound.
    private mutating func settingsForNames() {
        var settings = self.settings
        settings.configuration.pairing.selfPairs = false
        self = Run(settings: settings, logger: logger, observer: observer)
    }

    /// The less finished of two nights' statuses (the one the next run resumes).
    private static func worse(_ a: RunStatus?, _ b: RunStatus?) -> RunStatus? {
        guard let a, let b else { return a ?? b }
        return a == .complete ? b : a
    }

    /// Prunes old runs and adds the drift history to the report.
    private func history(_ outcome: inout Outcome, journal: Journal) {
        let configuration = settings.configuration
        do {
            do {
                try journal.prune(keepRuns: configuration.journal.keepRuns)
            } catch {
                logger.warning("\(error) (pruning old runs; the run itself is recorded)")
            }
            outcome.report.history = try journal.history(
                HistoryQuery(runs: configuration.journal.historyRuns, rule: configuration.journal.alertRule))
        } catch {
            outcome.problems.append(.notRecorded(error.description))
            logger.error("\(error)")
        }
        for alert in outcome.report.history?.alerts ?? [] { logger.warning("\(alert.name): \(alert.alert ?? "")") }
    }

    /// The night's Prometheus text file, when one is asked for.
    private func writeMetrics(_ outcome: inout Outcome, journal: Journal, started: Date) {
        guard let file = settings.metricsFileText ?? settings.configuration.journal.metricsFile?.pathText else {
            return
        }
        let lastSuccess = (try? journal.lastSuccess()) ?? nil
        var numbers = RunMetrics(report: outcome.report, started: started, finished: Date(), lastSuccess: lastSuccess)
        numbers.deviceLimit = settings.configuration.journal.metricsDeviceLimit
        if !outcome.succeeded {
            numbers.succeeded = false
            numbers.lastSuccess = lastSuccess
        }
        do {
            try numbers.write(toPathText: file)
        } catch {
            outcome.problems.append(.metricsNotWritten("\(error)"))
        }
    }

    /// `error`, after the metrics say that the nightly job failed before it began when the journal was the cause (the
    /// last success stays as it was).
    private func failedBeforeStart(_ error: RunError, started: Date) -> RunError {
        if case .journal = error, settings.outputRootText != nil,
            let file = settings.metricsFileText ?? settings.configuration.journal.metricsFile?.pathText
        {
            try? RunMetrics.failedBeforeStart(started: started, previousPathText: file).write(toPathText: file)
        }
        return error
    }

    /// Deletes what writers that are gone left under the output root: at the start, those of earlier runs; at the
    /// close, those that died during this one.
    private func sweep(_ journal: Journal, closing: Bool) {
        guard let outputRoot = settings.outputRootText else { return }
        let swept = StaleTemporaryFiles.sweep(root: outputRoot, otherHostsBefore: try? journal.oldestOpenLease())
        if !swept.removed.isEmpty {
            let files = "\(swept.removed.count) temporary file\(swept.removed.count == 1 ? "" : "s")"
            logger.notice(
                closing
                    ? "removed \(files) left under \(outputRoot) by writers that died during this run"
                    : "removed \(files) left under \(outputRoot) by driftfix processes that no longer run")
        }
        for path in swept.kept { logger.info("\(path): kept: its writer may still be running") }
        for (path, reason) in swept.failed {
            logger.warning("\(path): cannot remove this leftover temporary file (\(reason))")
        }
    }
}
