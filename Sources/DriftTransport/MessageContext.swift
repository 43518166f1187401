internal import CZMQ
import Glibc
import Synchronization

/// A ZeroMQ context: one per process, shared by its sockets. libzmq documents contexts as thread-safe.
public final class MessageContext: @unchecked Sendable {  // zmq contexts are thread-safe (driftfix_zmq_ctx_new(3))
    let handle: UnsafeMutableRawPointer
    /// Whether a `ZapHandler` answers on this context: a CURVE server socket refuses to exist without one.
    let zapHandlerRunning = Mutex(false)

    public init() throws(TransportError) {
        try ZMQ.load()
        guard let handle = driftfix_zmq_ctx_new() else { throw ZMQ.error("zmq_ctx_new") }
        self.handle = handle
    }

    deinit {
        // Sockets set a short linger, so termination does not wait for unsent messages forever.
        while driftfix_zmq_ctx_term(handle) != 0 && driftfix_zmq_errno() == EINTR {}
    }
}

// Raw libzmq helpers: errno capture and retries live here.
enum ZMQ {
    /// Loads libzmq (once per process; it is not linked, see CZMQ): what a host without it says.
    static func load() throws(TransportError) {
        guard driftfix_zmq_load() == 0 else {
            throw TransportError(
                operation: "load libzmq", code: ELIBACC, text: String(cString: driftfix_zmq_load_error()))
        }
    }

    static func error(_ operation: String) -> TransportError {
        if driftfix_zmq_load() != 0 {
            return TransportError(
                operation: operation, code: ELIBACC, text: String(cString: driftfix_zmq_load_error()))
        }
        let code = driftfix_zmq_errno()
        return TransportError(operation: operation, code: code, text: String(cString: driftfix_zmq_strerror(code)))
    }
}
