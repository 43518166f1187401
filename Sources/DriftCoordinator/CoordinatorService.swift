import DriftSupport
import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The coordinator's socket loop as a service: it runs on a thread of its own (libzmq polls block), ends when every
/// job is finished, no worker is left, or - on graceful shutdown - once running jobs have drained; then it tells
/// every worker to stop. Graceful shutdown and cancellation are events the loop wakes on, not flags it samples.
public final class CoordinatorService: Service, Sendable {
    /// The loop, until `run` hands it to its thread, which alone uses it from then on.
    private let server: Mutex<CoordinatorServer?>
    private let stop: StopEvent
    private let abort: StopEvent
    private let onEvent: @Sendable (DispatchEvent) -> Void
    private let farewellSeconds: Double
    private let result = Mutex<Ended?>(nil)

    /// How the loop ended, and what it counted on the way (read once it has ended, from its own thread's answer).
    public struct Ended: Sendable {
        public var outcome: CoordinatorServer.Outcome
        /// CURVE handshakes refused.
        public var handshakeFailures: Int
        public var workersLost: Int
        public var jobsRequeued: Int
    }

    /// - Parameter onEvent: every dispatch event, on the loop's thread.
    public init(
        server: sending CoordinatorServer, farewellSeconds: Double = 2,
        onEvent: @escaping @Sendable (DispatchEvent) -> Void = { _ in }
    ) throws(TransportError) {
        self.server = Mutex(server)
        self.farewellSeconds = farewellSeconds
        self.onEvent = onEvent
        stop = try StopEvent()
        abort = try StopEvent()
    }

    /// How the loop ended; nil until it has.
    public var outcome: CoordinatorServer.Outcome? { ended?.outcome }
    /// How the loop ended, with its counts; nil until it has.
    public var ended: Ended? { result.withLock { $0 } }

    public func run() async throws {
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await runLoop()
            } onGracefulShutdown: { [stop] in
                stop.fire()
            }
        } onCancel: { [stop, abort] in
            stop.fire()
            abort.fire()
        }
    }

    private func runLoop() async throws {
        guard let server = server.withLock({ $0.take() }) else {
            preconditionFailure("a coordinator service runs once")
        }
        let ended = try await OwnThread.run(name: "driftfix-coordinator", owning: server) {
            [stop, abort, onEvent, farewellSeconds] server in
            let outcome = try server.run(stop: stop, abort: abort, onEvent: onEvent)
            try server.farewell(seconds: abort.isFired ? 0 : farewellSeconds)
            return Ended(
                outcome: outcome, handshakeFailures: server.handshakeFailures,
                workersLost: server.dispatcher.workersLost, jobsRequeued: server.dispatcher.jobsRequeued)
        }
        result.withLock { $0 = ended }
    }
}
