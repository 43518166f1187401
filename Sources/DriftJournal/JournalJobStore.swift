import DriftCore
import DriftJobs
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
    private let prints: [Int: JobFingerprints]
    public private(set) var failure: String?

    public init(journal: Journal, run: Int64, jobs: [JobRecord], prints: [Int: JobFingerprints]) {
        self.journal = journal
        self.run = run
        self.prints = prints
        memory.add(jobs)
    }

    /// Jobs come from the stored plan (`Journal.storePlan`), never added later.
    public func add(_ jobs: [JobRecord]) { memory.add(jobs) }
    public func nextQueued(excluding: Set<Int>) -> JobRecord? { memory.nextQueued(excluding: excluding) }
    public func job(_ id: Int) -> JobRecord? { memory.job(id) }
    public var all: [JobRecord] { memory.all }
    public var unfinishedCount: Int { memory.unfinishedCount }

    public func lease(_ id: Int, to worker: String, at time: Double) -> Int? {
        let attempt = (memory.job(id)?.attempts ?? 0) + 1
        guard
            record({ () throws(JournalError) in
                try journal.recordLease(run: run, job: id, worker: worker, attempt: attempt, at: time)
            })
        else { return nil }
        Failpoint.hit("lease")
        return memory.lease(id, to: worker, at: time)
    }

    public func complete(_ id: Int, with result: JobResult) {
        guard let job = memory.job(id) else { return }
        // Only a written output is current for the next nights (a content job may skip, refuse, or fail its proof).
        let wroteOutput = result.succeeded && (result.content.map { $0.decision == .repaired } ?? true)
        let output = prints[id].flatMap { prints in wroteOutput ? prints : nil }.map { prints in
            let seen = FileStatus.of(job.output)
            return OutputRecord(
                recording: job.input, prints: prints, output: job.output,
                outputFrames: result.outputFrames ?? job.spec.targetFrames, outputSize: seen?.size,
                outputModified: seen?.modified, checksum: result.checksum, worker: result.worker, run: run)
        }
        record { () throws(JournalError) in try journal.recordDone(run: run, job: id, result: result, output: output) }
        Failpoint.hit("result")
        memory.complete(id, with: result)
    }

    public func fail(_ id: Int, error: String, kind: FailureKind) {
        record { () throws(JournalError) in try journal.recordFailed(run: run, job: id, error: error, kind: kind) }
        memory.fail(id, error: error, kind: kind)
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
        guard stat(path, &info) == 0 else { return nil }
        return (Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
