import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftRepair

/// Chunks of every size and shape through a repair: nothing dropped for its size, nothing malformed edited, every
/// refusal naming the chunk. The files are built byte by byte here (`WaveBytes`), apart from any writer under test.
@Suite("Chunks of any size or shape: carried or named, never dropped")
struct ChunkShapeTests {
    static let signal = TestSignal(channelCount: 1, length: 24_000, seed: 11)
    static let audio = WaveBytes.pcm16(signal)

    /// A 16-bit mono WAV with `before` chunks ahead of its format and `after` ones behind its audio.
    static func write(_ path: String, before: [UInt8] = [], after: [UInt8] = []) throws {
        try Data(WaveBytes.file(channels: 1, audio: audio, before: before, after: after))
            .write(to: URL(fileURLWithPath: path))
    }

    static func repair(_ input: String, _ output: String) throws -> ProcessResult {
        try FileProcessor.run(ProcessRequest(input: input, output: output, target: .frames(24_010)))
    }

    /// An iXML document of exactly `size` bytes.
    static func ixml(size: Int) -> [UInt8] {
        let head = Array("<?xml version=\"1.0\"?><BWFXML><IXML_VERSION>1.5</IXML_VERSION><HISTORY>".utf8)
        let tail = Array(
            "</HISTORY><SPEED><TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>480000</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO></SPEED></BWFXML>"
                .utf8)
        return head + [UInt8](repeating: UInt8(ascii: "x"), count: size - head.count - tail.count) + tail
    }

