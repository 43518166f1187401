internal import CZMQ
import Synchronization

/// A ZeroMQ context: one per process, shared by its sockets. libzmq documents contexts as thread-safe.
public final class MessageContext: @unchecked Sendable {  // zmq contexts are thread-safe (zmq_ctx_new(3))
    let handle: UnsafeMutableRawPointer
    /// Whether a `ZapHandler` answers on this context: a CURVE server socket refuses to exist without one.
    let zapHandlerRunning = Mutex(false)

    public init() throws(TransportError) {
        guard let handle = zmq_ctx_new() else { throw ZMQ.error("zmq_ctx_new") }
        self.handle = handle
    }

    deinit {
        // Sockets set a short linger, so termination does not wait for unsent messages forever.
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}

// Raw libzmq helpers: errno capture and retries live here.
enum ZMQ {
    static func error(_ operation: String) -> TransportError {
        let code = zmq_errno()
        return TransportError(operation: operation, code: code, text: String(cString: zmq_strerror(code)))
    }
}
