import DriftAV
import DriftConfig
import DriftCoordinator
import DriftCore
import DriftJobs
import DriftJournal
import DriftMedia
import DriftPlanning
import DriftSchema
import DriftSupport
import DriftWire
import Foundation
import Logging
import Tracing

/// What one `driftfix repair` will do: a run in the journal, its plan, and the jobs still to run. Either resumed from
/// the journal (an unfinished run over the same roots: its plan as stored, jobs done stay done, jobs out on lease go
/// back to the queue) or planned afresh (scan, plan, leave out the pairs whose output from an earlier night is still
/// current), and stored before the first job is sent.
package struct PreparedRun: Sendable {
    /// The journal's run id.
    public let run: Int64
    public let plan: RunPlan
    /// With what each one's output will be made from.
    public let jobs: [JobRecord]
    public let resumed: Bool
}

/// The resume policy and the planning of a run, separate from sockets and processes so that it is tested directly.
package enum RunPreparation {
    public struct Options: Sendable {
        public var layout: RunPlanner.Layout
        public var configuration: Configuration
        public var quality: ResampleQuality
        /// The resampling engine for every pair (`--engine`); nil: the configuration's, per its rules.
        public var engine: EngineChoice?
        public var resume: ResumePolicy
        /// Ignore earlier outputs: redo every pair that needs repair (and never resume).
        public var full: Bool

        public init(
            layout: RunPlanner.Layout, configuration: Configuration, quality: ResampleQuality,
            resume: ResumePolicy = .whenUnfinished,
            full: Bool,
            engine: EngineChoice? = nil
        ) {
            self.layout = layout
            self.configuration = configuration
            self.quality = quality
            self.engine = engine
            self.resume = resume
            self.full = full
        }

        /// The engine for the recording at `path`: `--engine`, else the configuration's rules and default.
        func engine(for path: String) -> EngineChoice {
            engine ?? configuration.repair.engine(forPathText: path)
        }
    }

    public static func prepare(journal: Journal, options: Options, logger: Logger) throws(RunError) -> PreparedRun {
        try RunError.journaling(journal) { try prepareOrThrow(journal: journal, options: options, logger: logger) }
    }

    /// The scan of `roots`, a span of its own.
    private static func scan(_ roots: [String], _ configuration: Configuration) -> ScanReport {
        withSpan("scan") { span in
            let report = DriftScanner.scan(
                roots: roots, rules: configuration.pairing, drift: configuration.drift, repair: configuration.repair)
            span.attributes["driftfix.pairs"] = report.pairs.count
            return report
        }
    }

    private static func prepareOrThrow(journal: Journal, options: Options, logger: Logger) throws -> PreparedRun {
        let roots = options.layout.roots
        let outputRoot = options.layout.outputRoot
        let run: Int64
        switch try resumption(journal: journal, options: options, logger: logger) {
        case .resumed(let prepared): return prepared
        case .scan(let resumed): run = resumed
        case .none:
            if options.resume == .always { throw RunError.nothingToResume(journal: journal.path, exists: true) }
            run = try journal.beginRun(roots: roots, outputRoot: outputRoot)
        }
        Failpoint.hit("scan")

        let configuration = options.configuration
        let report = scan(roots, configuration)
        // With --full no earlier output is looked at: every pair to repair is repaired.
        let previous = options.full ? [:] : try journal.outputs()
        var prints: [PairID: JobFingerprints] = [:]
        let planning = startSpan("plan")
        defer { planning.end() }
        let plan = RunPlanner.plan(
            report, layout: options.layout, content: configuration.content, drift: configuration.drift
        ) { pair in
            let fingerprints = JobFingerprints(
                plan: pair, quality: options.quality,
                engine: options.engine(for: pair.id.recording).namedInPlan)
            prints[pair.id] = fingerprints
            let verdict = IncrementalCheck.verdict(
                for: pair, prints: fingerprints, previous: previous[pair.id.recording],
                stillHolds: AudioInput.stillHolds)
            if case .stale(let reason) = verdict, previous[pair.id.recording] != nil {
                logger.info("\(pair.id.recording): repairing again: \(reason)")
            }
            return verdict
        }
        let key = try journal.runKey(run)
        let rows = Dictionary(report.pairs.map { ($0.recordingText, $0) }, uniquingKeysWith: { first, _ in first })
        var jobs: [JobRecord] = []
        for pair in plan.toRepair {
            let content = pair.content.flatMap { policy in
                rows[pair.id.recording].map {
                    ContentJob(pair: pair, row: $0, policy: policy, quality: options.quality)
                }
            }
            // The job names the engine that actually runs (its coding history and the journal say which).
            let engine = options.engine(for: pair.id.recording).engine(for: options.quality)
            guard
                var job = JobRecord(
                    id: jobs.count + 1, plan: pair, quality: options.quality, engine: engine, outputRoot: outputRoot,
                    inputRoots: roots, run: key, content: content)
            else { continue }
            job.fingerprints = prints[pair.id]
            jobs.append(job)
        }
        try journal.storePlan(run: run, plan: plan, jobs: jobs)
        Failpoint.hit("planned")
        logger.notice(
            "run \(run): \(report.pairs.count) pairs: \(jobs.count) to repair, \(plan.unchanged) unchanged since an earlier run, \(report.summary.inSync) in sync, \(report.summary.refused) refused or unreadable"
        )
        return PreparedRun(run: run, plan: plan, jobs: jobs, resumed: false)
    }

    /// What an unfinished run over the same roots leaves this one: its plan and jobs to go on with, or its id to scan
    /// again (it stopped during its scan, or every job had finished and it is closed now); nothing where there is
    /// none, or resuming is off.
    private enum Resumption {
        case resumed(PreparedRun)
        case scan(Int64)
    }

    private static func resumption(journal: Journal, options: Options, logger: Logger) throws -> Resumption? {
        let (roots, outputRoot) = (options.layout.roots, options.layout.outputRoot)
        guard options.resume != .never && !options.full,
            let unfinished = try journal.unfinishedRun(roots: roots, outputRoot: outputRoot)
        else { return nil }
        let started = ISO8601DateFormatter().string(from: unfinished.started)
        guard unfinished.planned else {
            logger.notice(
                "resuming run \(unfinished.id) (started \(started)): it stopped during its scan; scanning again")
            return .scan(unfinished.id)
        }
        var stored = try journal.loadPlan(run: unfinished.id)
        stored.plan.drift = options.configuration.drift
        let done = stored.jobs.filter(\.isFinished).count
        if done < stored.jobs.count || options.resume == .always {
            logger.notice(
                "resuming run \(unfinished.id) (started \(started), \(unfinished.status.rawValue)): \(done) of \(stored.jobs.count) jobs already finished; its stored plan is kept"
            )
            return .resumed(PreparedRun(run: unfinished.id, plan: stored.plan, jobs: stored.jobs, resumed: true))
        }
        // Every job finished but the run was not closed (the coordinator died after the last result): close it as it
        // stands, and plan tonight's run afresh.
        try close(unfinished.id, stored: stored, journal: journal)
        logger.notice("run \(unfinished.id) had finished every job before it stopped; closed it, starting a new run")
        return .scan(try journal.beginRun(roots: roots, outputRoot: outputRoot))
    }

    /// Records a run whose jobs all finished as complete, with its outcomes.
    private static func close(_ run: Int64, stored: StoredRun, journal: Journal) throws {
        let store = InMemoryJobStore()
        store.add(stored.jobs)
        let report = stored.plan.report(with: store.outcomes)
        try journal.finishRun(run, status: .complete, succeeded: report.isGoodRun, report: report)
    }
}