    @Test(
        "an iXML of 17 MiB, before or after the audio, and a 20 MiB vendor chunk: carried byte for byte, the warning saying unedited",
        arguments: [false, true])
    func hugeChunks(after: Bool) throws {
        let folder = TemporaryFolder()
        let big = Self.ixml(size: 17 << 20 | 17)
        let vendor = [UInt8](repeating: 0x5A, count: 20 << 20)
        let chunks = WaveBytes.chunk("iXML", big) + WaveBytes.chunk("zzzz", vendor)
        try Self.write(folder.file("in.wav"), before: after ? [] : chunks, after: after ? chunks : [])
        let result = try Self.repair(folder.file("in.wav"), folder.file("out.wav"))
        let out = try ChunkFile(path: folder.file("out.wav"))
        #expect(out.chunk("iXML")?.payload == big, "the iXML, unedited")
        #expect(out.chunk("zzzz")?.payload == vendor)
        #expect(out.ids == (after ? ["fmt ", "data", "iXML", "zzzz"] : ["iXML", "zzzz", "fmt ", "data"]))
        #expect(
            result.warnings.contains {
                $0.hasPrefix("iXML: \(big.count) bytes, more than a repair edits: carried unedited")
            },
            "\(result.warnings)")
        #expect(!result.warnings.contains { $0.contains("zzzz") }, "a chunk no repair edits needs no word")
    }

    /// A `labl` sub-chunk of cue point `id`, stating `size` bytes (its true size where nil).
    static func label(_ id: UInt32, _ text: String, size: UInt32? = nil) -> [UInt8] {
        let body = WaveBytes.le32(id) + Array(text.utf8) + [0]
        return Array("labl".utf8) + WaveBytes.le32(size ?? UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
    }

    static func cue(_ points: [(UInt32, UInt32)], stating count: UInt32? = nil) -> [UInt8] {
        var body = WaveBytes.le32(count ?? UInt32(points.count))
        for (id, position) in points {
            body +=
                WaveBytes.le32(id) + WaveBytes.le32(position) + Array("data".utf8) + WaveBytes.le32(0)
                + WaveBytes.le32(0) + WaveBytes.le32(position)
        }
        return WaveBytes.chunk("cue ", body)
    }

    @Test(
        "a LIST/adtl with a label whose size lies: carried byte for byte, every label in it, and the warning",
        arguments: [true, false])
    func lyingLabel(twoLabels: Bool) throws {
        let folder = TemporaryFolder()
        let labels =
            twoLabels ? Self.label(1, "one") + Self.label(2, "two", size: 500) : Self.label(1, "one", size: 500)
        let list = Array("adtl".utf8) + labels
        try Self.write(
            folder.file("in.wav"), before: Self.cue(twoLabels ? [(1, 1000), (2, 12_000)] : [(1, 1000)]),
            after: WaveBytes.chunk("LIST", list))
        let result = try Self.repair(folder.file("in.wav"), folder.file("out.wav"))
        let out = try ChunkFile(path: folder.file("out.wav"))
        #expect(out.chunk("LIST", list: "adtl")?.payload == list, "byte for byte, nothing lost")
        #expect(
            result.warnings.contains { $0.hasPrefix("LIST: not as its specification lays it out: carried unchanged") })
        #expect(out.cuePoints.count == (twoLabels ? 2 : 1), "the points themselves still moved")
    }

    @Test("a cue chunk whose count lies, and a last chunk cut short: refused, the reason naming the chunk and its lie")
    func refusalsNameTheChunk() throws {
        let folder = TemporaryFolder()
        try Self.write(folder.file("cue.wav"), before: Self.cue([(1, 1000), (2, 2000)], stating: 1000))
        #expect(throws: AudioError.self) { try Self.repair(folder.file("cue.wav"), folder.file("a.wav")) }
        do {
            _ = try Self.repair(folder.file("cue.wav"), folder.file("a.wav"))
        } catch let error as AudioError {
            #expect(
                "\(error)".contains(
                    "its 'cue ' chunk (before the audio) states 1000 cue points, but its 52 bytes hold 2"),
                "\(error)")
        }
        // A LIST after the audio stating 1000 bytes where 18 follow.
        let cut =
            Array("LIST".utf8) + WaveBytes.le32(1000) + Array("INFOINAM".utf8) + WaveBytes.le32(6)
            + Array("title\0".utf8)
        try Self.write(folder.file("cut.wav"), after: cut)
        do {
            _ = try Self.repair(folder.file("cut.wav"), folder.file("b.wav"))
            Issue.record("a chunk cut short was read")
        } catch let error as AudioError {
            #expect(
                "\(error)".contains("its 'LIST' chunk (after the audio) states 1000 bytes, but 18 remain in the file"),
                "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("a.wav")))
        #expect(!FileManager.default.fileExists(atPath: folder.file("b.wav")))
    }

    /// An RF64 file whose chunks before the audio are `chunks` (an odd-sized one among them, with its pad byte).
    static func rf64(_ chunks: [UInt8]) -> [UInt8] {
        let ds64Size = 28
        let fmt = WaveBytes.format(channels: 1, bits: 16, rate: 48_000)
        let total = 4 + (8 + ds64Size) + fmt.count + chunks.count + 8 + audio.count
        let ds64 =
            Array("ds64".utf8) + WaveBytes.le32(UInt32(ds64Size)) + le64(UInt64(total)) + le64(UInt64(audio.count))
            + le64(UInt64(audio.count / 2)) + WaveBytes.le32(0)
        return Array("RF64".utf8) + WaveBytes.le32(0xFFFF_FFFF) + Array("WAVE".utf8) + ds64 + fmt + chunks
            + Array("data".utf8) + WaveBytes.le32(0xFFFF_FFFF) + audio
    }

    static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    @Test("a valid RF64 file with an odd-sized chunk opens and is repaired, the chunk byte for byte with its pad")
    func rf64OddChunk() throws {
        let folder = TemporaryFolder()
        let odd = Array("abc".utf8)
        let label = Array("INFOICMT".utf8) + WaveBytes.le32(5) + Array("note\0".utf8)
        try Data(Self.rf64(WaveBytes.chunk("zodd", odd) + WaveBytes.chunk("LIST", label + [0])))
            .write(to: URL(fileURLWithPath: folder.file("in.wav")))
        let reader = try AudioFileReader(path: folder.file("in.wav"))
        #expect(reader.frameCount == 24_000 && reader.format.container == .rf64)
        var samples = [Float](repeating: 0, count: 24_000)
        #expect(
            try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: 24_000) }
                == 24_000)
        #expect(zip(samples, Self.signal.recording(start: 0, count: 24_000)).allSatisfy { abs($0 - $1) < 1e-4 })
        _ = try Self.repair(folder.file("in.wav"), folder.file("out.wav"))
        let out = try ChunkFile(path: folder.file("out.wav"))
        #expect(out.container == "RF64" && out.chunk("zodd")?.payload == odd && out.chunk("zodd")?.size == 3)
        #expect(out.chunk("LIST")?.payload == label + [0])
        // Read again (through the view without pad bytes): its exact length.
        #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == 24_010)
    }

    @Test(
        "the names an editor shows in iXML: a decomposed name as its own bytes, a byte that is not UTF-8 as \\xHH, never the escape",
        arguments: [
            (Array("ne\u{301}.wav".utf8), Array("ne\u{301}.wav".utf8)),
            ([0x74, 0xE9, 0x2E, 0x77, 0x61, 0x76], Array("t\\xE9.wav".utf8)),
        ])
    func namesForPeople(name: [UInt8], shown: [UInt8]) throws {
        let folder = TemporaryFolder()
        let document = Array(
            "<?xml version=\"1.0\"?><BWFXML><IXML_VERSION>1.5</IXML_VERSION><PROJECT>p</PROJECT></BWFXML>".utf8)
        try Self.write(folder.file("plain.wav"), before: WaveBytes.chunk("iXML", document))
        let input = folder.path + "/" + PathText.text(name)
        #expect(PathText.withCStrings(folder.file("plain.wav"), input) { rename($0, $1) } == 0)
        _ = try Self.repair(input, folder.file("out.wav"))
        let ixml = try #require(try ChunkFile(path: folder.file("out.wav")).chunk("iXML")?.payload)
        for element in ["ORIGINAL_FILENAME", "PARENT_FILENAME"] {
            let open = Array("<\(element)>".utf8)
            let start = try #require(ixml.indices.first { ixml[$0...].starts(with: open) }) + open.count
            let end = try #require(ixml[start...].firstIndex(of: UInt8(ascii: "<")))
            #expect(
                Array(ixml[start..<end]) == shown, "\(element): \(String(decoding: ixml[start..<end], as: UTF8.self))")
        }
    }
}
