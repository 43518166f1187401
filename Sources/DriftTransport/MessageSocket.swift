internal import CZMQ
import Glibc

/// The two socket kinds driftfix uses: the coordinator's ROUTER, the workers' DEALERs.
public enum SocketKind: Sendable {
    case router, dealer
    /// The ZAP handler's end of `inproc://zeromq.zap.01`, and the reader of a socket monitor.
    case rep, pair

    var raw: Int32 {
        switch self {
        case .router: return ZMQ_ROUTER
        case .dealer: return ZMQ_DEALER
        case .rep: return ZMQ_REP
        case .pair: return ZMQ_PAIR
        }
    }
}

/// How a socket authenticates and encrypts.
public enum SocketSecurity: Sendable, Equatable {
    /// Plain ZeroMQ (NULL mechanism): for ipc:// and loopback only.
    case none
    /// A CURVE server with this key pair; every client is checked by the process's `ZapHandler`.
    case curveServer(CurveKeyPair)
    /// A CURVE client with its own key pair, trusting the server whose public key is `serverKey`.
    case curveClient(CurveKeyPair, serverKey: String)
}

/// A ZeroMQ socket owned by one thread. Messages are multipart: a list of frames.
///
/// Linger is short (pending messages are dropped 100 ms after close) and incoming messages are capped at
/// `maxMessageBytes` by libzmq itself (a larger one disconnects the peer), so a hostile peer cannot exhaust memory.
public final class MessageSocket {
    private let handle: UnsafeMutableRawPointer
    private let message: UnsafeMutablePointer<zmq_msg_t>
    private var closed = false
    /// Only a CURVE server's messages carry a ZAP user id worth looking up.
    private let readsUserId: Bool
    public let kind: SocketKind
    // The context must outlive its sockets: zmq_ctx_term blocks until every socket is closed.
    private let context: MessageContext
    /// At most this many frames per multipart message are read; the rest is drained and dropped.
    public static let maxFrames = 8

    public init(context: MessageContext, kind: SocketKind, maxMessageBytes: Int, security: SocketSecurity = .none)
        throws(TransportError)
    {
        guard let handle = driftfix_zmq_socket(context.handle, kind.raw) else { throw ZMQ.error("zmq_socket") }
        self.handle = handle
        self.kind = kind
        self.context = context
        message = .allocate(capacity: 1)
        if case .curveServer = security { readsUserId = true } else { readsUserId = false }
        try setOption(ZMQ_LINGER, Int32(100), "ZMQ_LINGER")
        try setOption(ZMQ_MAXMSGSIZE, Int64(maxMessageBytes), "ZMQ_MAXMSGSIZE")
        if kind == .router {
            // Sending to a peer that is gone fails with EHOSTUNREACH instead of vanishing silently.
            try setOption(ZMQ_ROUTER_MANDATORY, Int32(1), "ZMQ_ROUTER_MANDATORY")
            // A worker that reconnects (a fresh socket after a silence, Paranoid Pirate) keeps its identity: the new
            // connection takes the identity over from the old one the router may not have seen close yet. Without
            // this the router refuses the newcomer, and a worker on a loaded host could wait out whole nights.
            try setOption(ZMQ_ROUTER_HANDOVER, Int32(1), "ZMQ_ROUTER_HANDOVER")
        }
        // A peer must finish its handshake within 5 s: a silent or garbage-speaking connection cannot hold a
        // half-open session for long.
        try setOption(ZMQ_HANDSHAKE_IVL, Int32(5000), "ZMQ_HANDSHAKE_IVL")
        switch security {
        case .none:
            break
        case .curveServer(let pair):
            // libzmq admits every CURVE client that knows the server key when no ZAP handler answers: fail closed.
            guard context.zapHandlerRunning.withLock({ $0 }) else {
                throw TransportError(
                    operation: "CURVE server", code: 0,
                    text: "no ZAP handler runs on this context, so every client would be admitted")
            }
            try setOption(ZMQ_CURVE_SERVER, Int32(1), "ZMQ_CURVE_SERVER")
            try setBytes(ZMQ_CURVE_SECRETKEY, Array(pair.secretKey.utf8), "ZMQ_CURVE_SECRETKEY")
            try setBytes(ZMQ_ZAP_DOMAIN, Array(ZapHandler.domain.utf8), "ZMQ_ZAP_DOMAIN")
        case .curveClient(let pair, let serverKey):
            try setBytes(ZMQ_CURVE_SERVERKEY, Array(serverKey.utf8), "ZMQ_CURVE_SERVERKEY")
            try setBytes(ZMQ_CURVE_PUBLICKEY, Array(pair.publicKey.utf8), "ZMQ_CURVE_PUBLICKEY")
            try setBytes(ZMQ_CURVE_SECRETKEY, Array(pair.secretKey.utf8), "ZMQ_CURVE_SECRETKEY")
        }
    }

    /// A byte-string option (keys as Z85 text, the ZAP domain, the routing id).
    private func setBytes(_ option: Int32, _ bytes: [UInt8], _ name: String) throws(TransportError) {
        let status = bytes.withUnsafeBytes { raw in driftfix_zmq_setsockopt(handle, option, raw.baseAddress, raw.count)
        }
        guard status == 0 else { throw ZMQ.error("driftfix_zmq_setsockopt(\(name))") }
    }

    /// Closes the socket now (on its owning thread) rather than whenever the last reference goes: a context cannot
    /// terminate while a socket on it is open.
    public func close() {
        guard !closed else { return }
        closed = true
        driftfix_zmq_close(handle)
    }

