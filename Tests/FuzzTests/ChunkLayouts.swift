import DriftAudio
import DriftCore
import DriftFixtures
import DriftRepair
import Foundation
import Testing

/// RIFF and RF64 files as lists of chunks: built into seeds, mutated chunk by chunk (sizes that lie, odd sizes,
/// nested `LIST`s, chunks moved after the audio, counts that lie), and walked back by this oracle's own reader, apart
/// from driftfix's.
enum ChunkLayouts {
    struct Chunk {
        var id: String
        var payload: [UInt8]
        /// The size the header states, where it lies; nil: the payload's.
        var stated: UInt32?
    }

    static let frames = 4_800
    static let audio = WaveBytes.pcm16(TestSignal(channelCount: 1, length: Int64(frames), seed: 5))

    static func le32(_ value: UInt32) -> [UInt8] { WaveBytes.le32(value) }

    /// A chunk id as RIFF writers make them: printable ASCII, not starting with a space.
    static func isPlausible(_ id: String) -> Bool {
        id.utf8.count == 4 && id.utf8.allSatisfy { (0x20...0x7E).contains($0) } && !id.hasPrefix(" ")
    }

    /// The ids a recorder writes that this file's mutations use.
    static let recorderIDs: Set<String> = ["LIST", "iXML", "bext", "cue ", "smpl", "JUNK"]
    static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    static func fmt() -> Chunk {
        let whole = WaveBytes.format(channels: 1, bits: 16, rate: 48_000)
        return Chunk(id: "fmt ", payload: Array(whole[8...]))
    }

    static func cue(_ count: Int, stating: UInt32? = nil) -> Chunk {
        var body = le32(stating ?? UInt32(count))
        for k in 0..<count {
            let at = UInt32(400 * (k + 1))
            body += le32(UInt32(k + 1)) + le32(at) + Array("data".utf8) + le32(0) + le32(0) + le32(at)
        }
        return Chunk(id: "cue ", payload: body)
    }

