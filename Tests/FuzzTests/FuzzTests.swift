import DriftAV
import DriftConfig
import DriftFixtures
import DriftMedia
import DriftWire
import Foundation
import Testing

import struct SystemPackage.FilePath

/// The corpus: seed inputs, and every input that once crashed, hung or misbehaved (kept as regression tests).
func corpus(_ kind: String) throws -> [(name: String, bytes: [UInt8])] {
    let folder = try #require(Bundle.module.resourceURL?.appendingPathComponent("Corpus/\(kind)").path)
    return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map {
        ($0, Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0))))
    }
}

/// Built movies covering the parser's paths (edit lists, v1 headers, 64-bit sizes, fragments).
func builtMovies() -> [[UInt8]] {
    /// An ftyp, a moov holding `children`, then the boxes of `rest`.
    func movie(_ children: [Box], large: Bool = false, then rest: [Box]) -> [UInt8] {
        ([Boxes.ftyp(), Box("moov", children: children, large: large)] + rest).flatMap(\.bytes)
    }
    let plain = Boxes.movie(milliseconds: 2000)
    let edited = movie(
        [
            Boxes.mvhd(timescale: 1000, duration: 60_500, version: 1),
            Boxes.track(
                id: 1, handler: "vide", timescale: 30_000, duration: 1_801_800, edits: [(500, -1), (60_000, 0)],
                version: 1),
            Boxes.track(id: 2, handler: "soun", timescale: 48_000, duration: 96_000),
        ], large: true, then: [Boxes.mdat(64)])
    let fragmented = movie(
        [
            Boxes.mvhd(timescale: 1000, duration: 0),
            Boxes.track(id: 1, handler: "vide", timescale: 25, duration: 0),
            Box("mvex", children: [Boxes.mehd(0), Boxes.trex(track: 1, defaultDuration: 1)]),
        ],
        then: [Boxes.moof(track: 1, sampleDurations: [1, 1, 1]), Boxes.moof(track: 1, count: 10, defaultDuration: 2)])
    return [plain, edited, fragmented]
}

/// Replaces, removes or adds one value somewhere in a JSON document: edge numbers, wrong types, long strings,
/// deep nesting - well-formed JSON that the decoder's own checks must refuse or bound.
func jsonMutation(_ mutator: inout Mutator, _ bytes: [UInt8]) -> [UInt8] {
    guard var root = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
        return bytes
    }
    let values: [Any] = [
        -1, 0, Int64.max, Int64.min, 1e308, -0.0, 4097, 1025, "", String(repeating: "x", count: 70_000),
        String(repeating: "é", count: 300), NSNull(), [Int](repeating: 7, count: 5000), ["nested": ["deeper": [1, 2]]],
        true, "../../etc/passwd",
        Array(repeating: "/m", count: 2000), 2, "hello", "job", "result",
    ]
    func edit(_ value: Any, depth: Int) -> Any {
        if var object = value as? [String: Any], !object.isEmpty {
            let keys = object.keys.sorted()
            let key = keys[mutator.below(keys.count)]
            switch mutator.below(6) {
            case 0: object.removeValue(forKey: key)
            case 1: object["unexpected\(mutator.below(3))"] = values[mutator.below(values.count)]
            case 2, 3: object[key] = values[mutator.below(values.count)]
            default: object[key] = edit(object[key] as Any, depth: depth + 1)
            }
            return object
        }
        if var array = value as? [Any], !array.isEmpty {
            array[mutator.below(array.count)] = values[mutator.below(values.count)]
            return array
        }
        return values[mutator.below(values.count)]
    }
    root = edit(root, depth: 0)
    return Array((try? JSONSerialization.data(withJSONObject: root, options: [.fragmentsAllowed])) ?? Data(bytes))
}

