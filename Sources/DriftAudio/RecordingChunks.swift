import Glibc

/// The chunks a WAV, BWF, RF64/BW64 or AIFF recording holds besides its format and its audio, in the file's order and
/// byte for byte: iXML, markers, `bext`, `cart`, `axml`, `LIST`, ID3, a vendor's own. A repair writes them into its
/// output around the new format and audio chunks, in the same places (`ChunkedFileWriter`), changing only what the
/// repair changed (`RecordingChunks.retimed`).
///
/// What is never carried: the chunks the writer makes anew (`ds64`, `fact`, `FVER`), and the chunks that describe
/// the samples themselves, which the repair replaces (`PEAK`, `levl`, an `MD5 ` of the audio); those are listed in
/// `notCarried` with the reason.
public struct RecordingChunks: Sendable, Equatable {
    /// How the chunks are framed.
    public enum Family: Sendable, Equatable {
        /// RIFF WAVE and RF64/BW64: little-endian sizes.
        case riff
        /// IFF AIFF/AIFC: big-endian sizes.
        case aiff
    }

    /// One place in the file's order.
    public enum Item: Sendable, Equatable {
        /// Where the format chunk (`fmt `, `COMM`) was.
        case format
        /// Where the audio (`data`, `SSND`) was.
        case audio
        case chunk(Chunk)
    }

    /// A chunk carried: its id and its payload (without the 8-byte header and the pad byte).
    public struct Chunk: Sendable, Equatable {
        public var id: String
        public var payload: Payload

        public init(id: String, bytes: [UInt8]) {
            self.id = id
            payload = .bytes(bytes)
        }

        init(id: String, payload: Payload) {
            self.id = id
            self.payload = payload
        }

        /// The payload's bytes when they are in memory (every chunk a repair may change is).
        public var bytes: [UInt8]? {
            if case .bytes(let bytes) = payload { return bytes }
            return nil
        }

        /// A `LIST` chunk's form type (`INFO`, `adtl`), else nil.
        public var listType: String? {
            guard id == "LIST", let bytes, bytes.count >= 4 else { return nil }
            return String(decoding: bytes[0..<4], as: UTF8.self)
        }

        public var size: Int64 {
            switch payload {
            case .bytes(let bytes): return Int64(bytes.count)
            case .file(_, _, let size): return size
            }
        }
    }

    /// A payload in memory, or a range of the recording copied when the output is written (a large chunk nothing
    /// changes: memory stays flat whatever its size).
    public enum Payload: Sendable, Equatable {
        case bytes([UInt8])
        case file(ChunkSource, offset: Int64, size: Int64)
    }

    public let family: Family
    /// `AIFF` or `AIFC` (the IFF form), `WAVE` for RIFF.
    public let form: String
    /// The recording's format chunk payload, written back unchanged when the output's format is the recording's.
    public let formatChunk: [UInt8]
    public var items: [Item]
    /// Chunks of the recording left out, each with the reason (`PEAK: its values describe the samples before the
    /// repair`).
    public var notCarried: [String]
    /// Chunks a repair would edit that are carried unedited, byte for byte, each with the reason (a 17 MiB iXML:
    /// more than a repair edits). A chunk is never dropped for its size.
    public var carriedUnedited: [String] = []
    /// Whether the recording was RF64/BW64 (its `ds64` made anew in an RF64 output; a `JUNK` after it stays).
    public var wasRF64 = false

    /// The chunks carried, in order.
    public var chunks: [Chunk] {
        items.compactMap { if case .chunk(let chunk) = $0 { return chunk } else { return nil } }
    }

    /// The first chunk with `id` (and, for `LIST`, `listType`).
    public func first(_ id: String, listType: String? = nil) -> Chunk? {
        chunks.first { $0.id == id && (listType == nil || $0.listType == listType) }
    }

    /// Replaces every chunk by what `change` makes of it (nil leaves it out).
    mutating func update(_ change: (Chunk) -> Chunk?) {
        items = items.compactMap { item in
            guard case .chunk(let chunk) = item else { return item }
            return change(chunk).map(Item.chunk)
        }
    }

    /// Chunks whose payload is loaded into memory, because a repair may change them, up to this size each.
    static let editableLimit: Int64 = 16 << 20
    /// Other chunks up to this size are loaded too; larger ones are copied from the recording when written.
    static let inlineLimit: Int64 = 256 << 10