    static func subchunk(_ id: String, _ body: [UInt8], stating: UInt32? = nil) -> [UInt8] {
        Array(id.utf8) + le32(stating ?? UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
    }

    static func adtl(lying: Bool = false) -> Chunk {
        let one = subchunk("labl", le32(1) + Array("one\0".utf8))
        let two = subchunk("labl", le32(2) + Array("second\0".utf8), stating: lying ? 500 : nil)
        let region = subchunk("ltxt", le32(1) + le32(800) + Array("rgn ".utf8) + [UInt8](repeating: 0, count: 8))
        return Chunk(id: "LIST", payload: Array("adtl".utf8) + one + two + region)
    }

    static func info(nested: Bool = false) -> Chunk {
        let name = subchunk("INAM", Array("take 7\0".utf8))
        let inner = nested ? subchunk("LIST", Array("INFO".utf8) + subchunk("ICMT", Array("inner\0".utf8))) : []
        return Chunk(id: "LIST", payload: Array("INFO".utf8) + name + inner)
    }

    static func ixml() -> Chunk {
        Chunk(
            id: "iXML",
            payload: Array(
                "<?xml version=\"1.0\"?><BWFXML><IXML_VERSION>1.5</IXML_VERSION><PROJECT>fuzz</PROJECT></BWFXML>".utf8))
    }

    static func bext() -> Chunk {
        var body = [UInt8](repeating: 0, count: 602)
        for (k, byte) in "recorder".utf8.enumerated() { body[256 + k] = byte }
        return Chunk(id: "bext", payload: body + Array("A=PCM,F=48000\r\n".utf8))
    }

    static func smpl(loops: Int, stating: UInt32? = nil) -> Chunk {
        var body = [UInt8](repeating: 0, count: 28) + le32(stating ?? UInt32(loops)) + le32(0)
        for k in 0..<loops {
            body += le32(UInt32(k)) + le32(0) + le32(UInt32(100 * k)) + le32(UInt32(100 * k + 50)) + le32(0) + le32(0)
        }
        return Chunk(id: "smpl", payload: body)
    }

    /// The file: RIFF (or RF64 with its ds64) and every chunk, `data` at its place in `chunks`.
    static func bytes(_ chunks: [Chunk], rf64: Bool) -> [UInt8] {
        var body: [UInt8] = Array("WAVE".utf8)
        if rf64 {
            body += Array("ds64".utf8) + le32(28) + le64(0) + le64(UInt64(audio.count)) + le64(UInt64(frames)) + le32(0)
        }
        for chunk in chunks {
            let size = chunk.id == "data" && rf64 ? 0xFFFF_FFFF : chunk.stated ?? UInt32(chunk.payload.count)
            body += Array(chunk.id.utf8) + le32(size) + chunk.payload + (chunk.payload.count % 2 == 1 ? [0] : [])
        }
        if rf64 {
            let riff = le64(UInt64(body.count))
            body.replaceSubrange(12..<20, with: riff)
        }
        return Array((rf64 ? "RF64" : "RIFF").utf8) + le32(rf64 ? 0xFFFF_FFFF : UInt32(body.count)) + body
    }

    /// Layouts a recorder writes, and the odd ones: odd sizes, nested lists, chunks after the audio.
    static func seeds() -> [[UInt8]] {
        let data = Chunk(id: "data", payload: audio)
        let vendor = Chunk(id: "zodd", payload: Array("odd".utf8))
        let layouts: [[Chunk]] = [
            [fmt(), data],
            [bext(), ixml(), fmt(), cue(3), data, adtl(), info()],
            [fmt(), vendor, info(nested: true), data, ixml(), vendor],
            [Chunk(id: "JUNK", payload: [UInt8](repeating: 0, count: 28)), fmt(), smpl(loops: 2), data, adtl()],
        ]
        return layouts.flatMap { [bytes($0, rf64: false), bytes($0, rf64: true)] }
    }

    // MARK: mutation

    /// The chunks of `file` as the headers state them (pads honoured), with the form; nil where it is no RIFF/RF64.
    static func walk(_ file: [UInt8]) -> (rf64: Bool, chunks: [Chunk])? {
        guard file.count >= 12, ["RIFF", "RF64"].contains(String(decoding: file[0..<4], as: UTF8.self)),
            file[8..<12] == Array("WAVE".utf8)[...]
        else { return nil }
        let rf64 = file[0..<4] == Array("RF64".utf8)[...]
        var chunks: [Chunk] = []
        var at = 12
        var dataSize: Int?
        while at + 8 <= file.count {
            let id = String(decoding: file[at..<at + 4], as: UTF8.self)
            var size = Int(ChunkFile.integer(file[(at + 4)..<(at + 8)], bigEndian: false))
            if id == "ds64", at + 24 <= file.count {
                dataSize = Int(clamping: ChunkFile.integer(file[(at + 16)..<(at + 24)], bigEndian: false))
            }
            size = min(size, Int(UInt32.max))
            if id == "data" && rf64 && size == 0xFFFF_FFFF { size = dataSize ?? audio.count }
            // A ds64 size may be anything: the walk steps at most past the end of the file.
            let step = min(size, file.count)
            let end = min(file.count, at + 8 + step)
            chunks.append(Chunk(id: id, payload: Array(file[(at + 8)..<end]), stated: UInt32(truncatingIfNeeded: size)))
            at = at + 8 + step + (size & 1)
        }
        return (rf64, chunks)
    }

    /// One chunk-level change: a size that lies, an odd size, a chunk inserted, nested, moved after the audio, or a
    /// count that lies.
    static func mutate(_ mutator: inout Mutator, _ file: [UInt8]) -> [UInt8] {
        guard let (rf64, walked) = walk(file) else { return file }
        var chunks = walked.filter { $0.id != "ds64" }.map { chunk -> Chunk in
            var kept = chunk
            kept.stated = nil
            return kept
        }
        let others = chunks.indices.filter { !["fmt ", "data"].contains(chunks[$0].id) }
        switch mutator.below(7) {
        case 0:
            // A size that lies: more (into what follows, past the end) or less.
            guard let pick = others.randomElement(using: &mutator) else { break }
            let lie = [1, 3, 500, 1 << 20, -1, -4][mutator.below(6)]
            chunks[pick].stated = UInt32(clamping: max(0, chunks[pick].payload.count + lie))
        case 1:
            guard let pick = others.randomElement(using: &mutator) else { break }
            chunks[pick].payload.append(UInt8(truncatingIfNeeded: mutator.next()))
        case 2:
            let made = [ixml(), info(nested: true), Chunk(id: "zodd", payload: [1, 2, 3]), adtl(lying: true), cue(2)]
            chunks.insert(made[mutator.below(made.count)], at: mutator.below(chunks.count + 1))
        case 3:
            guard let pick = others.randomElement(using: &mutator) else { break }
            chunks.append(chunks.remove(at: pick))
        case 4:
            let lying = [cue(2, stating: 1000), smpl(loops: 1, stating: 90), adtl(lying: true)]
            chunks.insert(lying[mutator.below(lying.count)], at: mutator.below(chunks.count + 1))
        case 5:
            guard let pick = others.randomElement(using: &mutator), chunks[pick].id == "LIST" else { break }
            chunks[pick].payload += subchunk("LIST", Array("INFO".utf8) + subchunk("INAM", Array("deep".utf8)))
        default:
            // A last chunk cut short.
            chunks.append(Chunk(id: "LIST", payload: Array("INFOINAM".utf8), stated: 1000))
        }
        return bytes(chunks, rf64: rf64)
    }
}

extension RandomAccessCollection where Index == Int {
    fileprivate func randomElement(using mutator: inout Mutator) -> Element? {
        isEmpty ? nil : self[startIndex + mutator.below(count)]
    }
}

/// The oracle: a file `process` accepts keeps every chunk (in order, byte for byte, or as an edit the docs list); a
/// file it refuses is refused with a reason, which names the chunk where a chunk's size or count lies.
enum ChunkOracle {
    /// Chunks a repair writes anew, and those it leaves out with a warning (they describe the old samples).
    static let notCompared: Set<String> = ["fmt ", "data", "ds64", "fact", "PEAK", "levl", "MD5 ", "md5 "]
    /// Chunks a repair may edit (docs/formats.md): only their id and place are compared.
    static let edited: Set<String> = ["bext", "iXML", "cue ", "smpl", "plst"]

