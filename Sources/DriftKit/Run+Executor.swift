import DriftCoordinator
import DriftJobs
import DriftJournal
import DriftSchema
import DriftTrace
import Foundation
import Logging
import Synchronization

extension Run {
    /// How a run's work ended.
    struct Execution: Sendable {
        var outcome: CoordinatorServer.Outcome
        var disruptions = RunDisruptions()
        /// The jobs as they ended (the store went to the executor, which alone used it).
        var jobs: [JobRecord] = []
    }

    /// Runs `body` with the settings' executor over `store` (workers bound and started, or this process's threads),
    /// then ends it: the endpoint and the workers are gone when it returns, whatever `body` did.
    ///
    /// - Parameter writes: the folder the jobs may write below; nil: they write nothing.
    func executing<T: Sendable>(
        _ store: sending JobStore, writes outputRoot: String?, watch: Watch,
        _ body: @Sendable (JobExecutor) async -> T
    ) async throws(RunError) -> (T, Execution) {
        switch work {
        case .threads(let threads):
            let spans = watch.spans
            let traceparent: (@Sendable (Int) -> String?)? =
                Traces.isOn ? { @Sendable id in spans.parent(of: id) } : nil
            let executor = ThreadExecutor(
                threads: threads, store: store, traceparent: traceparent, onEvent: watch.events)
            let value = await body(executor)
            return (value, Execution(outcome: .complete, jobs: executor.jobs))
        case .workers(var dispatch):
            dispatch.maxAttempts = settings.configuration.maxAttempts
            var runtimeSettings = try dispatch.runtime(
                roots: settings.rootTexts, outputRoot: outputRoot, logger: logger)
            if Traces.isOn {
                let spans = watch.spans
                runtimeSettings.dispatch.traceparent = { spans.parent(of: $0) }
            }
            let runtime = CoordinatorRuntime(settings: runtimeSettings, logger: logger)
            // Started with its first jobs: a night with nothing to do binds nothing and starts no worker.
            let starting = RuntimeOnDemand(runtime: runtime, store: store, watch: watch, logger: logger) {
                [logger, bind = dispatch.bind] endpoint in
                if bind != nil { logger.notice("waiting for workers on \(endpoint)") }
            }
            let value = await body(starting)
            if let error = starting.failure { throw error }
            guard starting.started else { return (value, Execution(outcome: .complete, jobs: starting.jobs)) }
            let result: CoordinatorRuntime.Result
            do {
                result = try await runtime.finish()
            } catch {
                throw .dispatch("\(error)")
            }
            return (
                value, Execution(outcome: result.outcome, disruptions: result.disruptions, jobs: runtime.jobs)
            )
        }
    }

    /// Where this run's jobs run.
    var work: Work {
        settings.work
            ?? .workers(
                DispatchSettings(
                    configuration: settings.configuration, configurationPath: settings.configurationPath))
    }

    /// How a night ended in the journal, and what else went wrong, from how its work ended.
    func ending(_ execution: Execution) -> (RunStatus, RunProblem?) {
        switch execution.outcome {
        case .complete: return (.complete, nil)
        case .stopped:
            logger.warning("stopped before every job finished; the next run over these roots resumes")
            return (.stopped, nil)
        case .noWorkers: return (.noWorkers, nil)  // the runtime said it; the unfinished rows show it
        case .storeFailed(let reason): return (.storeFailed, .storeFailed(reason))
        case .workersFailing(let reason): return (.workersFailing, .workersFailing(reason))
        }
    }
}

/// A coordinator runtime started by the first jobs submitted to it; jobs submitted after it failed to start come back
/// as they were (the run then throws why).
private final class RuntimeOnDemand: JobExecutor, Sendable {
    private struct State {
        var started = false
        var failure: RunError?
    }

    private let runtime: CoordinatorRuntime
    private let watch: Watch
    private let logger: Logger
    private let ready: @Sendable (String) -> Void
    private let state = Mutex(State())
    /// The run's store, until the runtime takes it.
    private let store: Mutex<JobStore?>

    init(
        runtime: CoordinatorRuntime, store: sending JobStore, watch: Watch, logger: Logger,
        ready: @escaping @Sendable (String) -> Void
    ) {
        self.runtime = runtime
        self.watch = watch
        self.logger = logger
        self.ready = ready
        self.store = Mutex(store)
    }

    var started: Bool { state.withLock { $0.started } }
    /// The jobs as they stand: the runtime's, or the store's where nothing started it.
    var jobs: [JobRecord] { started ? runtime.jobs : store.withLock { $0?.all ?? [] } }
    var failure: RunError? { state.withLock { $0.failure } }

    func submit(_ jobs: [JobRecord]) async -> [JobRecord] {
        guard !jobs.isEmpty, startIfNeeded() else { return jobs }
        return await runtime.submit(jobs)
    }

    /// Submits come one at a time: the first starts the runtime, under the lock.
    private func startIfNeeded() -> Bool {
        state.withLock { state in
            guard !state.started else { return true }
            guard state.failure == nil, let store = store.withLock({ $0.take() }) else { return false }
            do {
                try runtime.start(store: store, ready: ready, onEvent: watch.events)
                state.started = true
            } catch let error as RunError {
                state.failure = error
            } catch {
                state.failure = .dispatch("\(error)")
            }
            return state.started
        }
    }
}