@Suite("fuzzing the parsers of untrusted input (seeded, bounded in processor time)", .serialized)
struct FuzzTests {
    /// No crash (a crash ends the test process), no hang, no runaway memory.
    func expectBounded(_ outcome: FuzzRun.Outcome, _ name: String, atLeast minimum: Int = 1000) {
        #expect(outcome.iterations > minimum, "\(name): only \(outcome.iterations) iterations")
        #expect(
            outcome.slowest < 0.5,
            "\(name): one input took \(outcome.slowest) s of processor time (\(outcome.slowestInput.count) bytes)")
        #expect(outcome.rssGrowthKiB < 256 * 1024, "\(name): peak memory grew by \(outcome.rssGrowthKiB) KiB")
        #expect(
            outcome.accepted > outcome.iterations / 100,
            "\(name): only \(outcome.accepted) inputs got past the first checks")
        print(
            "\(name): \(outcome.iterations) inputs, \(outcome.accepted) accepted, slowest \(outcome.slowest) s, "
                + "peak memory +\(outcome.rssGrowthKiB) KiB")
    }

    @Test("MP4/MOV box parser: mutated ffmpeg files and built movies")
    func movieParser() throws {
        let seeds = try corpus("movie").map(\.bytes) + builtMovies()
        let outcome = FuzzRun(name: "movie", seeds: seeds).run { bytes in
            (try? MovieParser.parse(MemoryBytes(bytes))) != nil
        }
        expectBounded(outcome, "movie")
    }

    @Test(
        "FFmpeg demux and decode path: mutated M4A (AAC), MKA (Opus) and MOV (ALAC with video), probed, counted and decoded"
    )
    func mediaPath() throws {
        let seeds = try corpus("media").map(\.bytes)
        let path = FileManager.default.temporaryDirectory.path + "/driftfix-fuzz-media-\(getpid())"
        defer { unlink(path) }
        var run = FuzzRun(name: "media", seeds: seeds)
        // Each input is a file opened through libavformat: fewer, costlier iterations than the in-memory parsers.
        run.maxIterations = 20_000
        let outcome = run.run { bytes in
            unlink(path)
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return false }
            _ = try? MediaProbe.probe(path)
            _ = try? MediaProbe.audioFrames(path)
            guard let reader = try? EncodedAudioReader(path: path) else { return false }
            var block = [Float](repeating: 0, count: 4096 * reader.channelCount)
            var total: Int64 = 0
            while let n = try? block.withUnsafeMutableBufferPointer({
                try reader.read(into: $0.baseAddress!, frames: 4096)
            }), n > 0 {
                total += Int64(n)
            }
            return total == reader.frameCount
        }
        // Three opens through libavformat per input, in a debug build: about 200 inputs a second.
        expectBounded(outcome, "media", atLeast: 200)
    }

    @Test("wire-message decoder: mutated envelopes of every message type")
    func wireDecoder() throws {
        let spec = JobSpec(
            id: 1, attempt: 1, input: "/m/a.wav", outputRoot: "/o",
            work: .header(
                HeaderRepair(
                    output: "/o/a.wav", targetFrames: 48_000, method: .stretch, methodReason: "rule", quality: .best)))
        let messages: [WireMessage] = [
            .hello(WorkerHello(worker: "w", capacity: 2, software: "driftfix", host: "h", pid: 1)),
            .heartbeat(running: [1, 2]),
            .job(spec),
            .result(
                JobResult(
                    id: 1, attempt: 1, worker: "w", seconds: 1,
                    outcome: .failed(JobFailure(message: "e", kind: .outputUnwritable)))),
            .shutdown, .goodbye,
        ]
        let seeds = try corpus("wire").map(\.bytes) + messages.map { try WireCodec.encode($0) }
        var fuzz = FuzzRun(name: "wire", seeds: seeds)
        fuzz.structured = jsonMutation
        let outcome = fuzz.run { bytes in
            guard let message = try? WireCodec.decode(bytes) else { return false }
            // Whatever decodes must encode again within the limit (nothing the decoder admits is unsendable).
            guard let encoded = try? WireCodec.encode(message) else {
                preconditionFailure("a decoded message does not encode: \(message)")
            }
            precondition(encoded.count <= WireCodec.maxMessageBytes * 2, "re-encoded message grew to \(encoded.count)")
            return true
        }
        expectBounded(outcome, "wire")
    }

    @Test("configuration loader: mutated YAML")
    func configLoader() throws {
        let seeds = try corpus("config").map(\.bytes)
        var fuzz = FuzzRun(name: "config", seeds: seeds)
        fuzz.maxIterations = 50_000
        let outcome = fuzz.run { bytes in
            (try? Configuration.parse(String(decoding: bytes, as: UTF8.self), path: "fuzz.yaml")) != nil
        }
        expectBounded(outcome, "config")
    }

    @Test(
        "RIFF/RF64 chunk layouts through a repair: every chunk of an accepted file carried, a refusal naming its chunk")
    func chunkLayouts() throws {
        let built = ChunkLayouts.seeds()
        if let save = ProcessInfo.processInfo.environment["DRIFTFIX_FUZZ_SAVE_SEEDS"] {
            for (index, seed) in built.enumerated() {
                try Data(seed).write(to: URL(fileURLWithPath: "\(save)/seed-\(index).wav"))
            }
        }
        let folder = TemporaryFolder("driftfix-fuzz-chunks")
        var fuzz = FuzzRun(name: "chunks", seeds: built + (try corpus("chunks").map(\.bytes)))
        fuzz.structured = ChunkLayouts.mutate
        // Each input is a repair written and reopened: far fewer iterations than the in-memory parsers.
        fuzz.maxIterations = 5_000
        let outcome = fuzz.run { ChunkOracle.check($0, folder: folder.path) }
        expectBounded(outcome, "chunks", atLeast: 100)
    }

    @Test(
        "regression corpus: every stored input parses or is refused, quickly",
        arguments: ["movie", "wire", "config", "media", "chunks"])
    func regressions(kind: String) throws {
        for (name, bytes) in try corpus(kind) {
            let start = FuzzRun.threadSeconds()
            switch kind {
            case "movie": _ = try? MovieParser.parse(MemoryBytes(bytes))
            case "wire": _ = try? WireCodec.decode(bytes)
            case "media":
                let path = FileManager.default.temporaryDirectory.path + "/driftfix-regression-\(getpid())-\(name)"
                defer { unlink(path) }
                #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
                _ = try? EncodedAudioReader(path: path)
            case "chunks":
                let folder = TemporaryFolder("driftfix-regression-chunks")
                _ = ChunkOracle.check(bytes, folder: folder.path)
            default: _ = try? Configuration.parse(String(decoding: bytes, as: UTF8.self), path: FilePath(name))
            }
            let took = FuzzRun.threadSeconds() - start
            #expect(took < 0.5, "\(kind)/\(name): \(took) s of processor time")
        }
    }
}
