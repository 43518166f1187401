import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The coordinator's socket loop as a service: it runs on a thread of its own (libzmq polls block), ends when every
/// job is finished, no worker is left, or - on graceful shutdown - once running jobs have drained; then it tells
/// every worker to stop. Graceful shutdown and cancellation are events the loop wakes on, not flags it samples.
public final class CoordinatorService: Service, @unchecked Sendable {  // `server` is used only by the loop thread
    private let server: CoordinatorServer
    private let stop: StopEvent
    private let abort: StopEvent
    private let onEvent: @Sendable (DispatchEvent) -> Void
    private let farewellSeconds: Double
    private let result = Mutex<CoordinatorServer.Outcome?>(nil)

    /// - Parameter onEvent: every dispatch event, on the loop's thread.
    public init(
        server: CoordinatorServer, farewellSeconds: Double = 2,
        onEvent: @escaping @Sendable (DispatchEvent) -> Void = { _ in }
    ) throws(TransportError) {
        self.server = server
        self.farewellSeconds = farewellSeconds
        self.onEvent = onEvent
        stop = try StopEvent()
        abort = try StopEvent()
    }

    /// How the loop ended; nil until it has.
    public var outcome: CoordinatorServer.Outcome? { result.withLock { $0 } }

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
        let outcome: CoordinatorServer.Outcome = try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { [self] in
                do {
                    let outcome = try server.run(stop: stop, abort: abort, onEvent: onEvent)
                    try server.farewell(seconds: abort.isFired ? 0 : farewellSeconds)
                    continuation.resume(returning: outcome)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "driftfix-coordinator"
            thread.start()
        }
        result.withLock { $0 = outcome }
    }
}
