import DriftTransport
import Foundation
import ServiceLifecycle

/// A worker's loop as a service: it runs on a thread of its own (libzmq polls and blocking job threads). Graceful
/// shutdown lets running jobs finish and says goodbye; cancellation returns at once.
public final class WorkerService: Service, @unchecked Sendable {  // `node` is used only by the loop thread
    private let node: WorkerNode
    private let parent: Int32?
    private let stop: StopEvent
    private let abort: StopEvent

    /// - Parameter parent: stop when this process is no longer the parent (a coordinator's local worker).
    public init(node: WorkerNode, parent: Int32? = nil) throws(TransportError) {
        self.node = node
        self.parent = parent
        stop = try StopEvent()
        abort = try StopEvent()
    }

    /// Jobs completed so far.
    public var completed: Int { node.completed }

    public func run() async throws {
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                    let thread = Thread { [self] in
                        do {
                            try node.run(stop: stop, abort: abort, parent: parent)
                            continuation.resume()
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                    thread.name = "driftfix-worker"
                    thread.start()
                }
            } onGracefulShutdown: { [stop] in
                stop.fire()
            }
        } onCancel: { [stop, abort] in
            stop.fire()
            abort.fire()
        }
    }
}
