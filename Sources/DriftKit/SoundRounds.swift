import DriftAV
import DriftCore
import DriftJobs
import DriftJournal
import DriftRepair
import DriftSchema
import DriftSoundPairing
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
final class SoundRounds: SoundWork, Sendable {
    struct Context {
        var roots: [String]
        /// Where clips are cut; nil: listed only (nothing written, nothing kept but prints).
        var outputRoot: String?
        /// The journal that keeps prints (and, with an output, the night's run and outputs).
        var journal: Journal?
        /// The journal's run of this night, with an output.
        var run: Int64?
        /// The run's key on the wire (a result of another run is never credited to this one).
        var runKey: Int64 = Int64.random(in: 1...Int64.max)
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
    private let verifiedBefore: [String: JobRecord]
    /// Each clip's fingerprints as `earlier` made them, for its job.
    private let asked = Mutex<[String: JobFingerprints?]>([:])
    /// Files' fingerprints, each read once a night.
    private let files = Mutex<[String: String]>([:])

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
        self.verifiedBefore = earlier
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
                guard let print = file(path) else { continue }
                let fingerprint = JobFingerprints(recording: print, reference: "", plan: "print")
                fingerprints[path] = fingerprint
                guard !context.full else { continue }
                do {
                    if let stored = try journal.soundPrint(path: path, fingerprint: fingerprint.recording) {
                        // An empty print is a file kept as having no sound.
                        let print = stored.print.isEmpty ? nil : SoundPrint(bytes: stored.print)
                        if print != nil || stored.print.isEmpty {
                            printed[index] = .printed(
                                FilePrint(print: print, timecode: stored.timecode, started: stored.started), kept: true)
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
        return printed.map { $0 ?? .failed("not printed") }
    }

    func clips(_ tasks: [ClipTask]) async -> [[SoundPairingReport.Match]] {
        var rows = [[SoundPairingReport.Match]?](repeating: nil, count: tasks.count)
        var jobs: [JobRecord] = []
        var taskOfJob: [Int: Int] = [:]
        let asked = self.asked.withLock { $0 }
        for (index, task) in tasks.enumerated() {
            let writes = task.places.contains { $0.output != nil }
            var job = job(input: task.clipText, work: .clipSync(task), writes: writes, audioSeconds: task.clipSeconds)
            // What the job's finding rests on, as `earlier` fingerprinted it (kept only for a night that writes).
            job.fingerprints = writes ? asked[task.clipText] ?? nil : nil
            taskOfJob[job.id] = index
            jobs.append(job)
        }
        for job in await round(.clips, jobs) {
            guard let index = taskOfJob[job.id] else { continue }
            rows[index] = Self.rows(job, task: tasks[index])
        }
        return rows.map { $0 ?? [] }
    }

    func earlier(clip: String, group: [String], settings: String) -> [SoundPairingReport.Match]? {
        guard context.outputRoot != nil, context.journal != nil else { return nil }
        let fingerprints = fingerprint(clip: clip, group: group, settings: settings)
        asked.withLock { $0[clip] = fingerprints }
        guard !context.full, let fingerprints else { return nil }
        if let job = verifiedBefore[clip], job.fingerprints == fingerprints, case .done(let result) = job.state,
            case .heard(let sound) = result.outcome, let rows = sound.matches
        {
            logger.info("\(clip): synced before the night was stopped; not again")
            return rows
        }
        switch IncrementalCheck.standing(previous[clip], prints: fingerprints, stillHolds: AudioInput.stillHolds) {
        case .success(let record):
            guard let rows = record.matches else { return nil }
            return rows.map { row in
                var row = row
                if row.output != nil { row.unchanged = true }
                return row
            }
        case .failure(let stale):
            if previous[clip] != nil { logger.info("\(clip): settling again: \(stale.reason)") }
            return nil
        }
    }

    /// The clip's fingerprint, with every recording of its group and the deciding settings; the files' fingerprints
    /// are taken once a night (a recording is part of every clip's).
    private func fingerprint(clip: String, group: [String], settings: String) -> JobFingerprints? {
        guard let clipPrint = file(clip) else { return nil }
        var recordings: [String] = []
        for path in group.sorted() {
            guard let print = file(path) else { return nil }
            recordings.append("\(path)=\(print)")
        }
        return JobFingerprints(
            recording: clipPrint, reference: JobFingerprints.digest(recordings.joined(separator: "\n")),
            plan: JobFingerprints.digest(settings))
    }

    /// `path`'s `FileFingerprint`, read once a night.
    private func file(_ path: String) -> String? {
        if let known = files.withLock({ $0[path] }) { return known }
        guard let made = FileFingerprint.of(path: path) else { return nil }
        files.withLock { $0[path] = made }
        return made
    }

    private func job(input: String, work: JobWork, writes: Bool, audioSeconds: Double) -> JobRecord {
        JobRecord(
            id: nextID.add(1, ordering: .relaxed).oldValue, input: input, work: work,
            outputRoot: writes ? context.outputRoot : nil, inputRoots: context.roots, audioSeconds: audioSeconds,
            run: context.runKey)
    }

    /// One round's jobs through the executor, seen by the observer as a round of its own.
    private func round(_ round: RunRound, _ jobs: [JobRecord]) async -> [JobRecord] {
        guard !jobs.isEmpty else { return [] }
        logger.notice("\(jobs.count) \(round.rawValue) on \(executor is ThreadExecutor ? "threads" : "workers")")
        watch.planned(jobs, round: round)
        return await executor.submit(jobs)
    }

    /// A print job's file, or why it has none.
    private static func printed(_ job: JobRecord) -> PrintedFile {
        switch job.state {
        case .done(let result):
            switch result.outcome {
            case .heard(let sound):
                var file = FilePrint(print: nil, timecode: sound.timecode, started: sound.started)
                if let bytes = sound.print {
                    guard let print = SoundPrint(bytes: bytes) else {
                        return .failed("\(job.input): the worker's print is not one this version reads")
                    }
                    file.print = print
                }
                return .printed(file, kept: false)
            case .failed(let failure): return .failed(failure.message)
            case .repaired, .decided:
                return .failed("\(job.input): the worker answered a print with another job's result")
            }
        case .failed(let failure): return .failed(failure.message)
        case .queued, .leased:
            return .failed("\(job.input): not printed: the night ended first (no worker alive, or a stop)")
        }
    }

    /// A clip job's rows; a job that never ran to its end fails each place with the cause (the clip is not unheard).
    private static func rows(_ job: JobRecord, task: ClipTask) -> [SoundPairingReport.Match] {
        let error: String
        switch job.state {
        case .done(let result):
            switch result.outcome {
            case .heard(let sound): return sound.matches ?? []
            case .failed(let failure): error = failure.message
            case .repaired, .decided: error = "\(task.clipText): the worker answered a clip with another job's result"
            }
        case .failed(let failure): error = failure.message
        case .queued, .leased:
            error = "\(task.clipText): not synced: the night ended first (no worker alive, or a stop)"
        }
        return task.places.map { place in
            SoundPairingReport.Match(
                reference: task.clipText, recording: place.recordingText,
                recordingStartSeconds: place.candidate.startSeconds, recordingEndSeconds: nil,
                coverage: place.candidate.coverage, clarity: place.candidate.clarity, content: nil, status: .failed,
                note: error)
        }
    }
}
