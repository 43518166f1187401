import DriftCoordinator
import DriftJobs
import DriftSupport
import DriftWire
import DriftWorker
import Foundation
import Synchronization

/// Runs jobs on this process's threads, through the same job runner as a worker (paths confined and pinned, outputs
/// staged and verified) and the same job store transitions as a dispatched run, so a run on threads is recorded,
/// resumed and reported like one on workers. Each job's start and end are reported as dispatch events.
package final class ThreadExecutor: JobExecutor, Sendable {
    private let threads: Int
    /// The run's store, given at the start and used by nothing else, one call at a time.
    private let store: Mutex<JobStore>
    private let onEvent: @Sendable (DispatchEvent) -> Void
    private let identity = "local-threads-\(getpid())"
    /// Each job's trace context (the night's span for it), as a worker would receive it.
    private let traceparent: (@Sendable (Int) -> String?)?

    public init(
        threads: Int, store: sending JobStore = InMemoryJobStore(), traceparent: (@Sendable (Int) -> String?)? = nil,
        onEvent: @escaping @Sendable (DispatchEvent) -> Void
    ) {
        self.threads = max(1, threads)
        self.store = Mutex(store)
        self.traceparent = traceparent
        self.onEvent = onEvent
    }

    public func submit(_ jobs: [JobRecord]) async -> [JobRecord] {
        guard !jobs.isEmpty else { return jobs }
        // Jobs the store holds already (a night's planned jobs) are run as they are.
        let queued = store.withLock { store -> [JobRecord] in
            store.add(jobs.filter { store.job($0.id) == nil })
            return jobs.filter { store.job($0.id)?.isFinished == false }
        }
        let next = Atomic<Int>(0)
        // A thread of its own: the jobs block on files and DSP, never the cooperative pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                DispatchQueue.concurrentPerform(iterations: min(threads, queued.count)) { _ in
                    while true {
                        let index = next.add(1, ordering: .relaxed).oldValue
                        guard index < queued.count else { return }
                        run(queued[index].id)
                    }
                }
                done.resume()
            }
            thread.name = "driftfix-threads"
            thread.start()
        }
        return store.withLock { store in jobs.map { store.job($0.id) ?? $0 } }
    }

    /// The jobs so far, as they stand.
    public var jobs: [JobRecord] { store.withLock { $0.all } }

    private func run(_ id: Int) {
        guard
            let spec = store.withLock({ store -> JobSpec? in
                guard let attempt = store.lease(id, to: identity, at: 0) else { return nil }
                var spec = store.job(id)?.spec
                spec?.attempt = attempt
                spec?.traceparent = traceparent?(id)
                return spec
            })
        else { return }
        onEvent(.jobStarted(id: id, worker: identity, attempt: spec.attempt))
        let result = JobRunner.run(spec, worker: identity)
        let finished = store.withLock { store -> JobRecord? in
            // No other worker to retry on here: a failure is final.
            if Dispatcher.isDone(result) {
                store.complete(id, with: result)
            } else if case .failed(let failure) = result.outcome {
                store.fail(id, failure)
            }
            return store.job(id)
        }
        if let finished { onEvent(.jobFinished(finished)) }
    }
}