    /// Chunks a repair writes anew.
    static let rewritten: Set<String> = ["ds64", "fact", "FVER"]
    /// Chunks that describe the audio's samples, which a repair replaces, and why each is left out.
    static let describesSamples: [String: String] = [
        "PEAK": "its peak values describe the samples before the repair",
        "levl": "its peak envelope describes the samples before the repair",
        "MD5 ": "its checksum is of the samples before the repair",
        "md5 ": "its checksum is of the samples before the repair",
    ]
    /// Chunks that only reserve space.
    static let filler: Set<String> = ["JUNK", "junk", "PAD ", "FLLR", "filr"]
    /// Chunks a repair may change (loaded whatever their size up to `editableLimit`).
    static let editable: Set<String> = ["bext", "iXML", "cue ", "LIST", "smpl", "plst", "MARK"]

    /// The chunks of the file `layout` describes, read through `descriptor` (which stays the caller's); nil for a
    /// layout this does not carry from (CAF, big-endian RIFX) or a header it cannot read.
    static func read(layout: ContainerLayout, descriptor: Int32) -> RecordingChunks? {
        let family: Family
        let formatID: String
        let audioID: String
        switch layout.family {
        case .riff(bigEndian: false), .rf64: (family, formatID, audioID) = (.riff, "fmt ", "data")
        case .aiff: (family, formatID, audioID) = (.aiff, "COMM", "SSND")
        case .riff(bigEndian: true), .caf: return nil
        }
        let file = DescriptorBytes(descriptor: descriptor, size: layout.fileSize)
        guard let head = file.bytes(at: 8, count: 4) else { return nil }
        var items: [Item] = []
        var notCarried: [String] = []
        var carriedUnedited: [String] = []
        var formatChunk: [UInt8]?
        var sawAudio = false
        var source: ChunkSource?
        for chunk in layout.chunks {
            switch chunk.id {
            case formatID:
                guard formatChunk == nil, let bytes = file.bytes(at: chunk.offset, count: Int(min(chunk.size, 4096)))
                else { continue }
                formatChunk = bytes
                items.append(.format)
            case audioID:
                guard !sawAudio else {
                    notCarried.append(
                        "\(chunk.id): a second audio chunk (\(chunk.size) bytes), not the recording's audio: left out")
                    continue
                }
                sawAudio = true
                items.append(.audio)
            default:
                if rewritten.contains(chunk.id) { continue }
                if let why = describesSamples[chunk.id] {
                    notCarried.append("\(chunk.id.trimmingCharacters(in: .whitespaces)): \(why)")
                    continue
                }
                // A chunk that runs past the end of the file (a last chunk cut short) is not one to copy.
                let available = min(chunk.size, layout.fileSize - chunk.offset)
                guard available == chunk.size else {
                    notCarried.append("\(chunk.id): cut short (states \(chunk.size) bytes, \(available) remain)")
                    continue
                }
                let limit = editable.contains(chunk.id) ? editableLimit : inlineLimit
                if chunk.size <= limit {
                    guard let bytes = file.bytes(at: chunk.offset, count: Int(chunk.size)) else { return nil }
                    items.append(.chunk(Chunk(id: chunk.id, bytes: bytes)))
                } else {
                    // Copied from the recording when written: memory stays flat whatever its size. A chunk a repair
                    // would edit goes as it was, and says so.
                    if editable.contains(chunk.id) {
                        carriedUnedited.append(
                            "\(chunk.id): \(chunk.size) bytes, more than a repair edits: carried unedited, byte for byte "
                                + "(its times are the recording's)")
                    }
                    if source == nil { source = ChunkSource(duplicating: descriptor) }
                    guard let source else { return nil }
                    items.append(
                        .chunk(Chunk(id: chunk.id, payload: .file(source, offset: chunk.offset, size: chunk.size))))
                }
            }
        }
        guard let formatChunk, sawAudio else { return nil }
        var chunks = RecordingChunks(
            family: family, form: String(decoding: head, as: UTF8.self), formatChunk: formatChunk, items: items,
            notCarried: notCarried)
        chunks.carriedUnedited = carriedUnedited
        chunks.wasRF64 = layout.family == .rf64
        return chunks
    }
}

/// A recording's descriptor, kept open while its large chunks wait to be copied into the output. Reads are `pread`s
/// (they move no shared offset), so threads may share it.
public final class ChunkSource: Sendable, Equatable {
    let descriptor: Int32

    init?(duplicating descriptor: Int32) {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        self.descriptor = copy
    }

    deinit {
        close(descriptor)
    }

    public static func == (a: ChunkSource, b: ChunkSource) -> Bool { a === b }
}
