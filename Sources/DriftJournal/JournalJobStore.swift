import DriftCore
import DriftJobs
import DriftPlanning
import DriftSchema
import DriftSupport
import DriftWire
import Foundation

/// The durable job store: every transition is committed to the journal before the dispatcher acts on it (a job
/// is recorded leased before it is sent, done only once its verified result arrived), then applied to the
/// in-memory index the dispatcher reads. If the journal cannot be written (disk full), `failure` says why and the
/// coordinator stops; the journal then still describes a state from which a resumed run is correct (at worst a
/// job runs again, replacing its output atomically).
public final class JournalJobStore: JobStore {
    private let memory = InMemoryJobStore()
    private let journal: Journal
    public let run: Int64
    public private(set) var failure: String?

    /// - Parameter jobs: the run's jobs as stored already (`Journal.storePlan`, `Journal.loadPlan`).
    public init(journal: Journal, run: Int64, jobs: [JobRecord]) {
        self.journal = journal
        self.run = run
        memory.add(jobs)
    }

    /// Jobs added while the run goes on (a sound night's rounds) are recorded first.
    public func add(_ jobs: [JobRecord]) {
        guard record({ () throws(JournalError) in try journal.addJobs(run: run, jobs: jobs) }) else {
            // Not recorded: they are not run either (the run is stopping on the journal's failure).
            memory.add(
                jobs.map { job in
                    var failed = job
                    failed.state = .failed(
                        JobFailure(message: failure ?? "not recorded in the journal", kind: .other))
                    return failed
                })
            return
        }
        memory.add(jobs)
    }
    public func nextQueued(excluding: Set<Int>) -> JobRecord? { memory.nextQueued(excluding: excluding) }
    public func job(_ id: Int) -> JobRecord? { memory.job(id) }
    public var all: [JobRecord] { memory.all }
    public var unfinishedCount: Int { memory.unfinishedCount }

    public func lease(_ id: Int, to worker: String, at time: Double) -> Int? {
        let attempt = (memory.job(id)?.attempts ?? 0) + 1
        // The journal keeps the wall-clock time (the dispatcher's own clock starts with its run): a later night's
        // sweep compares it with the modification times of other hosts' temporary files.
        let now = Date().timeIntervalSince1970
        guard
            record({ () throws(JournalError) in
                try journal.recordLease(run: run, job: id, worker: worker, attempt: attempt, at: now)
            })
        else { return nil }
        Failpoint.hit("lease")
        return memory.lease(id, to: worker, at: time)
    }

    public func complete(_ id: Int, with result: JobResult) {
        guard let job = memory.job(id) else { return }
        let kept = job.fingerprints.flatMap { Self.kept(job, result: result, prints: $0, run: run) }
        record { () throws(JournalError) in
            try journal.recordDone(run: run, job: id, result: result, output: kept?.output, print: kept?.print)
        }
        Failpoint.hit("result")
        Failpoint.hit("result-\(job.work.kind.rawValue)")
        memory.complete(id, with: result)
    }

    /// What a finished job made that the next nights can use: a written output (a content job may skip, refuse, or
    /// fail its proof; a clip's sync may find no sure place), or a file's print.
    private static func kept(_ job: JobRecord, result: JobResult, prints: JobFingerprints, run: Int64)
        -> (output: OutputRecord?, print: KeptPrint?)?
    {
        guard result.outcome.columns.succeeded else { return nil }
        func output(_ path: String, frames: Int64?, matches: [SoundPairingReport.Match]? = nil) -> OutputRecord? {
            guard let frames else { return nil }
            let seen = FileStatus.of(path)
            return OutputRecord(
                recording: job.input, prints: prints, output: path, outputFrames: frames, outputSize: seen?.size,
                outputModified: seen?.modified, checksum: result.outcome.columns.output?.checksum,
                worker: result.worker, run: run,
                matches: matches,
                finding: result.outcome.columns.content.map {
                    ContentFinding(
                        measurement: $0.measurement, measuredBy: $0.measuredBy, operations: $0.operations,
                        note: $0.reason)
                })
        }
        switch job.work {
        case .header(let repair):
            return (output(repair.output, frames: result.outcome.columns.output?.frames ?? repair.targetFrames), nil)
        case .content(let content):
            guard let path = content.output, result.outcome.columns.content?.decision == .repaired else { return nil }
            return (output(path, frames: result.outcome.columns.output?.frames ?? content.targetFrames), nil)
        case .clipSync:
            let matches = result.outcome.columns.sound?.matches ?? []
            if let used = matches.first(where: { $0.status == .used && $0.outputText != nil }),
                let path = used.outputText
            {
                return (output(path, frames: used.outputFrames, matches: matches), nil)
            }
            // Nothing written and nothing failed (no place sure enough): the finding stands while nothing it rests on
            // changes; a failure is tried again.
            guard !matches.contains(where: { $0.status == .failed }) else { return nil }
            return (
                OutputRecord(
                    recording: job.input, prints: prints, output: "", outputFrames: 0, outputSize: nil,
                    outputModified: nil, checksum: nil, worker: result.worker, run: run, matches: matches), nil
            )
        case .soundPrint:
            // A file without sound is kept as an empty print, so that it is not opened again either.
            return (
                nil,
                KeptPrint(
                    path: job.input, fingerprint: prints.recording,
                    print: result.outcome.columns.sound?.print ?? Data(),
                    timecode: result.outcome.columns.sound?.timecode, started: result.outcome.columns.sound?.started)
            )
        case .noop:
            return nil
        }
    }

    public func fail(_ id: Int, _ failure: JobFailure) {
        record { () throws(JournalError) in
            try journal.recordFailed(run: run, job: id, error: failure.message, kind: failure.kind)
        }
        memory.fail(id, failure)
    }

    public func requeue(_ id: Int, reason: String) {
        record { () throws(JournalError) in try journal.recordRequeued(run: run, job: id, reason: reason) }
        memory.requeue(id, reason: reason)
    }

    /// After the first failed write nothing more is attempted: the run is stopping, and a full disk would only
    /// produce the same error for every job.
    @discardableResult
    private func record(_ write: () throws(JournalError) -> Void) -> Bool {
        guard failure == nil else { return false }
        do {
            try write()
            return true
        } catch {
            failure = error.description
            return false
        }
    }
}

/// Size and modification time (ns) of a file, as this machine sees it.
enum FileStatus {
    static func of(_ path: String) -> (size: Int64, modified: Int64)? {
        var info = stat()
        guard PathText.withCString(path, { stat($0, &info) }) == 0 else { return nil }
        return (Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
