import DriftJobs

/// Where a run's jobs run: on workers over ZeroMQ (`CoordinatorRuntime`), or on this process's threads
/// (`ThreadExecutor`). Either way every transition goes through the run's job store, and `submit` returns the jobs
/// once each has finished (or as they stand when the run ended first).
package protocol JobExecutor: AnyObject, Sendable {
    func submit(_ jobs: [JobRecord]) async -> [JobRecord]
}
