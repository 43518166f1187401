import Foundation

/// A WAV, RF64 or AIFF file's chunks as a test reads them, written apart from driftfix's own reader: the form, then
/// each chunk's id and payload in file order (the audio's payload left out, its size kept).
public struct ChunkFile: Sendable {
    public struct Chunk: Sendable, Equatable {
        public var id: String
        public var payload: [UInt8]
        /// The payload's size as its header states (the audio's, whose payload is not kept).
        public var size: Int
    }

    /// `RIFF`, `RF64` or `FORM`, and `WAVE`, `AIFF` or `AIFC`.
    public var container: String
    public var form: String
    public var chunks: [Chunk]

    public init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count >= 12 else { throw ChunkFileError("\(path): shorter than a header") }
        container = String(decoding: bytes[0..<4], as: UTF8.self)
        form = String(decoding: bytes[8..<12], as: UTF8.self)
        let bigEndian = container == "FORM"
        var dataSize: UInt64?
        var offset = 12
        chunks = []
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            var size = Self.integer(bytes[(offset + 4)..<(offset + 8)], bigEndian: bigEndian)
            if id == "ds64" { dataSize = Self.integer(bytes[(offset + 16)..<(offset + 24)], bigEndian: false) }
            if id == "data", size == 0xFFFF_FFFF, let dataSize { size = dataSize }
            let start = offset + 8
            let end = start + Int(size)
            guard end <= bytes.count else { throw ChunkFileError("\(path): chunk \(id) runs past the end") }
            let isAudio = id == "data" || id == "SSND"
            chunks.append(Chunk(id: id, payload: isAudio ? [] : Array(bytes[start..<end]), size: Int(size)))
            offset = end + Int(size & 1)
        }
    }

    public var ids: [String] { chunks.map(\.id) }

    /// The first chunk with `id` (and, for `LIST`, this form type).
    public func chunk(_ id: String, list: String? = nil) -> Chunk? {
        chunks.first { $0.id == id && (list == nil || $0.payload.starts(with: Array(list?.utf8 ?? "".utf8))) }
    }

    // MARK: what the chunks say

    /// Cue points: id, position and sample offset.
    public var cuePoints: [(id: UInt32, position: UInt32, sampleOffset: UInt32)] {
        guard let cue = chunk("cue ")?.payload, cue.count >= 4 else { return [] }
        let count = Int(Self.integer(cue[0..<4], bigEndian: false))
        return (0..<count).compactMap { index in
            let start = 4 + 24 * index
            guard start + 24 <= cue.count else { return nil }
            return (
                UInt32(Self.integer(cue[start..<start + 4], bigEndian: false)),
                UInt32(Self.integer(cue[(start + 4)..<(start + 8)], bigEndian: false)),
                UInt32(Self.integer(cue[(start + 20)..<(start + 24)], bigEndian: false))
            )
        }
    }

    /// The `adtl` subchunks: id, cue point, and the rest.
    public var associatedData: [(id: String, cue: UInt32, rest: [UInt8])] {
        guard let list = chunk("LIST", list: "adtl")?.payload else { return [] }
        var result: [(String, UInt32, [UInt8])] = []
        var offset = 4
        while offset + 12 <= list.count {
            let id = String(decoding: list[offset..<offset + 4], as: UTF8.self)
            let size = Int(Self.integer(list[(offset + 4)..<(offset + 8)], bigEndian: false))
            guard offset + 8 + size <= list.count else { break }
            result.append(
                (
                    id, UInt32(Self.integer(list[(offset + 8)..<(offset + 12)], bigEndian: false)),
                    Array(list[(offset + 12)..<(offset + 8 + size)])
                ))
            offset += 8 + size + (size & 1)
        }
        return result
    }

    /// The `smpl` loops: start and inclusive end.
    public var loops: [(start: UInt32, end: UInt32)] {
        guard let smpl = chunk("smpl")?.payload, smpl.count >= 36 else { return [] }
        let count = Int(Self.integer(smpl[28..<32], bigEndian: false))
        return (0..<count).compactMap { index in
            let start = 36 + 24 * index
            guard start + 24 <= smpl.count else { return nil }
            return (
                UInt32(Self.integer(smpl[(start + 8)..<(start + 12)], bigEndian: false)),
                UInt32(Self.integer(smpl[(start + 12)..<(start + 16)], bigEndian: false))
            )
        }
    }

    /// AIFF markers: id, position, name.
    public var aiffMarkers: [(id: UInt16, position: UInt32, name: String)] {
        guard let mark = chunk("MARK")?.payload, mark.count >= 2 else { return [] }
        var result: [(UInt16, UInt32, String)] = []
        var offset = 2
        for _ in 0..<Int(Self.integer(mark[0..<2], bigEndian: true)) {
            guard offset + 7 <= mark.count else { break }
            let length = Int(mark[offset + 6])
            result.append(
                (
                    UInt16(Self.integer(mark[offset..<offset + 2], bigEndian: true)),
                    UInt32(Self.integer(mark[(offset + 2)..<(offset + 6)], bigEndian: true)),
                    String(decoding: mark[(offset + 7)..<(offset + 7 + length)], as: UTF8.self)
                ))
            offset += 7 + length + (length % 2 == 0 ? 1 : 0)
        }
        return result
    }

    /// The bext time reference.
    public var timeReference: UInt64? {
        guard let bext = chunk("bext")?.payload, bext.count >= 346 else { return nil }
        return Self.integer(bext[338..<346], bigEndian: false)
    }

    /// The bext coding history's text.
    public var codingHistory: String? {
        guard let bext = chunk("bext")?.payload, bext.count >= 602 else { return nil }
        return String(decoding: bext[602...].prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The iXML chunk's text.
    public var ixml: String? { chunk("iXML").map { String(decoding: $0.payload, as: UTF8.self) } }

    /// The text of every `<name>` element of the iXML chunk, in order (a plain search: elements driftfix writes and
    /// recorders write are not nested in themselves).
    public func ixmlValues(_ name: String) -> [String] {
        guard let text = ixml else { return [] }
        var values: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<\(name)>"),
            let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex)
        {
            values.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return values
    }

    /// Rewrites the WAV at `path` with `before` added after its chunks ahead of the audio and `after` at its end (a
    /// recorder's chunks given to a file another fixture wrote). Streamed through a file beside it, 8 MiB at a time:
    /// a recorder's day is gigabytes, and a single write of more than 2 GiB (Foundation's `Data.write`) left the
    /// bytes past 2^31 wrong.
    public static func insert(_ before: [(String, [UInt8])], after: [(String, [UInt8])] = [], into path: String) throws
    {
        guard let input = FileHandle(forReadingAtPath: path) else { throw ChunkFileError("\(path): cannot be read") }
        defer { try? input.close() }
        let total = Int(try input.seekToEnd())
        try input.seek(toOffset: 0)
        func read(_ count: Int) throws -> [UInt8] { [UInt8](try input.read(upToCount: count) ?? Data()) }
        let header = try read(12)
        guard header.count == 12, header.starts(with: Array("RIFF".utf8)) else {
            throw ChunkFileError("\(path): not a RIFF WAV")
        }
        let temporary = path + ".chunks"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let output = FileHandle(forWritingAtPath: temporary)
        else { throw ChunkFileError("\(temporary): cannot be written") }
        defer { try? output.close() }
        let added = (before + after).reduce(0) { $0 + ProductionWave.chunk($1.0, $1.1).count }
        let riffSize = total - 8 + added
        guard riffSize <= Int(UInt32.max) else { throw ChunkFileError("\(path): over 4 GiB with the chunks (RF64)") }
        try output.write(contentsOf: Data(Array("RIFF".utf8) + ProductionWave.le(UInt64(riffSize), 4) + header[8..<12]))
        var offset = 12
        while offset + 8 <= total {
            let chunkHeader = try read(8)
            guard chunkHeader.count == 8 else { break }
            let id = String(decoding: chunkHeader[0..<4], as: UTF8.self)
            let size = Int(integer(chunkHeader[4..<8], bigEndian: false))
            let end = min(total, offset + 8 + size + (size & 1))
            if id == "data" {
                for (id, payload) in before { try output.write(contentsOf: Data(ProductionWave.chunk(id, payload))) }
            }
            try output.write(contentsOf: Data(chunkHeader))
            var left = end - offset - 8
            while left > 0 {
                let block = try read(min(left, 8 << 20))
                guard !block.isEmpty else { throw ChunkFileError("\(path): ends inside its \(id) chunk") }
                try output.write(contentsOf: Data(block))
                left -= block.count
            }
            offset = end
        }
        for (id, payload) in after { try output.write(contentsOf: Data(ProductionWave.chunk(id, payload))) }
        try output.close()
        guard rename(temporary, path) == 0 else { throw ChunkFileError("\(path): cannot be replaced") }
    }

    public static func integer(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> UInt64 {
        let ordered = bigEndian ? Array(bytes) : Array(bytes.reversed())
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

public struct ChunkFileError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
