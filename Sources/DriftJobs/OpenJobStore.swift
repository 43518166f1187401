import DriftCore
import DriftWire
import Foundation

/// A job store that jobs can be added to from another thread while a run goes on, and that keeps the run open until
/// `close()`: one run, over one set of workers, in rounds that each depend on the last (a sound night's prints, then
/// its clips). It wraps the run's own store (in memory, or the journal) and takes one lock around each call, so the
/// run's loop and the caller never see each other's half-done state.
// @unchecked: it wraps a store that is not Sendable; every call is under `lock`.
public final class OpenJobStore: JobStore, @unchecked Sendable {
    private let lock = NSLock()
    private let store: JobStore
    private var open = true

    public init(_ store: JobStore = InMemoryJobStore()) { self.store = store }

    /// No more jobs will come: the run ends once the ones added are finished.
    public func close() { lock.withLock { open = false } }

    /// Adds those of `jobs` it does not hold yet (a run's planned jobs are in its store from the start); returns the
    /// ids of those already finished (done before, or failed by a durable store that could not record them).
    public func adding(_ jobs: [JobRecord]) -> [Int] {
        lock.withLock {
            store.add(jobs.filter { store.job($0.id) == nil })
            return jobs.filter { store.job($0.id)?.isFinished ?? true }.map(\.id)
        }
    }

    public func add(_ jobs: [JobRecord]) { lock.withLock { store.add(jobs) } }
    public func nextQueued(excluding: Set<Int>) -> JobRecord? {
        lock.withLock { store.nextQueued(excluding: excluding) }
    }
    public func job(_ id: Int) -> JobRecord? { lock.withLock { store.job(id) } }
    public func lease(_ id: Int, to worker: String, at time: Double) -> Int? {
        lock.withLock { store.lease(id, to: worker, at: time) }
    }
    public func complete(_ id: Int, with result: JobResult) { lock.withLock { store.complete(id, with: result) } }
    public func fail(_ id: Int, error: String, kind: FailureKind) {
        lock.withLock { store.fail(id, error: error, kind: kind) }
    }
    public func requeue(_ id: Int, reason: String) { lock.withLock { store.requeue(id, reason: reason) } }
    public var all: [JobRecord] { lock.withLock { store.all } }
    /// One more while open, so that the run waits for the next round rather than ending between two.
    public var unfinishedCount: Int { lock.withLock { store.unfinishedCount + (open ? 1 : 0) } }
    public var failure: String? { lock.withLock { store.failure } }
}
