internal import CZMQ
import Glibc

/// The two socket kinds driftfix uses: the coordinator's ROUTER, the workers' DEALERs.
public enum SocketKind: Sendable {
    case router, dealer

    var raw: Int32 {
        switch self {
        case .router: return ZMQ_ROUTER
        case .dealer: return ZMQ_DEALER
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
    public let kind: SocketKind
    // The context must outlive its sockets: zmq_ctx_term blocks until every socket is closed.
    private let context: MessageContext
    /// At most this many frames per multipart message are read; the rest is drained and dropped.
    public static let maxFrames = 8

    public init(context: MessageContext, kind: SocketKind, maxMessageBytes: Int, security: SocketSecurity = .none) throws(TransportError) {
        guard let handle = zmq_socket(context.handle, kind.raw) else { throw ZMQ.error("zmq_socket") }
        self.handle = handle
        self.kind = kind
        self.context = context
        message = .allocate(capacity: 1)
        try setOption(ZMQ_LINGER, Int32(100), "ZMQ_LINGER")
        try setOption(ZMQ_MAXMSGSIZE, Int64(maxMessageBytes), "ZMQ_MAXMSGSIZE")
        if kind == .router {
            // Sending to a peer that is gone fails with EHOSTUNREACH instead of vanishing silently.
            try setOption(ZMQ_ROUTER_MANDATORY, Int32(1), "ZMQ_ROUTER_MANDATORY")
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
                throw TransportError(operation: "CURVE server", code: 0,
                                     text: "no ZAP handler runs on this context, so every client would be admitted")
            }
            try setOption(ZMQ_CURVE_SERVER, Int32(1), "ZMQ_CURVE_SERVER")
            try setText(ZMQ_CURVE_SECRETKEY, pair.secretKey, "ZMQ_CURVE_SECRETKEY")
            try setText(ZMQ_ZAP_DOMAIN, ZapHandler.domain, "ZMQ_ZAP_DOMAIN")
        case .curveClient(let pair, let serverKey):
            try setText(ZMQ_CURVE_SERVERKEY, serverKey, "ZMQ_CURVE_SERVERKEY")
            try setText(ZMQ_CURVE_PUBLICKEY, pair.publicKey, "ZMQ_CURVE_PUBLICKEY")
            try setText(ZMQ_CURVE_SECRETKEY, pair.secretKey, "ZMQ_CURVE_SECRETKEY")
        }
    }

    private func setText(_ option: Int32, _ text: String, _ name: String) throws(TransportError) {
        let status = text.withCString { zmq_setsockopt(handle, option, $0, strlen($0)) }
        guard status == 0 else { throw ZMQ.error("zmq_setsockopt(\(name))") }
    }

    deinit {
        zmq_close(handle)
        message.deallocate()
    }

    private func setOption<T>(_ option: Int32, _ value: T, _ name: String) throws(TransportError) {
        var copy = value
        let status = withUnsafeBytes(of: &copy) { raw in
            zmq_setsockopt(handle, option, raw.baseAddress, raw.count)
        }
        guard status == 0 else { throw ZMQ.error("zmq_setsockopt(\(name))") }
    }

    /// Starts reporting failed security handshakes on this socket (call before bind).
    public func monitorHandshakes(name: String) throws(TransportError) -> HandshakeMonitor {
        try HandshakeMonitor(socket: handle, context: context, name: name)
    }

    /// Names this socket to a ROUTER peer (set before connecting).
    public func setIdentity(_ identity: [UInt8]) throws(TransportError) {
        let status = identity.withUnsafeBytes { raw in zmq_setsockopt(handle, ZMQ_ROUTING_ID, raw.baseAddress, raw.count) }
        guard status == 0 else { throw ZMQ.error("zmq_setsockopt(ZMQ_ROUTING_ID)") }
    }

    public func bind(_ endpoint: String) throws(TransportError) {
        guard zmq_bind(handle, endpoint) == 0 else { throw ZMQ.error("bind \(endpoint)") }
    }

    public func connect(_ endpoint: String) throws(TransportError) {
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQ.error("connect \(endpoint)") }
    }

    /// The endpoint actually bound (resolves `tcp://127.0.0.1:*` to its port).
    public var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        _ = zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sends all frames without blocking. Returns false when the peer cannot take it now (HWM) or is unknown.
    @discardableResult
    public func send(_ frames: [[UInt8]]) throws(TransportError) -> Bool {
        for (index, frame) in frames.enumerated() {
            let flags = index < frames.count - 1 ? ZMQ_SNDMORE | ZMQ_DONTWAIT : ZMQ_DONTWAIT
            while true {
                let sent = frame.withUnsafeBytes { raw in zmq_send(handle, raw.baseAddress, raw.count, flags) }
                if sent >= 0 { break }
                let code = zmq_errno()
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
            guard zmq_msg_init(message) == 0 else { throw ZMQ.error("zmq_msg_init") }
            defer { zmq_msg_close(message) }
            let flags: Int32 = frames.isEmpty ? ZMQ_DONTWAIT : 0
            let size = zmq_msg_recv(message, handle, flags)
            if size < 0 {
                let code = zmq_errno()
                if code == EAGAIN && frames.isEmpty { return nil }
                if code == EINTR { continue }
                throw ZMQ.error("zmq_msg_recv")
            }
            // A ROUTER's identity frame carries no metadata: take it from the first frame that does.
            if frames.isEmpty { lastUserId = nil }
            if lastUserId == nil { lastUserId = zmq_msg_gets(message, "User-Id").map { String(cString: $0) } }
            if frames.count < MessageSocket.maxFrames, let data = zmq_msg_data(message) {
                frames.append(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
            }
            guard zmq_msg_more(message) == 1 else { return frames }
        }
    }

    /// Waits up to `milliseconds` for this socket to be readable, or for `descriptor` (a wake-up pipe) to be.
    /// - Returns: (socket readable, descriptor readable).
    public func poll(milliseconds: Int, descriptor: Int32? = nil) throws(TransportError) -> (Bool, Bool) {
        var items = [zmq_pollitem_t(socket: handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)]
        if let descriptor { items.append(zmq_pollitem_t(socket: nil, fd: descriptor, events: Int16(ZMQ_POLLIN), revents: 0)) }
        while true {
            let status = zmq_poll(&items, Int32(items.count), milliseconds)
            if status >= 0 { break }
            if zmq_errno() == EINTR { return (false, false) }
            throw ZMQ.error("zmq_poll")
        }
        return (items[0].revents & Int16(ZMQ_POLLIN) != 0, items.count > 1 && items[1].revents & Int16(ZMQ_POLLIN) != 0)
    }
}

@available(*, unavailable, message: "a ZeroMQ socket belongs to one thread")
extension MessageSocket: Sendable {}
