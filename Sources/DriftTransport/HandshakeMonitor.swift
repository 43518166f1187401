internal import CZMQ
import Glibc

/// Failed security handshakes on a socket, from libzmq's socket monitor: a plaintext client on a CURVE endpoint or
/// a client holding the wrong server key (keys the ZAP handler refuses are logged and counted by the handler).
/// libzmq drops such peers silently; this makes them visible to the operator (and to tests). Owned by the thread
/// that owns the watched socket (`MessageSocket.monitorHandshakes`).
public final class HandshakeMonitor {
    static let events = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
    private let reader: MessageSocket
    /// Failures seen so far.
    public private(set) var failures = 0

    init(reader: MessageSocket) {
        self.reader = reader
    }

    /// The failures reported since the last call, described; never blocks.
    public func drain() -> [String] {
        var found: [String] = []
        // Each event is two frames: 2 bytes event + 4 bytes value (little-endian), then the endpoint.
        while let frames = try? reader.receive() {
            guard frames.count == 2, frames[0].count >= 6 else { continue }
            let event = Int32(UInt16(frames[0][0]) | UInt16(frames[0][1]) << 8)
            let value = frames[0][2..<6].enumerated().reduce(UInt32(0)) {
                $0 | UInt32($1.element) << (8 * UInt32($1.offset))
            }
            failures += 1
            found.append(
                "a peer failed the security handshake on \(String(decoding: frames[1], as: UTF8.self)): "
                    + Self.describe(event: event, value: Int32(bitPattern: value)))
        }
        return found
    }

    static func describe(event: Int32, value: Int32) -> String {
        switch event {
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
            switch value {
            case ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH: return "no CURVE (a plaintext client)"
            case ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC:
                return "cryptographic error (a client with the wrong server key?)"
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
