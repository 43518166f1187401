import DriftCore
import DriftSchema
import Foundation
import Testing

@testable import DriftWire

@Suite("Wire codec")
struct WireCodecTests {
    static let job = JobSpec(
        id: 7, attempt: 2, input: "/m/a.wav", outputRoot: "/o",
        work: .header(
            HeaderRepair(
                output: "/o/a.wav", targetFrames: 2_880_000, method: .resample, methodReason: "default",
                quality: .medium, engine: .soxr)))

    /// A measure-only content job (no output, no output root) and a print: the kinds that write nothing.
    static var measureJob: JobSpec {
        var content = ContentJob(
            reference: "/m/a.mp4", output: nil, policy: ContentPolicy(), targetFrames: 480_000,
            method: MethodChoice(method: .resample, reason: "in sync by the headers"), quality: .best,
            headersInSync: true, headerDriftPPM: 2.5, recordingSeconds: 10, referenceSeconds: 10.00002)
        content.headersRefusal = "x"
        var job = JobSpec(id: 3, attempt: 1, input: "/m/a.wav", outputRoot: nil, work: .content(content))
        // The coordinator's span for the job (version 8): the trace context survives the trip.
        job.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        return job
    }
    static let messages: [WireMessage] = [
        .hello(WorkerHello(worker: "w1", capacity: 2, software: "driftfix", host: "h", pid: 42)),
        .heartbeat(running: [1, 2, 3]), .job(job),
        .result(
            JobResult(
                id: 7, attempt: 2, worker: "w1", seconds: 1.5,
                outcome: .repaired(WrittenOutput(frames: 2_880_000, checksum: "abc")), run: 3, warnings: ["w"])),
        .result(
            JobResult(
                id: 8, attempt: 1, worker: "w1", seconds: 0.1,
                outcome: .failed(JobFailure(message: "x: disk full", kind: .outputFull)))),
        .result(
            JobResult(
                id: 10, attempt: 1, worker: "w1", seconds: 0.1,
                outcome: .decided(contentResult, output: WrittenOutput(frames: 480_000, checksum: "ff")))),
        .result(
            JobResult(
                id: 11, attempt: 1, worker: "w1", seconds: 0.1, outcome: .decided(contentResult, output: nil))),
        .result(
            JobResult(
                id: 12, attempt: 1, worker: "w1", seconds: 0.1,
                outcome: .failed(JobFailure(message: "x: out of sync", kind: .outOfSync, content: contentResult)))),
        .shutdown, .goodbye, .job(soundJob), .result(soundResult), .job(measureJob),
        .job(JobSpec(id: 4, input: "/m/b.wav", outputRoot: nil, work: .soundPrint)),
        .job(JobSpec(id: 5, input: "/dev/null/5", outputRoot: nil, work: .noop(frames: 1))),
    ]

    /// A clip's task and its rows: every field survives the trip (the candidate, the outputs, the measurement).
    static var soundJob: JobSpec {
        var place = ClipTask.Place(
            recording: "/m/ZOOM0001.WAV",
            candidate: SoundCandidate(
                recording: 3, startSeconds: 812.37, clarity: 11.5, ambiguity: 0.31, coverage: 0.98, sharpClarity: 24,
                sharpAmbiguity: nil))
        place.timecodeStartSeconds = 812.4
        place.recordingFrames = 172_800_000
        place.sampleRate = 48000
        place.engine = .soxr
        place.output = "/o/camera/C0001.wav"
        var second = place
        second.recording = "/m/LAV.WAV"
        second.output = nil
        second.outputConflict = "/o/x.wav is also /m/y.MP4's output"
        var job = JobSpec(
            id: 9, attempt: 1, input: "/m/camera/C0001.MP4", outputRoot: "/o",
            work: .clipSync(
                ClipTask(
                    clip: "/m/camera/C0001.MP4", clipSeconds: 61.25, places: [place, second],
                    minimumConfidence: 0.5, residualLimitMs: 1, quality: .best, mux: true)))
        job.inputRoots = ["/m"]
        return job
    }

