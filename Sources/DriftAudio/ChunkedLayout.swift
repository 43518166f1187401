import DriftCore
import Glibc

/// The container of a WAV, RF64 or AIFF output that carries its recording's chunks: driftfix lays it out itself, in
/// the recording's order - its chunks before the audio stay before it, those after stay after - with the format
/// chunk, the audio and the sizes made for the output. The samples in between are converted by libsndfile as headerless
/// RAW audio (`OutputWindow`), so every encoding keeps libsndfile's arithmetic.
///
/// The format chunk is the recording's own, byte for byte, where the output's format is the recording's (only a new
/// sample rate is written into it); otherwise a plain one is made. RF64 gets its `ds64` first; a float or companded
/// WAV its `fact`; AIFC its `FVER`.
struct ChunkedLayout {
    let family: RecordingChunks.Family
    let isRF64: Bool
    /// Whether the samples are stored most significant byte first.
    let bigEndianSamples: Bool
    /// File offset of the first audio byte.
    private(set) var dataOffset: Int64 = 0
    private let header: [Piece]
    private let trailer: [Piece]
    /// Where the sizes and counts known only at the end are written.
    private var patches = Patches()

    private enum Piece {
        case bytes([UInt8])
        case file(ChunkSource, offset: Int64, size: Int64)
        /// Marks the next piece's offset as a patch point.
        case mark(WritableKeyPath<Patches, Int64?>)
        /// Marks where the payload of the `index`th carried chunk begins.
        case payload(Int)

        var size: Int64 {
            switch self {
            case .bytes(let bytes): return Int64(bytes.count)
            case .file(_, _, let size): return size
            case .mark, .payload: return 0
            }
        }
    }

    /// The carried chunks as written, in order, with their payloads' offsets (a rewrite puts changed values there).
    private var carried: [RecordingChunks.Chunk]
    private var payloadOffsets: [Int: Int64] = [:]

    private struct Patches {
        var riffSize: Int64? = 4
        var ds64: Int64?
        var dataSize: Int64?
        var factFrames: Int64?
        var commFrames: Int64?
    }

