import DriftCore
import DriftSupport
import DriftTransport
import DriftWire
import Foundation
import Logging

/// The coordinator's socket loop: a ROUTER socket owned by the calling thread, polled in short slices, feeding
/// the dispatcher and sending what it decides. Malformed, oversized, wrong-version and unknown-peer messages are
/// logged (rate-limited) and dropped; they never stop or stall the loop.
public final class CoordinatorServer {
    public struct Limits: Sendable {
        /// Give up when jobs remain and no worker has been alive for this long (seconds).
        public var idleTimeout: Double = 60
        /// After a stop request, wait at most this long for running jobs (seconds).
        public var drainTimeout: Double = 30
        public init() {}
    }

    public let dispatcher: Dispatcher
    public let endpoint: String
    private let socket: MessageSocket
    private let logger: Logger
    private let limits: Limits
    private let start = ContinuousClock.now
    private var dropLog = RateLimitedLog(perWindow: 10, window: 10)
    private var monitor: HandshakeMonitor?
    /// Handshake failures are rate-limited per kind (a few fixed descriptions), so one noisy client cannot hide
    /// another kind of failure.
    private var handshakeLogs: [String: RateLimitedLog] = [:]

    /// Who may send messages (CURVE): checked per message, so a key removed from the allowlist cuts off a worker
    /// that is already connected. Nil without CURVE.
    private let admission: AdmissionPolicy?
    private var revokeLog = RateLimitedLog(perWindow: 5, window: 10)

    /// Worker exits and pool failures, posted from other threads.
    public let inbox: CoordinatorInbox

    /// Failed security handshakes so far (plaintext clients, wrong server keys, refused keys).
    public var handshakeFailures: Int { monitor?.failures ?? 0 }

    /// Binds the policy's endpoint (`ipc://...`, `tcp://127.0.0.1:5555`, `tcp://0.0.0.0:5555`) as it says: a
    /// network endpoint only with CURVE or plaintext acknowledged, which the policy itself guarantees.
    /// With CURVE, a `ZapHandler` must already run on `context`.
    public init(
        context: MessageContext, transport: TransportPolicy, dispatcher: Dispatcher, limits: Limits = Limits(),
        admission: AdmissionPolicy? = nil, logger: Logger
    ) throws {
        precondition(transport.role == .bind, "a coordinator binds its endpoint")
        self.dispatcher = dispatcher
        self.limits = limits
        self.logger = logger
        self.admission = admission
        inbox = try CoordinatorInbox()
        let security = transport.socketSecurity
        socket = try MessageSocket(
            context: context, kind: .router, maxMessageBytes: WireCodec.maxMessageBytes, security: security)
        if security != .none { monitor = try socket.monitorHandshakes(name: "coordinator-\(getpid())") }
        try socket.bind(transport.endpoint)
        self.endpoint = socket.lastEndpoint
    }

    /// Seconds since the server started: the dispatcher's clock.
    public var now: Double {
        (ContinuousClock.now - start).seconds
    }

    /// How the run ended.
    public enum Outcome: Sendable, Equatable {
        case complete
        case stopped
        case noWorkers
        /// The job store failed (journal disk full, ...): stopped dispatching; the message says why.
        case storeFailed(String)
        /// The local workers die before they connect, one after the other: the message says how.
        case workersFailing(String)
    }

    /// Runs until every job is finished, `stop` fires (then drains running jobs, bounded), `abort` fires (at once),
    /// or no worker has been alive for `idleTimeout`. `onEvent` sees every dispatch event (progress, logs), on this
    /// thread.
    public func run(stop: StopEvent, abort: StopEvent? = nil, onEvent: (DispatchEvent) -> Void) throws -> Outcome {
        var lastAlive = now
        var stopRequestedAt: Double?
        while true {
            // The tick below runs at least every 50 ms (heartbeats, lease expiry); a stop or a posted input wakes the
            // poll at once (a stop, once seen, is no longer polled: its pipe stays readable).
            let (readable, fired) = try socket.poll(
                milliseconds: 50,
                descriptors: [inbox.descriptor] + (stopRequestedAt == nil ? [stop.descriptor] : []))
            let stopping = fired.count > 1 && fired[1]
            if readable {
                // Read everything waiting, so a flood of garbage cannot starve the clock below.
                var budget = 10_000
                while budget > 0, let frames = try socket.receive() {
                    budget -= 1
                    handle(frames)
                }
            }
            // After the socket: a worker that sent its result and then died is credited with the result first.
            if fired.first == true, let failure = takeInbox() { return .workersFailing(failure) }
            send(dispatcher.tick(at: now))
            for event in dispatcher.drainEvents() { onEvent(event) }
            for failure in monitor?.drain() ?? [] {
                if let line = handshakeLogs[failure, default: RateLimitedLog(perWindow: 3, window: 30)].admit(
                    failure, at: now)
                {
                    logger.warning("\(line)")
                }
            }
            // Workers waiting in a scheduler's queue, or starting, are on their way: no idle timeout while they are.
            if dispatcher.liveWorkers > 0 || workersOnTheirWay > 0 { lastAlive = now }

            if dispatcher.isComplete { return .complete }
            if let failure = dispatcher.store.failure {
                logger.error("\(failure)")
                return .storeFailed(failure)
            }
            if stopRequestedAt == nil && stopping {
                stopRequestedAt = now
                dispatcher.stopDispatching()
                logger.notice(
                    "stop requested: no new jobs; waiting up to \(Int(limits.drainTimeout)) s for \(dispatcher.leasedJobs) running"
                )
            }
            if let since = stopRequestedAt,
                dispatcher.leasedJobs == 0 || now - since > limits.drainTimeout || abort?.isFired == true
            {
                return .stopped
            }
            if dispatcher.liveWorkers == 0 && now - lastAlive > limits.idleTimeout { return .noWorkers }
        }
    }

