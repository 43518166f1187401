import DriftCore
import Foundation
import Testing

@testable import DriftWire

@Suite("Wire codec")
struct WireCodecTests {
    static let job = JobSpec(id: 7, attempt: 2, input: "/m/a.wav", output: "/o/a.wav", outputRoot: "/o", targetFrames: 2_880_000,
                             method: .resample, methodReason: "default", quality: .medium)
    static let messages: [WireMessage] = [
        .hello(WorkerHello(worker: "w1", capacity: 2, software: "driftfix", host: "h", pid: 42)),
        .heartbeat(running: [1, 2, 3]), .job(job),
        .result(JobResult(id: 7, attempt: 2, worker: "w1", succeeded: true, outputFrames: 2_880_000, checksum: "abc", seconds: 1.5)),
        .result(JobResult(id: 8, attempt: 1, worker: "w1", succeeded: false, seconds: 0.1, error: "x: disk full", retryable: true)),
        .shutdown, .goodbye,
    ]

    @Test("every message round-trips", arguments: messages)
    func roundTrip(message: WireMessage) throws {
        #expect(try WireCodec.decode(WireCodec.encode(message)) == message)
    }

    @Test("the envelope is versioned JSON")
    func envelope() throws {
        let text = String(decoding: WireCodec.encode(.shutdown), as: UTF8.self)
        #expect(text == #"{"type":"shutdown","v":3}"#)
    }

    @Test("garbage, wrong versions, unknown types and bad fields are refused with a reason", arguments: [
        (Array("not json".utf8), "malformed"),
        (Array(#"{"v":1,"type":"hello"}"#.utf8), "protocol version 1, expected 3"),
        (Array(#"{"v":3,"type":"launch-missiles"}"#.utf8), "unknown message type"),
        (Array(#"{"v":3,"type":"job","body":{"id":"seven"}}"#.utf8), "malformed"),
        (Array(#"{"v":3,"type":"hello","body":{"worker":"w","capacity":0,"software":"x","host":"h","pid":1}}"#.utf8), "malformed"),
        ([UInt8](repeating: 0x20, count: 70_000), "exceeds the limit"),
        ([], "malformed"),
    ])
    func refusals(bytes: [UInt8], reason: String) {
        do {
            _ = try WireCodec.decode(bytes)
            Issue.record("accepted \(bytes.prefix(40))")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test("random bytes never crash the decoder")
    func fuzz() {
        var state: UInt64 = 12345
        for _ in 0..<2000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let count = Int(state >> 56)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(state >> 56))
            }
            _ = try? WireCodec.decode(bytes)
        }
        // Mutations of valid messages.
        for message in WireCodecTests.messages {
            let valid = WireCodec.encode(message)
            for i in 0..<valid.count {
                var broken = valid
                broken[i] ^= 0x5A
                _ = try? WireCodec.decode(broken)
            }
        }
    }
}