    static let contentResult = ContentResult(
        decision: .repaired, reason: "r", measuredBy: .content, operations: [.resample(frames: 480_000)],
        measurement: ContentMeasurement(
            offsetMs: 1, driftPPM: -20, driftPPMError: 0.5, model: .clock, confidence: 0.9, reason: nil))

    static var soundResult: JobResult {
        var match = SoundPairingReport.Match(
            reference: "/m/camera/C0001.MP4", recording: "/m/ZOOM0001.WAV", recordingStartSeconds: 812.371_04,
            recordingEndSeconds: 873.6, coverage: 1, clarity: 11.5,
            content: ContentMeasurement(
                offsetMs: -812_371.04, driftPPM: -131.2, driftPPMError: 0.4, model: .clock,
                confidence: 0.93, reason: nil),
            status: .used, note: nil)
        match.output = "/o/camera/C0001.wav"
        match.outputFrames = 2_940_000
        match.operations = [.trimStart(frames: 38_993_808), .resample(frames: 2_940_000)]
        let sound = SoundResult(
            print: Data([0x44, 0x46, 0x53, 0x50, 1, 0, 0, 0, 0, 0, 0, 0, 0, 7, 200]), timecode: 36_017.3,
            matches: [match])
        return JobResult(id: 9, attempt: 1, worker: "w1", seconds: 2, outcome: .heard(sound))
    }

    /// The wire keeps version 7's flat result (version 8 too): a worker that names no failure kind is read by its `retryable` flag,
    /// and a success that carries nothing is refused, not guessed.
    @Test("a flat result reads as the one outcome it describes")
    func flatResults() throws {
        func result(_ body: String) throws -> JobResult? {
            let bytes = Array(
                #"{"v":8,"type":"result","body":{"id":1,"attempt":1,"worker":"w","seconds":1,\#(body)}}"#.utf8)
            guard case .result(let result) = try WireCodec.decode(bytes) else { return nil }
            return result
        }
        #expect(
            try result(#""succeeded":false,"retryable":true,"error":"e""#)?.outcome
                == .failed(JobFailure(message: "e", kind: .outputUnwritable)))
        #expect(
            try result(#""succeeded":false,"retryable":false"#)?.outcome
                == .failed(JobFailure(message: "failed", kind: .other)))
        #expect(
            try result(#""succeeded":true,"outputFrames":5,"retryable":false"#)?.outcome
                == .repaired(WrittenOutput(frames: 5, checksum: nil)))
        #expect(throws: WireError.self) { try result(#""succeeded":true,"retryable":false"#) }
        // What the job failed on decides the retry, whatever the flag says.
        let full = try #require(try result(#""succeeded":false,"retryable":false,"failure":"output-full""#))
        #expect(full.outcome.columns.failure?.retryable == true)
    }

    @Test("every message round-trips", arguments: messages)
    func roundTrip(message: WireMessage) throws {
        #expect(try WireCodec.decode(try WireCodec.encode(message)) == message)
    }

    @Test("a result holding a NaN is refused by name and place, never sent as an empty frame")
    func unencodableResult() {
        var content = Self.contentResult
        content.measurement?.driftPPM = .nan
        let result = JobResult(
            id: 7, attempt: 1, worker: "w", seconds: 1, outcome: .decided(content, output: nil))
        #expect {
            try WireCodec.encode(.result(result))
        } throws: { error in
            guard case .unencodable(let why) = error as? WireError else { return false }
            return why.contains("driftPPM")
        }
    }

    @Test("the envelope is versioned JSON")
    func envelope() throws {
        let text = String(decoding: try WireCodec.encode(.shutdown), as: UTF8.self)
        #expect(text == #"{"type":"shutdown","v":8}"#)
    }

