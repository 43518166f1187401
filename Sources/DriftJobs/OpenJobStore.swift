import DriftCore
import DriftWire
import Foundation
import Synchronization

/// A job store that jobs can be added to from another thread while a run goes on, and that keeps the run open until
/// `close()`: one run, over one set of workers, in rounds that each depend on the last (a sound night's prints, then
/// its clips). It owns the run's own store (in memory, or the journal), given to it at its start and used by nothing
/// else, and takes one lock around each call, so the run's loop and the caller never see each other's half-done state.
public final class OpenJobStore: JobStore, Sendable {
    private struct State {
        let store: JobStore
        var open = true
    }

    private let state: Mutex<State>

    public init(_ store: sending JobStore = InMemoryJobStore()) { state = Mutex(State(store: store)) }

    /// No more jobs will come: the run ends once the ones added are finished.
    public func close() { state.withLock { $0.open = false } }

    /// Adds those of `jobs` it does not hold yet (a run's planned jobs are in its store from the start); returns the
    /// ids of those already finished (done before, or failed by a durable store that could not record them).
    public func adding(_ jobs: [JobRecord]) -> [Int] {
        state.withLock {
            let store = $0.store
            store.add(jobs.filter { store.job($0.id) == nil })
            return jobs.filter { store.job($0.id)?.isFinished ?? true }.map(\.id)
        }
    }

    public func add(_ jobs: [JobRecord]) { state.withLock { $0.store.add(jobs) } }
    public func nextQueued(excluding: Set<Int>) -> JobRecord? {
        state.withLock { $0.store.nextQueued(excluding: excluding) }
    }
    public func job(_ id: Int) -> JobRecord? { state.withLock { $0.store.job(id) } }
    public func lease(_ id: Int, to worker: String, at time: Double) -> Int? {
        state.withLock { $0.store.lease(id, to: worker, at: time) }
    }
    public func complete(_ id: Int, with result: JobResult) { state.withLock { $0.store.complete(id, with: result) } }
    public func fail(_ id: Int, _ failure: JobFailure) { state.withLock { $0.store.fail(id, failure) } }
    public func requeue(_ id: Int, reason: String) { state.withLock { $0.store.requeue(id, reason: reason) } }
    public var all: [JobRecord] { state.withLock { $0.store.all } }
    /// One more while open, so that the run waits for the next round rather than ending between two.
    public var unfinishedCount: Int { state.withLock { $0.store.unfinishedCount + ($0.open ? 1 : 0) } }
    public var failure: String? { state.withLock { $0.store.failure } }
}
