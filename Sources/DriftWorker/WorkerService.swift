import DriftSupport
import DriftTransport
import Foundation
import ServiceLifecycle
import Synchronization

/// A worker's loop as a service: it runs on a thread of its own (libzmq polls and blocking job threads). Graceful
/// shutdown lets running jobs finish and says goodbye; cancellation returns at once.
public final class WorkerService: Service, Sendable {
    /// The loop, until `run` hands it to its thread, which alone uses it from then on.
    private let node: Mutex<WorkerNode?>
    private let parent: Int32?
    private let stop: StopEvent
    private let abort: StopEvent
    private let finished = Atomic<Int>(0)

    /// - Parameter parent: stop when this process is no longer the parent (a coordinator's local worker).
    public init(node: sending WorkerNode, parent: Int32? = nil) throws(TransportError) {
        self.node = Mutex(node)
        self.parent = parent
        stop = try StopEvent()
        abort = try StopEvent()
    }

    /// Jobs completed, once the loop has ended.
    public var completed: Int { finished.load(ordering: .acquiring) }

    public func run() async throws {
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                guard let node = node.withLock({ $0.take() }) else { preconditionFailure("a worker service runs once") }
                let count = try await OwnThread.run(name: "driftfix-worker", owning: node) {
                    [stop, abort, parent] node in
                    try node.run(stop: stop, abort: abort, parent: parent)
                    return node.completed
                }
                finished.store(count, ordering: .releasing)
            } onGracefulShutdown: { [stop] in
                stop.fire()
            }
        } onCancel: { [stop, abort] in
            stop.fire()
            abort.fire()
        }
    }
}
