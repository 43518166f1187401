import Foundation

/// Why a frame was dropped.
public enum WireError: Error, Equatable, CustomStringConvertible {
    case tooLarge(Int)
    case malformed(String)
    case unsupportedVersion(Int)
    case unknownType(String)
    /// A message holding a value JSON cannot carry (a NaN or an infinite number), and where.
    case unencodable(String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes): return "message of \(bytes) bytes exceeds the limit"
        case .malformed(let why): return "malformed message: \(why)"
        case .unsupportedVersion(let v): return "protocol version \(v), expected \(wireProtocolVersion)"
        case .unknownType(let type): return "unknown message type '\(type)'"
        case .unencodable(let why): return "message cannot be sent: \(why)"
        }
    }
}

/// Encodes messages as one JSON object per frame: `{"v":2,"type":"job","body":{...}}`. JSON keeps the protocol
/// readable on the wire and in logs; most messages are small (a job is ~300 bytes), a sound print's result is its
/// print (160 bytes a second of sound, base64: 768 KB for a recorded hour).
public enum WireCodec {
    /// Frames larger than this are refused before parsing (the transport also caps them, so a peer cannot make
    /// either side hold more): room for the print of a 30-hour recording (160 bytes a second, base64).
    public static let maxMessageBytes = 24 * 1024 * 1024

    private struct Header: Decodable {
        let v: Int
        let type: String
    }

    private struct Envelope<Body: Encodable>: Encodable {
        let v: Int
        let type: String
        let body: Body?
    }

    private struct Body<Value: Decodable>: Decodable {
        let body: Value
    }

    private struct Running: Codable {
        let running: [Int]
    }

    private struct Empty: Codable {}

    /// The message's frame. Throws for a value JSON cannot carry (a NaN or an infinite number, which a measurement
    /// gone wrong can hold): the sender must say so, not send an empty frame the peer would drop without a word.
    public static func encode(_ message: WireMessage) throws(WireError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let data: Data
            switch message {
            case .hello(let hello):
                data = try encoder.encode(Envelope(v: wireProtocolVersion, type: "hello", body: hello))
            case .heartbeat(let running):
                data = try encoder.encode(
                    Envelope(v: wireProtocolVersion, type: "heartbeat", body: Running(running: running)))
            case .job(let job): data = try encoder.encode(Envelope(v: wireProtocolVersion, type: "job", body: job))
            case .result(let result):
                data = try encoder.encode(Envelope(v: wireProtocolVersion, type: "result", body: result))
            case .shutdown:
                data = try encoder.encode(Envelope<Empty>(v: wireProtocolVersion, type: "shutdown", body: nil))
            case .goodbye:
                data = try encoder.encode(Envelope<Empty>(v: wireProtocolVersion, type: "goodbye", body: nil))
            }
            return Array(data)
        } catch let EncodingError.invalidValue(value, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw .unencodable("\(value) at \(path.isEmpty ? "the top" : path)")
        } catch {
            throw .unencodable("\(error)")
        }
    }

    public static func decode(_ bytes: [UInt8]) throws(WireError) -> WireMessage {
        guard bytes.count <= maxMessageBytes else { throw .tooLarge(bytes.count) }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch {
            throw .malformed("no {v, type} header")
        }
        guard header.v == wireProtocolVersion else { throw .unsupportedVersion(header.v) }
        do {
            switch header.type {
            case "hello":
                let hello = try decoder.decode(Body<WorkerHello>.self, from: data).body
                guard hello.capacity > 0, hello.capacity <= 1024, !hello.worker.isEmpty, hello.worker.utf8.count <= 255
                else {
                    throw WireError.malformed("hello with capacity \(hello.capacity)")
                }
                return .hello(hello)
            case "heartbeat":
                let running = try decoder.decode(Body<Running>.self, from: data).body.running
                guard running.count <= 4096 else {
                    throw WireError.malformed("heartbeat listing \(running.count) jobs")
                }
                return .heartbeat(running: running)
            case "job": return .job(try decoder.decode(Body<JobSpec>.self, from: data).body)
            case "result": return .result(try decoder.decode(Body<JobResult>.self, from: data).body)
            case "shutdown": return .shutdown
            case "goodbye": return .goodbye
            default: throw WireError.unknownType(String(header.type.prefix(40)))
            }
        } catch let error as WireError {
            throw error
        } catch {
            throw .malformed("\(header.type) body does not decode")
        }
    }
}
