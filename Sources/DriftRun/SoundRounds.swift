import DriftAV
import DriftCore
import DriftJobs
import DriftJournal
import DriftSchema
import DriftSync
import DriftWire
import Foundation
import Logging
import Synchronization

/// The file work of a sound night, as jobs: each print a job, each clip's sync a job, run by the night's executor
/// (workers, or this process's threads) in two rounds, and everything an earlier night made and that still stands
/// taken instead of made again:
/// - a file's print, kept in the journal by the file's fingerprint (`--full` prints again);
/// - a clip's rows and output, when the clip, the recordings that heard it, the night's settings and the engine are
///   unchanged (its job's fingerprints) and the output still verifies: reported `unchanged`, not cut again;
/// - on a resumed night, each clip the killed night verified: reported `repaired`, as that night's.
///
/// With a journal and an output the night is a journal run: every job is recorded before it is acted upon.
final class SoundRounds: SoundWork, @unchecked Sendable {  // `previous` and `earlier` are read-only after init
    struct Context {
        var roots: [String]
        /// Where clips are cut; nil: listed only (nothing written, nothing kept but prints).
        var outputRoot: String?
        /// The journal that keeps prints (and, with an output, the night's run and outputs).
        var journal: Journal?
        /// The journal's run of this night, with an output.
        var run: Int64?
        /// The run's key on the wire (a result of another run is never credited to this one).
        var runKey: Int64?
        /// Print everything and cut every clip again.
        var full = false
    }

    private let executor: JobExecutor
    private let context: Context
    private let watch: Watch
    private let logger: Logger
    private let nextID: Atomic<Int>
    /// Each clip's last verified output (with its rows), by clip.
    private let previous: [String: OutputRecord]
    /// The clips a resumed night verified already, by clip.
    private let earlier: [String: JobRecord]

    /// - Parameter resumed: the jobs of the night being resumed, as the journal holds them (those done are kept).
    init(
        executor: JobExecutor, context: Context, resumed: [JobRecord], watch: Watch, logger: Logger
    ) {
        self.executor = executor
        self.context = context
        self.watch = watch
        self.logger = logger
        nextID = Atomic((resumed.map(\.id).max() ?? 0) + 1)
        var earlier: [String: JobRecord] = [:]
        for job in resumed where job.isFinished {
            if case .clipSync = job.work { earlier[job.input] = job }
        }
        self.earlier = earlier
        if context.outputRoot != nil, !context.full, let journal = context.journal {
            previous = (try? journal.outputs()) ?? [:]
        } else {
            previous = [:]
        }
    }

    func prints(_ paths: [String]) async -> [PrintedFile] {
        var printed = [PrintedFile?](repeating: nil, count: paths.count)
        var fingerprints: [String: JobFingerprints] = [:]
        if let journal = context.journal {
            for (index, path) in paths.enumerated() {
                guard let fingerprint = JobFingerprints(input: path, others: [], description: "print") else { continue }
                fingerprints[path] = fingerprint
                guard !context.full else { continue }
                do {
                    if let stored = try journal.soundPrint(path: path, fingerprint: fingerprint.recording) {
                        // An empty print is a file kept as having no sound.
                        let print = stored.print.isEmpty ? nil : SoundPrint(bytes: stored.print)
                        if print != nil || stored.print.isEmpty {
                            printed[index] = PrintedFile(print: print, timecode: stored.timecode, kept: true)
                        }
                    }
                } catch {
                    logger.warning("\(error)")
                }
            }
        }
        let missing = paths.indices.filter { printed[$0] == nil }
        var jobs: [JobRecord] = []
        for index in missing {
            var job = job(input: paths[index], work: .soundPrint, writes: false, audioSeconds: 0)
            job.fingerprints = fingerprints[paths[index]]
            jobs.append(job)
        }
        let done = await round(.prints, jobs)
        for (index, job) in zip(missing, done) {
            printed[index] = Self.printed(job)
        }
        return printed.map { $0 ?? PrintedFile(error: "not printed") }
    }

    func clips(_ tasks: [ClipTask]) async -> [[SoundPairingReport.Match]] {
        var rows = [[SoundPairingReport.Match]?](repeating: nil, count: tasks.count)
        var jobs: [JobRecord] = []
        var taskOfJob: [Int: Int] = [:]
        for (index, task) in tasks.enumerated() {
            let writes = task.places.contains { $0.output != nil }
            let fingerprints =
                writes
                ? JobFingerprints(
                    input: task.clip, others: task.places.map(\.recording), description: Self.description(task))
                : nil
            if writes, !context.full, let fingerprints {
                if let kept = kept(task, fingerprints: fingerprints) {
                    rows[index] = kept
                    continue
                }
            }
            var job = job(input: task.clip, work: .clipSync(task), writes: writes, audioSeconds: task.clipSeconds)
            job.fingerprints = fingerprints
            taskOfJob[job.id] = index
            jobs.append(job)
        }
        for job in await round(.clips, jobs) {
            guard let index = taskOfJob[job.id] else { continue }
            rows[index] = Self.rows(job, task: tasks[index])
        }
        return rows.map { $0 ?? [] }
    }