    /// Acts on the posted inputs; returns why the run must end, if it must.
    private func takeInbox() -> String? {
        for input in inbox.take() {
            switch input {
            case .workerExited(let identity, let how):
                send(dispatcher.died(identity, how: how, at: now))
            case .poolFailed(let reason):
                return reason  // the run's outcome carries it to the one line that reports it
            case .workersOnTheirWay(let count):
                workersOnTheirWay = count
            case .jobsAdded:
                break  // the tick that follows hands them out
            }
        }
        return nil
    }

    /// How many workers a pool last said were on their way (queued or starting).
    private var workersOnTheirWay = 0

    /// Tells every worker still connected to finish and exit.
    public func sendShutdown(to peers: [String]) {
        send(peers.map { ($0, .shutdown) })
    }

    /// After the run: tells every known worker to exit, then for up to `seconds` answers any peer that speaks
    /// (a worker that connected just as the run ended, or one that was reconnecting) with a shutdown too, so no
    /// worker is left waiting for a coordinator that is gone.
    public func farewell(seconds: Double) throws {
        var waiting = Set(dispatcher.workerNames)
        sendShutdown(to: Array(waiting))
        let deadline = now + seconds
        while now < deadline {
            let (readable, _) = try socket.poll(milliseconds: 50)
            // libzmq's monitor sends block when unread: keep reading them here too.
            for failure in monitor?.drain() ?? [] { logger.debug("\(failure)") }
            guard readable else {
                if waiting.isEmpty { return }
                continue
            }
            while let frames = try socket.receive() {
                guard frames.count == 2, !frames[0].isEmpty else { continue }
                let peer = printable(frames[0])
                if case .goodbye? = try? WireCodec.decode(frames[1]) {
                    waiting.remove(peer)
                } else {
                    send([(peer, .shutdown)])
                }
            }
        }
    }

    private func handle(_ frames: [[UInt8]]) {
        guard frames.count == 2, let identity = frames.first, !identity.isEmpty else {
            drop(peer: frames.first.map(printable) ?? "?", "expected [identity, message], got \(frames.count) frames")
            return
        }
        let peer = printable(identity)
        if let admission, let key = socket.lastUserId {
            switch admission.decision(for: key, at: now) {
            case .admitted, .pending:
                break
            case .revoked:
                if let line = revokeLog.admit(
                    "worker \(peer): its key \(key) is no longer in the allowlist; its jobs go back to the queue",
                    at: now)
                {
                    logger.warning("\(line)")
                }
                send(dispatcher.revoke(peer, reason: "its key is no longer in the allowlist", at: now))
                return
            }
        }
        let message: WireMessage
        do {
            message = try WireCodec.decode(frames[1])
        } catch {
            drop(peer: peer, error.description)
            return
        }
        send(dispatcher.received(message, from: peer, at: now))
    }

    private func send(_ messages: [(String, WireMessage)]) {
        for (peer, message) in messages {
            do {
                if try !socket.send([Array(peer.utf8), WireCodec.encode(message)]) {
                    drop(peer: peer, "could not deliver (peer gone or queue full)")
                }
            } catch {
                logger.error("send to \(peer): \(error)")
            }
        }
    }

    private func drop(peer: String, _ reason: String) {
        if let line = dropLog.admit("dropped message from \(peer): \(reason)", at: now) { logger.warning("\(line)") }
    }

    private func printable(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        return text.allSatisfy({ $0.isASCII && !$0.isNewline })
            ? text : bytes.prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