    @Test(
        "garbage, wrong versions, unknown types and bad fields are refused with a reason",
        arguments: [
            (Array("not json".utf8), "malformed") as ([UInt8], String),
            (Array(#"{"v":1,"type":"hello"}"#.utf8), "protocol version 1, expected 8"),
            (Array(#"{"v":3,"type":"hello"}"#.utf8), "protocol version 3, expected 8"),
            (Array(#"{"v":5,"type":"hello"}"#.utf8), "protocol version 5, expected 8"),
            (Array(#"{"v":6,"type":"hello"}"#.utf8), "protocol version 6, expected 8"),
            (Array(#"{"v":7,"type":"hello"}"#.utf8), "protocol version 7, expected 8"),
            // A job as a version-4 coordinator sent it (the work in optional fields): refused by its version.
            (
                Array(
                    #"{"v":4,"type":"job","body":{"id":1,"attempt":1,"input":"/m/a.wav","output":"/o/a.wav","outputRoot":"/o","targetFrames":1,"method":"resample","methodReason":"x","quality":"fast","noop":false}}"#
                        .utf8), "protocol version 4, expected 8"
            ),
            (Array(#"{"v":8,"type":"launch-missiles"}"#.utf8), "unknown message type"),
            (Array(#"{"v":8,"type":"job","body":{"id":"seven"}}"#.utf8), "malformed"),
            // A job whose work names no kind, or a kind without its payload.
            (Array(#"{"v":8,"type":"job","body":{"id":1,"attempt":1,"input":"/a","work":{}}}"#.utf8), "malformed"),
            (
                Array(#"{"v":8,"type":"job","body":{"id":1,"attempt":1,"input":"/a","work":{"kind":"header"}}}"#.utf8),
                "malformed"
            ),
            (
                Array(#"{"v":8,"type":"job","body":{"id":1,"attempt":1,"input":"/a","work":{"kind":"rm -rf"}}}"#.utf8),
                "malformed"
            ),
            (
                Array(
                    #"{"v":8,"type":"hello","body":{"worker":"w","capacity":0,"software":"x","host":"h","pid":1}}"#.utf8
                ), "malformed"
            ),
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

    // Apart from the table above: swift-testing describes every argument it runs, and describing a message of
    // the limit's size took longer than all the rest of this target.
    @Test("a message one byte over the limit is refused by its size")
    func oversize() {
        let bytes = [UInt8](repeating: 0x20, count: WireCodec.maxMessageBytes + 1)
        do {
            _ = try WireCodec.decode(bytes)
            Issue.record("accepted a message of \(bytes.count) bytes")
        } catch {
            #expect(error.description.contains("exceeds the limit"), "\(error)")
        }
    }

    @Test(
        "random bytes and one-byte mutations of valid messages: each refused with a reason, or decoded to a message that encodes and decodes to itself"
    )
    func fuzz() throws {
        var state: UInt64 = 12345
        var refused = 0
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let count = Int(state >> 56)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(state >> 56))
            }
            do {
                let message = try WireCodec.decode(bytes)
                Issue.record("random bytes decoded as \(message): \(bytes)")
            } catch {
                #expect(!error.description.isEmpty)
                refused += 1
            }
        }
        #expect(refused == 2000)
        // Mutations of valid messages: a flipped byte in a name or a number may still make a message, which must then
        // be stable (its encoding decodes to it); everything else is refused with a reason.
        var mutants = 0
        var accepted = 0
        for message in WireCodecTests.messages {
            let valid = try WireCodec.encode(message)
            for i in 0..<valid.count {
                var broken = valid
                broken[i] ^= 0x5A
                mutants += 1
                do {
                    let decoded = try WireCodec.decode(broken)
                    accepted += 1
                    #expect(
                        (try? WireCodec.decode(try WireCodec.encode(decoded))) == decoded,
                        "a mutant decoded to \(decoded), which does not survive its own encoding")
                } catch {
                    #expect(!error.description.isEmpty)
                }
            }
        }
        // Most flips break the JSON or a field's type; a few land in free text.
        #expect(accepted < mutants / 2, "\(accepted) of \(mutants) mutants accepted")
    }
}