    /// A clip's rows from an earlier night, where they still stand: verified by the night being resumed, or an
    /// output of an earlier night that still verifies.
    private func kept(_ task: ClipTask, fingerprints: JobFingerprints) -> [SoundPairingReport.Match]? {
        if let job = earlier[task.clip], job.fingerprints == fingerprints, case .done(let result) = job.state,
            result.succeeded, let rows = result.sound?.matches
        {
            logger.info("\(task.clip): verified before the night was stopped; not cut again")
            return rows
        }
        switch IncrementalCheck.standing(previous[task.clip], prints: fingerprints, stillHolds: AudioInput.stillHolds) {
        case .success(let record):
            guard let rows = record.matches else { return nil }
            return rows.map { row in
                var row = row
                if row.output != nil { row.unchanged = true }
                return row
            }
        case .failure(let stale):
            if previous[task.clip] != nil { logger.info("\(task.clip): cutting again: \(stale.reason)") }
            return nil
        }
    }

    private func job(input: String, work: JobWork, writes: Bool, audioSeconds: Double) -> JobRecord {
        JobRecord(
            id: nextID.add(1, ordering: .relaxed).oldValue, input: input, work: work,
            outputRoot: writes ? context.outputRoot : nil, inputRoots: context.roots, audioSeconds: audioSeconds,
            run: context.runKey ?? Int64.random(in: 1...Int64.max))
    }

    /// One round's jobs through the executor, seen by the observer as a round of its own.
    private func round(_ round: RunRound, _ jobs: [JobRecord]) async -> [JobRecord] {
        guard !jobs.isEmpty else { return [] }
        logger.notice("\(jobs.count) \(round.rawValue) on \(executor is ThreadExecutor ? "threads" : "workers")")
        watch.planned(jobs, round: round)
        return await executor.submit(jobs)
    }

    /// What a night compares to decide whether a clip's output still stands: the task in full (its places as found,
    /// their outputs and engines, the thresholds, quality and mux); the files are compared by their fingerprints.
    static func description(_ task: ClipTask) -> String {
        let places = task.places.map { place in
            "\(place.recording) at \(String(format: "%.4f", place.candidate.startSeconds)) to \(place.output ?? "-") by \(place.engine.rawValue)"
        }
        return
            "clip \(task.clip); \(places.joined(separator: "; ")); confidence \(task.minimumConfidence), residual \(task.residualLimitMs) ms, \(task.quality.rawValue)\(task.mux ? ", mux" : "")"
    }

    /// A print job's file, or why it has none.
    private static func printed(_ job: JobRecord) -> PrintedFile {
        switch job.state {
        case .done(let result) where result.succeeded:
            guard let bytes = result.sound?.print else { return PrintedFile(timecode: result.sound?.timecode) }
            guard let print = SoundPrint(bytes: bytes) else {
                return PrintedFile(error: "the worker's print is not one this version reads")
            }
            return PrintedFile(print: print, timecode: result.sound?.timecode)
        case .done(let result): return PrintedFile(error: result.error ?? "failed")
        case .failed(let error): return PrintedFile(error: error)
        case .queued, .leased:
            return PrintedFile(error: "\(job.input): not printed: the night ended first (no worker alive, or a stop)")
        }
    }

    /// A clip job's rows; a job that never ran to its end fails each place with the cause (the clip is not unheard).
    private static func rows(_ job: JobRecord, task: ClipTask) -> [SoundPairingReport.Match] {
        let error: String
        switch job.state {
        case .done(let result) where result.succeeded: return result.sound?.matches ?? []
        case .done(let result): error = result.error ?? "failed"
        case .failed(let message): error = message
        case .queued, .leased: error = "\(task.clip): not synced: the night ended first (no worker alive, or a stop)"
        }
        return task.places.map { place in
            SoundPairingReport.Match(
                reference: task.clip, recording: place.recording,
                recordingStartSeconds: place.candidate.startSeconds, recordingEndSeconds: nil,
                coverage: place.candidate.coverage, clarity: place.candidate.clarity, content: nil, status: .failed,
                note: error)
        }
    }
}
