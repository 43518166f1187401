import DriftCore
import DriftSupport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The ZeroMQ authentication handler (ZAP, RFC 27) for CURVE servers in this process: libzmq asks it, over
/// `inproc://zeromq.zap.01`, whether to admit each connecting peer, and it answers from an `AdmissionPolicy`.
///
/// Without a ZAP handler libzmq admits every CURVE client that knows the server's public key - so a CURVE server
/// socket refuses to be made on a context where no handler runs, and this handler refuses everything that is not
/// CURVE with an allowed key. It runs on its own thread with its own REP socket and answers every request (a REP
/// socket that owes a reply would stop reading); decisions are counted and logged (rate-limited: a peer retrying a
/// bad key cannot flood the log).
public final class ZapHandler: Service, Sendable {
    public static let domain = "driftfix"

    public struct Counts: Sendable, Equatable {
        public var admitted = 0
        public var refused = 0
    }

    /// What the handler's thread shares with the handle: the thread holds this, not the handler, so dropping the
    /// handler stops the thread.
    private final class Shared: Sendable {
        let counts = Mutex(Counts())
        let stop: StopEvent
        let finished: StopEvent

        init() throws(TransportError) {
            stop = try StopEvent()
            finished = try StopEvent()
        }
    }

    private let shared: Shared
    private let context: MessageContext
    /// The policy it answers from (shared with the coordinator's socket loop).
    public let policy: AdmissionPolicy

    /// Binds the ZAP endpoint on `context` and starts answering from `policy`.
    public init(context: MessageContext, policy: AdmissionPolicy, logger: Logger) throws(TransportError) {
        self.context = context
        self.policy = policy
        shared = try Shared()
        // Bound here, before any CURVE socket can bind; from then on the socket belongs to the handler's thread.
        let socket = try MessageSocket(context: context, kind: .rep, maxMessageBytes: 65_536)
        try socket.bind("inproc://zeromq.zap.01")
        let handover = Handover(value: (socket, policy, shared))
        let thread = Thread {
            let (socket, policy, shared) = handover.value
            Self.serve(socket: socket, policy: policy, shared: shared, logger: logger)
            socket.close()
            shared.finished.fire()
        }
        thread.name = "driftfix-zap"
        thread.start()
        context.zapHandlerRunning.withLock { $0 = true }
    }

    /// As a service: answers until the group shuts down (it stops last, after the socket it authenticates for).
    public func run() async throws {
        try? await gracefulShutdown()
        stop()
    }

    /// Decisions so far.
    public var decisions: Counts { shared.counts.withLock { $0 } }

    /// Stops the handler and waits for its thread (call before the context goes away; idempotent).
    public func stop() {
        shared.stop.fire()
        context.zapHandlerRunning.withLock { $0 = false }
        _ = shared.finished.wait(seconds: .infinity)
    }

    deinit { stop() }

    private static func serve(socket: MessageSocket, policy: AdmissionPolicy, shared: Shared, logger: Logger) {
        var log = RateLimitedLog(perWindow: 10, window: 10)
        let start = ContinuousClock.now
        while true {
            // A request (version, request id, domain, address, routing id, mechanism, credentials...), or the stop.
            guard let (readable, stopping) = try? socket.poll(milliseconds: -1, descriptor: shared.stop.descriptor)
            else { continue }
            if stopping { return }
            guard readable, let received = try? socket.receive() else { continue }
            let frames = received
            let (admitted, key, reason) =
                frames.count >= 6
                ? decide(frames, policy: policy)
                : (false, nil, "malformed ZAP request (\(frames.count) frames)")
            shared.counts.withLock { counts in
                if admitted { counts.admitted += 1 } else { counts.refused += 1 }
            }
            let address = frames.count > 3 ? String(decoding: frames[3], as: UTF8.self) : "?"
            let now = (ContinuousClock.now - start).seconds
            if admitted {
                logger.info("admitted CURVE key \(key ?? "?") from \(address)")
            } else if let line = log.admit("refused a connection from \(address): \(reason)", at: now) {
                logger.warning("\(line)")
            }
            // Always answer: a REP socket that owes a reply never reads again, and every later handshake would hang.
            let status = admitted ? "200" : frames.count >= 6 ? "400" : "500"
            _ = try? socket.send([
                Array("1.0".utf8), frames.count > 1 ? frames[1] : [], Array(status.utf8),
                Array((admitted ? "OK" : reason).utf8),
                Array((key ?? "").utf8), [],
            ])
        }
    }

    private static func decide(_ frames: [[UInt8]], policy: AdmissionPolicy) -> (Bool, String?, String) {
        guard String(decoding: frames[0], as: UTF8.self) == "1.0" else { return (false, nil, "unknown ZAP version") }
        let domain = String(decoding: frames[2], as: UTF8.self)
        guard domain == Self.domain else { return (false, nil, "unexpected ZAP domain '\(domain)'") }
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        guard mechanism == "CURVE" else { return (false, nil, "mechanism \(mechanism), not CURVE") }
        guard frames.count >= 7, let key = CurveKeyPair.encode(frames[6]) else { return (false, nil, "no CURVE key") }
        guard policy.admitsHandshake(key) else {
            return (false, key, "CURVE key \(key) is not in the allowlist \(policy.path)")
        }
        return (true, key, "OK")
    }
}
