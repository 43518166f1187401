import DriftAudio
import DriftCoordinator
import Logging
import Synchronization

/// Removes the temporary file a lost worker left for its job's output, at once rather than at the night's closing
/// sweep. A writer on this machine that still holds its file's lock (hung: the pool is about to end it) is not touched
/// until its process has exited.
final class LeftoverCleaner: Sendable {
    private let logger: Logger
    /// Leases whose local writer still held its lock when they were given up, by worker identity.
    private let waiting = Mutex<[String: [LostLease]]>([:])

    init(logger: Logger) {
        self.logger = logger
    }

    /// A lease ended with its worker.
    func lost(_ lease: LostLease) {
        guard let pid = lease.pid, remove(lease) else { return }
        waiting.withLock { $0[lease.worker, default: []].append(lease) }
        // It may have exited between the check and the wait list: then `exited` has already come and gone.
        if !ProcessLiveness.isRunning(pid) { exited(lease.worker) }
    }

    /// A local worker's process is gone.
    func exited(_ identity: String) {
        let leases = waiting.withLock { $0.removeValue(forKey: identity) } ?? []
        for lease in leases { remove(lease) }
    }

    /// Removes what the lease's writer left that it no longer holds; returns whether a file was kept (still locked).
    @discardableResult
    private func remove(_ lease: LostLease) -> Bool {
        guard let host = lease.host, let pid = lease.pid else { return false }
        var kept = false
        for output in lease.outputs {
            let swept = StaleTemporaryFiles.removeLeftovers(beside: output, writerHost: host, writerPID: pid)
            for path in swept.removed {
                logger.notice("removed \(path), left by worker \(lease.worker) (\(lease.how))")
            }
            for (path, reason) in swept.failed {
                logger.warning("\(path): cannot remove this leftover temporary file (\(reason))")
            }
            kept = kept || !swept.kept.isEmpty
        }
        return kept
    }
}
