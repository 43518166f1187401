import DriftCoordinator
import DriftJobs
import DriftJournal
import DriftSchema
import Foundation

extension Run {
    /// How a run's work ended.
    struct Execution: Sendable {
        var outcome: CoordinatorServer.Outcome
        var disruptions = RunDisruptions()
    }

    /// Runs `body` with the settings' executor over `store` (workers bound and started, or this process's threads),
    /// then ends it: the endpoint and the workers are gone when it returns, whatever `body` did.
    ///
    /// - Parameter writes: the folder the jobs may write below; nil: they write nothing.
    func executing<T: Sendable>(
        _ store: JobStore, writes outputRoot: String?, watch: Watch,
        _ body: @Sendable (JobExecutor) async -> T
    ) async throws(RunError) -> (T, Execution) {
        switch work {
        case .threads(let threads):
            let executor = ThreadExecutor(threads: threads, store: store, onEvent: watch.events)
            return (await body(executor), Execution(outcome: .complete))
        case .workers(var dispatch):
            dispatch.maxAttempts = settings.configuration.maxAttempts
            let runtime = CoordinatorRuntime(
                settings: try dispatch.runtime(roots: settings.roots, outputRoot: outputRoot, logger: logger),
                logger: logger)
            do {
                try runtime.start(
                    store: store,
                    ready: { [logger] endpoint in
                        if dispatch.bind != nil { logger.notice("waiting for workers on \(endpoint)") }
                    }, onEvent: watch.events)
            } catch let error as RunError {
                throw error
            } catch {
                throw .dispatch("\(error)")
            }
            let value = await body(runtime)
            let result: CoordinatorRuntime.Result
            do {
                result = try await runtime.finish()
            } catch {
                throw .dispatch("\(error)")
            }
            return (value, Execution(outcome: result.outcome, disruptions: result.disruptions))
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