    /// The layout for `format` around `chunks`; nil where this writer does not write that format (another family,
    /// an encoding stored in blocks such as ADPCM): libsndfile then writes the file, without the chunks.
    init?(chunks: RecordingChunks, format: AudioFormat, channelMask: UInt32?) {
        guard let format = Self.formatChunk(chunks, format: format, channelMask: channelMask) else { return nil }
        family = chunks.family
        self.isRF64 = format.rf64
        bigEndianSamples = format.bigEndian
        let bigEndian = family == .aiff
        let isRF64 = format.rf64
        var header = Self.opening(family: family, format: format)
        var trailer: [Piece] = []
        var carried: [RecordingChunks.Chunk] = []
        func framed(_ chunk: RecordingChunks.Chunk) -> [Piece] {
            defer { carried.append(chunk) }
            return Self.framed(chunk, index: carried.count, bigEndian: bigEndian)
        }
        var items = chunks.items
        // A WAV's JUNK reserved for a ds64 (EBU Tech 3306) becomes the ds64 of its RF64 output; an RF64 recording's
        // JUNK is filler of its own and stays.
        if isRF64, !chunks.wasRF64, case .chunk(let first)? = items.first, ["JUNK", "junk"].contains(first.id),
            first.size == 28
        {
            items.removeFirst()
        }
        var wroteFormat = false
        var afterAudio = false
        let formatPieces: [Piece] =
            family == .riff
            ? [.bytes(ChunkBytes.framed("fmt ", format.payload, bigEndian: false))]
                + (format.needsFact
                    ? [.mark(\.factFrames), .bytes(ChunkBytes.framed("fact", [0, 0, 0, 0], bigEndian: false))] : [])
            : [.mark(\.commFrames), .bytes(ChunkBytes.framed("COMM", format.payload, bigEndian: true))]
        for item in items {
            switch item {
            case .format:
                // A format chunk after the audio (seen in damaged files) is not where readers look: it went before.
                guard !wroteFormat else { continue }
                header += formatPieces
                wroteFormat = true
            case .audio:
                if !wroteFormat {
                    header += formatPieces
                    wroteFormat = true
                }
                afterAudio = true
            case .chunk(let chunk):
                if afterAudio { trailer += framed(chunk) } else { header += framed(chunk) }
            }
        }
        switch family {
        case .riff:
            header += [.mark(\.dataSize), .bytes(Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF])]
        case .aiff:
            // SSND's offset and block size (0, 0) precede the samples.
            header += [.mark(\.dataSize), .bytes(Array("SSND".utf8) + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8))]
        }
        self.header = header
        self.trailer = trailer
        self.carried = carried
    }

    /// The file's first pieces: the RIFF/RF64 or FORM header, then RF64's ds64 or AIFC's FVER.
    private static func opening(family: RecordingChunks.Family, format: FormatChunk) -> [Piece] {
        var header: [Piece] = []
        switch family {
        case .riff:
            header.append(
                .bytes(Array((format.rf64 ? "RF64" : "RIFF").utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WAVE".utf8)))
            if format.rf64 {
                header += [
                    .mark(\.ds64),
                    .bytes(ChunkBytes.framed("ds64", [UInt8](repeating: 0, count: 28), bigEndian: false)),
                ]
            }
        case .aiff:
            header.append(.bytes(Array("FORM".utf8) + [0, 0, 0, 0] + Array(format.form.utf8)))
            if format.form == "AIFC" {
                header.append(.bytes(ChunkBytes.framed("FVER", [0xA2, 0x80, 0x51, 0x40], bigEndian: true)))
            }
        }
        return header
    }

    /// A carried chunk's pieces: its id and size, a mark where its payload begins (the `index`th carried), its
    /// payload, and its pad byte.
    private static func framed(_ chunk: RecordingChunks.Chunk, index: Int, bigEndian: Bool) -> [Piece] {
        // Byte for byte, its pad byte after it, as RIFF lays it out (RF64 too: libsndfile's RF64 reader, which does
        // not skip a pad byte, reads such a file through `LayoutView`).
        let odd = chunk.size % 2 == 1
        let size = UInt64(chunk.size)
        let head = Array(chunk.id.utf8) + ChunkBytes.encode(size, width: 4, bigEndian: bigEndian)
        let pad: [Piece] = odd ? [.bytes([0])] : []
        let start: [Piece] = [.bytes(head), .payload(index)]
        switch chunk.payload {
        case .bytes(let bytes): return start + [.bytes(bytes)] + pad
        case .file(let source, let offset, let size):
            return start + [.file(source, offset: offset, size: size)] + pad
        }
    }

    /// The carried chunks the RF64 ds64 or nothing replaced, dropped as `init` dropped them.
    private func written(_ chunks: RecordingChunks) -> [RecordingChunks.Chunk] {
        var list = chunks.chunks
        if list.count == carried.count + 1, let first = list.first, ["JUNK", "junk"].contains(first.id) {
            list.removeFirst()
        }
        return list
    }

    /// Writes the payloads of `chunks` that differ from what was written over it, where the size is the same (a
    /// marker's new position); returns the ids of those whose size changed, which keep what was first written.
    mutating func rewrite(_ chunks: RecordingChunks, descriptor: Int32) -> [String] {
        let list = written(chunks)
        guard list.count == carried.count else { return list.map(\.id) }
        var kept: [String] = []
        for (index, (old, new)) in zip(carried, list).enumerated() where old != new {
            guard old.id == new.id, old.size == new.size, let bytes = new.bytes, let offset = payloadOffsets[index],
                PositionedIO.write(descriptor, bytes, at: offset)
            else {
                kept.append(old.id)
                continue
            }
            carried[index] = new
        }
        return kept
    }

    /// Writes everything before the audio into `descriptor` from offset 0.
    mutating func writeHeader(to descriptor: Int32) -> Bool {
        guard let end = write(header, to: descriptor, at: 0) else { return false }
        dataOffset = end
        return true
    }

    /// Writes what follows `dataBytes` bytes of audio (a pad byte, the chunks that came after the audio) and every
    /// size and count; returns the file's size, nil on a failed write, or throws where the sizes do not fit the
    /// container (a WAV or AIFF past 4 GiB).
    mutating func finish(
        _ descriptor: Int32, dataBytes: Int64, frames: Int64, path: String
    ) throws(AudioError) -> Int64? {
        var end = dataOffset + dataBytes
        if dataBytes % 2 == 1 {
            guard PositionedIO.write(descriptor, [0], at: end) else { return nil }
            end += 1
        }
        let trailerStart = end
        guard let fileEnd = write(trailer, to: descriptor, at: trailerStart) else { return nil }
        let bigEndian = family == .aiff
        func put(_ value: UInt64, width: Int, at offset: Int64?) -> Bool {
            guard let offset else { return true }
            return PositionedIO.write(
                descriptor, ChunkBytes.encode(value, width: width, bigEndian: bigEndian), at: offset)
        }
        let limit = Int64(UInt32.max)
        if !isRF64 && (fileEnd - 8 > limit || frames > limit) {
            throw AudioError(
                path: path,
                cause: .writeFailed(
                    "\(fileEnd) bytes do not fit a \(family == .riff ? "WAV" : "AIFF")'s 32-bit sizes"))
        }
        var ok = true
        if isRF64, let ds64 = patches.ds64 {
            // ds64: RIFF size, data size, sample count (64-bit each), then an empty table.
            ok = ok && put(UInt64(fileEnd - 8), width: 8, at: ds64 + 8)
            ok = ok && put(UInt64(dataBytes), width: 8, at: ds64 + 16)
            ok = ok && put(UInt64(frames), width: 8, at: ds64 + 24)
        } else {
            ok = ok && put(UInt64(fileEnd - 8), width: 4, at: patches.riffSize)
            let dataSize = family == .riff ? dataBytes : dataBytes + 8
            ok = ok && put(UInt64(dataSize), width: 4, at: patches.dataSize.map { $0 + 4 })
        }
        ok = ok && put(UInt64(min(frames, limit)), width: 4, at: patches.factFrames.map { $0 + 8 })
        ok = ok && put(UInt64(min(frames, limit)), width: 4, at: patches.commFrames.map { $0 + 10 })
        return ok ? fileEnd : nil
    }

    /// Writes `pieces` from `offset`, noting patch points; the offset after them, nil on a failed write.
    private mutating func write(_ pieces: [Piece], to descriptor: Int32, at offset: Int64) -> Int64? {
        var position = offset
        for piece in pieces {
            switch piece {
            case .mark(let key):
                patches[keyPath: key] = position
            case .payload(let index):
                payloadOffsets[index] = position
            case .bytes(let bytes):
                guard PositionedIO.write(descriptor, bytes, at: position) else { return nil }
            case .file(let source, let from, let size):
                guard Self.copy(source.descriptor, from: from, size: size, to: descriptor, at: position) else {
                    return nil
                }
            }
            position += piece.size
        }
        return position
    }

    /// Copies `size` bytes between descriptors, a megabyte at a time.
    private static func copy(_ source: Int32, from: Int64, size: Int64, to target: Int32, at: Int64) -> Bool {
        let block = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: block, alignment: 16)
        defer { buffer.deallocate() }
        var done: Int64 = 0
        while done < size {
            let count = Int(min(Int64(block), size - done))
            guard PositionedIO.read(source, into: buffer, count: count, at: from + done),
                PositionedIO.write(target, from: buffer, count: count, at: at + done)
            else { return false }
            done += Int64(count)
        }
        return true
    }
}
