import DriftTransport
import Synchronization

/// What happens outside the socket that the coordinator loop must act on, posted from any thread (the local worker
/// pool's exit handlers); the loop polls `descriptor` beside its socket, so it wakes at once.
public final class CoordinatorInbox: Sendable {
    public enum Input: Sendable, Equatable {
        /// A local worker process exited (`how`: "signal 9", "exit status 1").
        case workerExited(identity: String, how: String)
        /// The local worker pool cannot keep workers alive (they die before they connect): end the run.
        case poolFailed(String)
        /// How many of the run's workers are on their way: waiting in a scheduler's queue (Slurm) or starting. The
        /// run is not idle while any is; the count holds until the next post (a slow look at the queue is no gap).
        case workersOnTheirWay(Int)
        /// Jobs were added to the store (a run in rounds): hand them out now rather than at the next tick.
        case jobsAdded
    }

    private let inputs = Mutex<[Input]>([])
    private let wake: StopEvent

    public init() throws(TransportError) {
        wake = try StopEvent()
    }

    public func post(_ input: Input) {
        inputs.withLock { $0.append(input) }
        wake.fire()
    }

    /// Readable while inputs wait.
    var descriptor: Int32 { wake.descriptor }

    /// Everything posted so far, oldest first.
    func take() -> [Input] {
        wake.reset()
        return inputs.withLock { inputs in
            defer { inputs.removeAll() }
            return inputs
        }
    }
}