    /// Runs the repair on `file`; whether it was accepted. Records an issue where the oracle is not met.
    static func check(_ file: [UInt8], folder: String) -> Bool {
        let input = folder + "/in.wav"
        let output = folder + "/out.wav"
        unlink(input)
        unlink(output)
        guard FileManager.default.createFile(atPath: input, contents: Data(file)) else { return false }
        do {
            let result = try FileProcessor.run(
                ProcessRequest(input: input, output: output, target: .frames(Int64(ChunkLayouts.frames + 3))))
            compare(file, with: output, warnings: result.warnings)
            return true
        } catch let error as AudioError {
            if case .malformedChunk(let chunk) = error.cause, let (_, chunks) = ChunkLayouts.walk(file) {
                #expect(chunks.map(\.id).contains(chunk.id), "a refusal names a chunk the file has: \(error)")
            }
            expectNamesLie(file, error: "\(error)")
            return false
        } catch {
            return false
        }
    }

    /// Where a chunk other than the audio runs past the end of the file (a recorder's id, or a size no larger than
    /// the file: not noise that looks like a header), the refusal names a chunk.
    static func expectNamesLie(_ file: [UInt8], error: String) {
        guard let (_, chunks) = ChunkLayouts.walk(file), chunks.filter({ $0.id == "fmt " }).count == 1,
            chunks.filter({ $0.id == "data" }).count == 1,
            let index = chunks.firstIndex(where: { ($0.stated.map(Int.init) ?? 0) > $0.payload.count }),
            chunks[...index].allSatisfy({ ChunkLayouts.isPlausible($0.id) })
        else { return }
        // A format chunk that is itself implausible (a rate or channel count no recorder writes) is refused for that
        // first, with that reason.
        if let format = chunks.first(where: { $0.id == "fmt " }), format.payload.count >= 8 {
            let channels = Int(ChunkFile.integer(format.payload[2..<4], bigEndian: false))
            let rate = Int(ChunkFile.integer(format.payload[4..<8], bigEndian: false))
            guard (1...1_536_000).contains(rate), (1...1024).contains(channels) else { return }
        }
        let overrun = chunks[index]
        guard overrun.id != "data",
            ChunkLayouts.recorderIDs.contains(overrun.id) || Int(overrun.stated ?? 0) <= file.count
        else { return }
        if !error.contains("chunk (") { record(file, "unnamed") }
        #expect(error.contains("chunk ("), "a chunk stating more than the file holds, named: \(error)")
    }

    /// Keeps an input the oracle failed on, for the corpus once fixed.
    static func record(_ file: [UInt8], _ what: String) {
        let path = FileManager.default.temporaryDirectory.path + "/driftfix-fuzz-chunks-\(what)-\(file.hashValue).wav"
        FileManager.default.createFile(atPath: path, contents: Data(file))
    }

    /// Every compared chunk of the input is in the output, in order; byte for byte unless a repair edits it.
    static func compare(_ file: [UInt8], with output: String, warnings: [String]) {
        guard let (_, input) = ChunkLayouts.walk(file),
            let written = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: output))),
            let (_, out) = ChunkLayouts.walk(written)
        else {
            Issue.record("the output cannot be walked")
            return
        }
        // Zero bytes at the end are padding, no chunk.
        let expected = input.filter { !notCompared.contains($0.id) && $0.id != "\0\0\0\0" }
        let found = out.filter { !notCompared.contains($0.id) }
        if expected.map(\.id) != found.map(\.id) { record(file, "dropped") }
        #expect(
            expected.map(\.id) == found.map(\.id),
            "chunks in: \(expected.map(\.id)), out: \(found.map(\.id)); warnings: \(warnings)")
        for (a, b) in zip(expected, found) where !edited.contains(a.id) {
            let adtl = a.id == "LIST" && a.payload.starts(with: Array("adtl".utf8))
            if adtl { continue }  // its region lengths move with their points (an edit the docs list)
            #expect(a.payload == b.payload, "\(a.id): \(a.payload.count) bytes in, \(b.payload.count) out")
        }
    }
}
