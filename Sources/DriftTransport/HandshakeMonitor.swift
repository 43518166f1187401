internal import CZMQ
import Glibc

/// Failed security handshakes on a socket, from libzmq's socket monitor: a plaintext client on a CURVE endpoint or
/// a client holding the wrong server key (keys the ZAP handler refuses are logged and counted by the handler).
/// libzmq drops such peers silently; this makes them visible to the operator (and to tests). Owned by the thread that owns the watched socket.
public final class HandshakeMonitor {
    private let pair: UnsafeMutableRawPointer
    private let context: MessageContext
    private let message: UnsafeMutablePointer<zmq_msg_t>
    /// Failures seen so far.
    public private(set) var failures = 0

    init(socket: UnsafeMutableRawPointer, context: MessageContext, name: String) throws(TransportError) {
        let address = "inproc://driftfix-monitor-\(name)"
        let events = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
        guard zmq_socket_monitor(socket, address, events) == 0 else { throw ZMQ.error("zmq_socket_monitor") }
        guard let pair = zmq_socket(context.handle, ZMQ_PAIR) else { throw ZMQ.error("zmq_socket(PAIR)") }
        var linger: Int32 = 0
        zmq_setsockopt(pair, ZMQ_LINGER, &linger, MemoryLayout<Int32>.size)
        guard zmq_connect(pair, address) == 0 else {
            let error = ZMQ.error("connect \(address)")
            zmq_close(pair)
            throw error
        }
        self.pair = pair
        self.context = context
        message = .allocate(capacity: 1)
    }

    deinit {
        zmq_close(pair)
        message.deallocate()
    }

    /// The failures reported since the last call, described; never blocks.
    public func drain() -> [String] {
        var found: [String] = []
        while true {
            // Each event is two frames: 2 bytes event + 4 bytes value, then the endpoint.
            var frames: [[UInt8]] = []
            while true {
                zmq_msg_init(message)
                defer { zmq_msg_close(message) }
                let size = zmq_msg_recv(message, pair, frames.isEmpty ? ZMQ_DONTWAIT : 0)
                if size < 0 { break }
                if let data = zmq_msg_data(message) { frames.append(Array(UnsafeRawBufferPointer(start: data, count: Int(size)))) }
                if zmq_msg_more(message) != 1 { break }
            }
            guard frames.count == 2, frames[0].count >= 6 else { return found }
            let event = Int32(UInt16(frames[0][0]) | UInt16(frames[0][1]) << 8)
            let value = frames[0][2..<6].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            let endpoint = String(decoding: frames[1], as: UTF8.self)
            failures += 1
            found.append("a peer failed the security handshake on \(endpoint): \(Self.describe(event: event, value: Int32(bitPattern: value)))")
        }
    }

    static func describe(event: Int32, value: Int32) -> String {
        switch event {
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
            switch value {
            case ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH: return "no CURVE (a plaintext client)"
            case ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC: return "cryptographic error (a client with the wrong server key?)"
            default: return "protocol error 0x\(String(UInt32(bitPattern: value), radix: 16))"
            }
        default:
            // Which side notices a mismatch first is a race: the server often just sees the peer hang up.
            if value == EPIPE || value == ECONNRESET {
                return "the peer hung up during the handshake (a plaintext client, a wrong server key or a refused key)"
            }
            return "handshake failed (\(String(cString: strerror(value))))"
        }
    }
}