    deinit {
        close()
        message.deallocate()
    }

    private func setOption<T>(_ option: Int32, _ value: T, _ name: String) throws(TransportError) {
        var copy = value
        let status = withUnsafeBytes(of: &copy) { raw in
            driftfix_zmq_setsockopt(handle, option, raw.baseAddress, raw.count)
        }
        guard status == 0 else { throw ZMQ.error("driftfix_zmq_setsockopt(\(name))") }
    }

    /// Starts reporting failed security handshakes on this socket (call before bind): a PAIR socket reads the
    /// events libzmq's monitor publishes on an inproc endpoint.
    public func monitorHandshakes(name: String) throws(TransportError) -> HandshakeMonitor {
        let address = "inproc://driftfix-monitor-\(name)"
        guard driftfix_zmq_socket_monitor(handle, address, HandshakeMonitor.events) == 0 else {
            throw ZMQ.error("zmq_socket_monitor")
        }
        let reader = try MessageSocket(context: context, kind: .pair, maxMessageBytes: 4096)
        try reader.connect(address)
        return HandshakeMonitor(reader: reader)
    }

    /// Names this socket to a ROUTER peer (set before connecting).
    public func setIdentity(_ identity: [UInt8]) throws(TransportError) {
        try setBytes(ZMQ_ROUTING_ID, identity, "ZMQ_ROUTING_ID")
    }

    public func bind(_ endpoint: String) throws(TransportError) {
        guard driftfix_zmq_bind(handle, endpoint) == 0 else { throw ZMQ.error("bind \(endpoint)") }
    }

    public func connect(_ endpoint: String) throws(TransportError) {
        guard driftfix_zmq_connect(handle, endpoint) == 0 else { throw ZMQ.error("connect \(endpoint)") }
    }

    /// The endpoint actually bound (resolves `tcp://127.0.0.1:*` to its port).
    public var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        _ = driftfix_zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sends all frames without blocking. Returns false when the peer cannot take it now (HWM) or is unknown.
    @discardableResult
    public func send(_ frames: [[UInt8]]) throws(TransportError) -> Bool {
        for (index, frame) in frames.enumerated() {
            let flags = index < frames.count - 1 ? ZMQ_SNDMORE | ZMQ_DONTWAIT : ZMQ_DONTWAIT
            while true {
                let sent = frame.withUnsafeBytes { raw in driftfix_zmq_send(handle, raw.baseAddress, raw.count, flags) }
                if sent >= 0 { break }
                let code = driftfix_zmq_errno()
                if code == EINTR { continue }
                if code == EAGAIN || code == EHOSTUNREACH { return false }
                throw ZMQ.error("zmq_send")
            }
        }
        return true
    }

    /// The ZAP user id of the last message received (on a CURVE server: the sender's public key, Z85); nil on
    /// sockets without authentication.
    public private(set) var lastUserId: String?

    /// The next whole message, or nil when none is waiting.
    public func receive() throws(TransportError) -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        while true {
            guard driftfix_zmq_msg_init(message) == 0 else { throw ZMQ.error("zmq_msg_init") }
            defer { driftfix_zmq_msg_close(message) }
            let flags: Int32 = frames.isEmpty ? ZMQ_DONTWAIT : 0
            let size = driftfix_zmq_msg_recv(message, handle, flags)
            if size < 0 {
                let code = driftfix_zmq_errno()
                if code == EAGAIN && frames.isEmpty { return nil }
                if code == EINTR { continue }
                throw ZMQ.error("zmq_msg_recv")
            }
            // A ROUTER's identity frame carries no metadata: take it from the first frame that does.
            if frames.isEmpty { lastUserId = nil }
            if readsUserId && lastUserId == nil {
                lastUserId = driftfix_zmq_msg_gets(message, "User-Id").map { String(cString: $0) }
            }
            if frames.count < MessageSocket.maxFrames, let data = driftfix_zmq_msg_data(message) {
                frames.append(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
            }
            guard driftfix_zmq_msg_more(message) == 1 else { return frames }
        }
    }

    /// Waits up to `milliseconds` (-1: forever) for this socket to be readable, or for `descriptor` (a wake-up or
    /// stop pipe) to be.
    /// - Returns: (socket readable, descriptor readable).
    public func poll(milliseconds: Int, descriptor: Int32? = nil) throws(TransportError) -> (Bool, Bool) {
        let (socket, descriptors) = try poll(milliseconds: milliseconds, descriptors: descriptor.map { [$0] } ?? [])
        return (socket, descriptors.first ?? false)
    }

    /// Waits up to `milliseconds` (-1: forever) for this socket or any of `descriptors` to be readable.
    /// - Returns: whether the socket is readable, and which descriptors are.
    public func poll(milliseconds: Int, descriptors: [Int32]) throws(TransportError) -> (Bool, [Bool]) {
        var items = [zmq_pollitem_t(socket: handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)]
        for descriptor in descriptors {
            items.append(zmq_pollitem_t(socket: nil, fd: descriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        }
        while true {
            let status = driftfix_zmq_poll(&items, Int32(items.count), milliseconds)
            if status >= 0 { break }
            if driftfix_zmq_errno() == EINTR { return (false, descriptors.map { _ in false }) }
            throw ZMQ.error("zmq_poll")
        }
        let readable = items.map { $0.revents & Int16(ZMQ_POLLIN) != 0 }
        return (readable[0], Array(readable.dropFirst()))
    }
}

@available(*, unavailable, message: "a ZeroMQ socket belongs to one thread")
extension MessageSocket: Sendable {}
