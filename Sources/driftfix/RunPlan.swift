import ArgumentParser
import DriftConfig
import DriftCoordinator
import DriftCore
import DriftJournal
import DriftMedia
import DriftSchema
import DriftSupport
import Foundation
import Logging

/// What one `driftfix repair` will do: a run in the journal, its report (the scan), and the jobs still to run.
/// Either resumed from the journal (an unfinished run over the same roots: its plan as stored, jobs done stay
/// done, jobs out on lease go back to the queue) or planned afresh (scan, then drop the jobs whose output from an
/// earlier night is still current), and stored before the first job is sent.
struct RunPlan {
    let run: Int64
    var report: ScanReport
    let jobs: [JobRecord]
    let rows: [Int: Int]
    let prints: [Int: JobFingerprints]
    let resumed: Bool

    struct Options {
        var roots: [String]
        var outputRoot: String
        var configuration: Configuration
        var quality: ResampleQuality
        /// true: must resume; false: never; nil: resume when there is an unfinished run.
        var resume: Bool?
        /// Ignore earlier outputs: redo every pair that needs repair.
        var full: Bool
    }

    static func prepare(journal: Journal, options: Options, logger: Logger) throws -> RunPlan {
        let run: Int64
        // --full asks for every pair to be redone: that is a fresh plan, never a resumed one.
        let mayResume = options.resume != false && !options.full
        if options.resume == true && options.full { throw ValidationError("--resume and --full contradict each other") }
        if mayResume, let unfinished = try journal.unfinishedRun(roots: options.roots, outputRoot: options.outputRoot) {
            let started = ISO8601DateFormatter().string(from: unfinished.started)
            if unfinished.planned {
                let loaded = try journal.loadPlan(run: unfinished.id)
                let done = loaded.jobs.filter(\.isFinished).count
                if done < loaded.jobs.count || options.resume == true {
                    logger.notice("resuming run \(unfinished.id) (started \(started), \(unfinished.status.rawValue)): \(done) of \(loaded.jobs.count) jobs already finished; its stored plan is kept")
                    return RunPlan(run: unfinished.id, report: loaded.report, jobs: loaded.jobs, rows: loaded.rows,
                                   prints: loaded.prints, resumed: true)
                }
                // Every job finished but the run was not closed (the coordinator died after the last result): close
                // it as it stands, and plan tonight's run afresh.
                try close(unfinished.id, loaded: loaded, journal: journal)
                logger.notice("run \(unfinished.id) had finished every job before it stopped; closed it, starting a new run")
                run = try journal.beginRun(roots: options.roots, outputRoot: options.outputRoot)
            } else {
                logger.notice("resuming run \(unfinished.id) (started \(started)): it stopped during its scan; scanning again")
                run = unfinished.id
            }
        } else {
            if options.resume == true {
                throw failure("nothing to resume: journal \(journal.path) has no unfinished run over these roots")
            }
            run = try journal.beginRun(roots: options.roots, outputRoot: options.outputRoot)
        }
        Failpoint.hit("scan")

        let configuration = options.configuration
        var report = DriftScanner.scan(roots: options.roots, rules: configuration.pairing, drift: configuration.drift,
                                       repair: configuration.repair)
        let (candidates, rows) = RepairPlanner.jobs(for: report, roots: options.roots, outRoot: options.outputRoot,
                                                    quality: options.quality, run: try journal.runKey(run))
        // With --full no earlier output is looked at, so every verdict is stale.
        let previous = options.full ? [:] : try journal.outputs()
        var planned: [PlannedJob] = []
        var prints: [Int: JobFingerprints] = [:]
        var unchanged = 0
        for job in candidates {
            guard let row = rows[job.id] else { continue }
            let fingerprints = JobFingerprints(job: job, reference: report.pairs[row].reference)
            switch IncrementalCheck.verdict(for: job, prints: fingerprints, previous: previous[job.input]) {
            case .current(let record):
                report.pairs[row].outcome = .unchanged
                report.pairs[row].output = record.output
                report.pairs[row].outputFrames = record.outputFrames
                report.pairs[row].checksum = record.checksum
                report.pairs[row].worker = record.worker
                unchanged += 1
                continue
            case .stale(let reason):
                if previous[job.input] != nil { logger.info("\(job.input): repairing again: \(reason)") }
            }
            planned.append(PlannedJob(record: job, row: row, prints: fingerprints))
            prints[job.id] = fingerprints
        }
        try journal.storePlan(run: run, report: report, jobs: planned)
        Failpoint.hit("planned")
        let refused = report.summary.refused
        logger.notice("run \(run): \(report.pairs.count) pairs: \(planned.count) to repair, \(unchanged) unchanged since an earlier run, \(report.summary.inSync) in sync, \(refused) refused or unreadable")
        return RunPlan(run: run, report: report, jobs: planned.map(\.record), rows: rows, prints: prints, resumed: false)
    }

    /// Records a run whose jobs all finished as complete, with its outcomes.
    private static func close(_ run: Int64, loaded: (report: ScanReport, jobs: [JobRecord], rows: [Int: Int], prints: [Int: JobFingerprints]),
                              journal: Journal) throws {
        let store = InMemoryJobStore()
        store.add(loaded.jobs)
        var report = loaded.report
        RepairPlanner.apply(store, rows: loaded.rows, to: &report)
        let good = report.pairs.allSatisfy { $0.outcome?.isGood ?? false } && report.errors.isEmpty
        try journal.finishRun(run, status: .complete, succeeded: good, report: report)
    }
}
