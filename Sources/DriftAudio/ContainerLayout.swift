/// Random access to a file's bytes for header parsing; nil where the file ends before `count` bytes.
protocol ByteReading {
    var size: Int64 { get }
    func bytes(at offset: Int64, count: Int) -> [UInt8]?
}

/// The chunk structure of a WAV (RIFF, RIFX, RF64/BW64), AIFF/AIFC or CAF file, walked from its own bytes, and
/// what it says about the audio data: whether the data chunk's size accounts for every byte that follows it.
///
/// libsndfile believes the data size a header states. Two real families of files lie low: tools that wrap the 32-bit
/// RIFF sizes past 4 GiB (a 10-hour file reads as 3 h 47 min), and files whose data size is simply too small (audio
/// follows that no chunk accounts for). Both would be "repaired" short with nothing said. The walker tells them from
/// legitimate trailing chunks (LIST, id3, iXML, axml, ... after the data): after the data chunk, chunks with
/// printable ids must follow back to back up to the end of the file (a pad byte, or up to 64 KiB of zero padding, may
/// end it). When they do not, a wrapped size is recognised when the bytes that follow fit `claimed + k × 2³²`: the
/// true data size is then the one after which the rest of the file is such a chain again.
struct ContainerLayout: Equatable, Sendable {
    enum Family: Equatable, Sendable {
        /// WAV with 32-bit sizes; RIFX is its big-endian twin.
        case riff(bigEndian: Bool)
        /// RF64 or BW64: 64-bit sizes in a `ds64` chunk.
        case rf64
        case aiff(compressed: Bool)
        case caf
    }

    /// What the data chunk's size says about the file.
    enum Verdict: Equatable, Sendable {
        /// Every byte after the data is accounted for.
        case consistent
        /// The data chunk claims more than the file holds.
        case truncated(availableBytes: Int64)
        /// A 32-bit size wrapped past 4 GiB: the data really holds `trueBytes`.
        case wrapped(trueBytes: Int64)
        /// The data size is too small: `followingBytes` after it belong to no chunk.
        case hidden(followingBytes: Int64)
        /// A chunk after the data states more bytes than the file holds (`available` remain after its header): cut
        /// short, or a size that lies.
        case cutShort(Chunk, available: Int64)
    }

    let family: Family
    /// File offset of the first audio byte.
    let dataOffset: Int64
    /// The data size the header states.
    let claimedDataBytes: Int64
    let verdict: Verdict
    /// Chunks after the data, by id (legitimate trailing metadata).
    var trailingChunks: [String] { chunks.filter { $0.offset > dataOffset }.map(\.id) }
    /// Every chunk walked (WAV and AIFF), with the offset and size of its payload; the data chunk as stated.
    let chunks: [Chunk]
    /// The file's size in bytes.
    let fileSize: Int64
    /// Byte order of the samples where the walker can tell (PCM and float encodings), else nil.
    let sampleByteOrder: SampleByteOrder?
    /// Channels × bytes per sample for plain sample encodings, from the format chunk.
    let blockAlign: Int64?
    /// WAVE_FORMAT_EXTENSIBLE's speaker mask and its file offset, when the format chunk has one.
    let channelMask: UInt32?
    let channelMaskOffset: Int64?
    /// The `bext` chunk's payload: offset and size.
    let broadcastChunk: (offset: Int64, size: Int64)?

    enum SampleByteOrder: Equatable, Sendable { case little, big }

    struct Chunk: Equatable, Sendable {
        let id: String
        /// File offset of the payload (after the 8-byte header).
        let offset: Int64
        let size: Int64
    }

    /// The data size the audio really has: the true size of a wrapped header, else the stated one.
    var dataBytes: Int64 {
        if case .wrapped(let trueBytes) = verdict { return trueBytes }
        return claimedDataBytes
    }

    static func == (a: ContainerLayout, b: ContainerLayout) -> Bool {
        a.family == b.family && a.dataOffset == b.dataOffset && a.claimedDataBytes == b.claimedDataBytes
            && a.verdict == b.verdict && a.chunks == b.chunks && a.channelMask == b.channelMask
            && a.broadcastChunk?.offset == b.broadcastChunk?.offset && a.broadcastChunk?.size == b.broadcastChunk?.size
    }

    /// Chunk ids recorders and editors write, after the audio too: one of these that runs past the end of the file
    /// is a chunk cut short whatever its size.
    static let knownTrailingIDs: Set<String> = [
        "LIST", "iXML", "bext", "axml", "cart", "cue ", "smpl", "plst", "inst", "id3 ", "ID3 ", "_PMX", "chna", "umid",
        "PEAK", "levl", "JUNK", "junk", "PAD ", "FLLR", "fact", "acid", "strc", "regn", "DISP", "MD5 ", "r64m",
    ]

    /// Trailing zero bytes up to this size are padding (some recorders fill to a sector or cluster boundary).
    static let paddingLimit = 64 * 1024

    /// The modulus 32-bit sizes wrap at. Tests lower it to build wrapped files of a few megabytes that take the same
    /// path as real ones past 4 GiB.
    @TaskLocal static var wrapModulus: Int64 = 1 << 32

    /// Walks `file`; nil when it is not one of the families above (libsndfile's own checks then apply alone) or its
    /// header is too damaged to find a data chunk (libsndfile then refuses it with its own words).
    static func read(_ file: some ByteReading) -> ContainerLayout? {
        guard let head = file.bytes(at: 0, count: 12) else { return nil }
        let magic = String(decoding: head[0..<4], as: UTF8.self)
        let form = String(decoding: head[8..<12], as: UTF8.self)
        switch (magic, form) {
        case ("RIFF", "WAVE"): return walkRIFF(file, family: .riff(bigEndian: false))
        case ("RIFX", "WAVE"): return walkRIFF(file, family: .riff(bigEndian: true))
        case ("RF64", "WAVE"), ("BW64", "WAVE"): return walkRIFF(file, family: .rf64)
        case ("FORM", "AIFF"): return walkAIFF(file, compressed: false)
        case ("FORM", "AIFC"): return walkAIFF(file, compressed: true)
        default:
            if magic == "caff" { return walkCAF(file) }
            return nil
        }
    }

    // MARK: RIFF

    private static func walkRIFF(_ file: some ByteReading, family: Family) -> ContainerLayout? {
        let bigEndian = family == .riff(bigEndian: true)
        guard let head = file.bytes(at: 4, count: 4) else { return nil }
        let riffSize = Int64(integer(head[0..<4], bigEndian: bigEndian))
        var ds64DataSize: Int64?
        var formatTag: UInt16 = 0
        var blockAlign: Int64?
        var bitsPerSample = 0
        var channelMask: UInt32?
        var channelMaskOffset: Int64?
        var broadcast: (Int64, Int64)?
        return walkChunks(file, bigEndian: bigEndian) { chunk, chunks in
            let (payload, size) = (chunk.offset, chunk.size)
            switch chunk.id {
            case "ds64":
                if let body = file.bytes(at: payload, count: 16) {
                    ds64DataSize = Int64(truncatingIfNeeded: integer(body[8..<16], bigEndian: false))
                }
            case "fmt ":
                if let body = file.bytes(at: payload, count: Int(min(size, 40))), body.count >= 16 {
                    formatTag = UInt16(integer(body[0..<2], bigEndian: bigEndian))
                    blockAlign = Int64(integer(body[12..<14], bigEndian: bigEndian))
                    bitsPerSample = Int(integer(body[14..<16], bigEndian: bigEndian))
                    if formatTag == 0xFFFE, body.count >= 40 {
                        channelMask = UInt32(integer(body[20..<24], bigEndian: bigEndian))
                        channelMaskOffset = payload + 20
                        formatTag = UInt16(integer(body[24..<26], bigEndian: bigEndian))  // the sub-format GUID's tag
                    }
                }
            case "bext":
                broadcast = (payload, size)
            case "data":
                var claimed = size
                if family == .rf64 && size == 0xFFFF_FFFF { claimed = ds64DataSize ?? size }
                // libsndfile reads a never-finalised stream header (data size 0, RIFF size 8) to the end of the file.
                if family != .rf64 && claimed == 0 && riffSize == 8 { claimed = file.size - payload }
                let order: SampleByteOrder? =
                    [1, 3, 6, 7].contains(formatTag) && bitsPerSample > 0
                    ? (bigEndian ? .big : .little) : nil
                let (verdict, trailing) = judge(
                    file, dataOffset: payload, claimed: claimed, blockAlign: blockAlign ?? 1,
                    wraps: family != .rf64, bigEndian: bigEndian)
                return ContainerLayout(
                    family: family, dataOffset: payload, claimedDataBytes: claimed, verdict: verdict,
                    chunks: chunks + trailing.chunks, fileSize: file.size, sampleByteOrder: order,
                    blockAlign: order == nil ? nil : blockAlign, channelMask: channelMask,
                    channelMaskOffset: channelMaskOffset, broadcastChunk: broadcast ?? trailing.broadcast)
            default:
                break
            }
            return nil
        }
    }

    /// Calls `visit` with each chunk from offset 12 on (RIFF and IFF: a four-character id and a 32-bit size, padded
    /// to an even length), and the chunks so far, until it returns a layout; nil when the chunks run out or an id is
    /// not one.
    private static func walkChunks(
        _ file: some ByteReading, bigEndian: Bool,
        _ visit: (Chunk, [Chunk]) -> ContainerLayout?
    ) -> ContainerLayout? {
        var position: Int64 = 12
        var chunks: [Chunk] = []
        while position + 8 <= file.size, let header = file.bytes(at: position, count: 8) {
            guard isPlausibleID(header[0..<4]) else { return nil }
            let chunk = Chunk(
                id: String(decoding: header[0..<4], as: UTF8.self), offset: position + 8,
                size: Int64(integer(header[4..<8], bigEndian: bigEndian)))
            chunks.append(chunk)
            if let layout = visit(chunk, chunks) { return layout }
            position = chunk.offset + chunk.size + (chunk.size & 1)
        }
        return nil
    }

    // MARK: AIFF

    private static func walkAIFF(_ file: some ByteReading, compressed: Bool) -> ContainerLayout? {
        var order: SampleByteOrder? = compressed ? nil : .big
        var blockAlign: Int64?
        return walkChunks(file, bigEndian: true) { chunk, chunks in
            let (payload, size) = (chunk.offset, chunk.size)
            switch chunk.id {
            case "COMM":
                if let body = file.bytes(at: payload, count: Int(min(size, 22))), body.count >= 8 {
                    let channels = Int64(integer(body[0..<2], bigEndian: true))
                    let bits = Int64(integer(body[6..<8], bigEndian: true))
                    blockAlign = channels * ((bits + 7) / 8)
                    if compressed, body.count >= 22 {
                        switch String(decoding: body[18..<22], as: UTF8.self) {
                        case "NONE", "twos", "fl32", "FL32", "fl64", "FL64", "in24", "in32": order = .big
                        case "sowt", "23ni", "42ni": order = .little
                        default: order = nil
                        }
                    }
                }
            case "SSND":
                // An offset and a block size precede the samples.
                guard let body = file.bytes(at: payload, count: 8) else { return nil }
                let skip = Int64(integer(body[0..<4], bigEndian: true))
                let claimed = max(0, size - 8 - skip)
                let dataOffset = payload + 8 + skip
                let (verdict, trailing) = judge(
                    file, dataOffset: dataOffset, claimed: claimed, blockAlign: blockAlign ?? 1,
                    wraps: true, bigEndian: true)
                return ContainerLayout(
                    family: .aiff(compressed: compressed), dataOffset: dataOffset, claimedDataBytes: claimed,
                    verdict: verdict, chunks: chunks + trailing.chunks, fileSize: file.size, sampleByteOrder: order,
                    blockAlign: order == nil ? nil : blockAlign, channelMask: nil, channelMaskOffset: nil,
                    broadcastChunk: nil)
            default:
                break
            }
            return nil
        }
    }

    // MARK: CAF

    private static func walkCAF(_ file: some ByteReading) -> ContainerLayout? {
        var position: Int64 = 8
        while position + 12 <= file.size, let header = file.bytes(at: position, count: 12) {
            guard isPlausibleID(header[0..<4]) else { return nil }
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let size = Int64(truncatingIfNeeded: integer(header[4..<12], bigEndian: true))
            let payload = position + 12
            if id == "data" {
                // An edit count precedes the audio; a size of -1 means "to the end of the file".
                let dataOffset = payload + 4
                let claimed = size < 0 ? file.size - dataOffset : max(0, size - 4)
                let (verdict, trailing) = cafTail(file, dataOffset: dataOffset, claimed: claimed)
                return ContainerLayout(
                    family: .caf, dataOffset: dataOffset, claimedDataBytes: claimed, verdict: verdict,
                    chunks: trailing, fileSize: file.size, sampleByteOrder: nil, blockAlign: nil, channelMask: nil,
                    channelMaskOffset: nil, broadcastChunk: nil)
            }
            guard size >= 0 else { return nil }
            position = payload + size
        }
        return nil
    }

    private static func cafTail(_ file: some ByteReading, dataOffset: Int64, claimed: Int64) -> (Verdict, [Chunk]) {
        let end = dataOffset + claimed
        if end > file.size { return (.truncated(availableBytes: file.size - dataOffset), []) }
        var position = end
        var ids: [Chunk] = []
        while position < file.size {
            guard file.size - position >= 12, let header = file.bytes(at: position, count: 12),
                isPlausibleID(header[0..<4])
            else {
                return isPadding(file, from: position)
                    ? (.consistent, ids) : (.hidden(followingBytes: file.size - end), ids)
            }
            let size = Int64(truncatingIfNeeded: integer(header[4..<12], bigEndian: true))
            guard size >= 0, position + 12 + size <= file.size else {
                return (.hidden(followingBytes: file.size - end), ids)
            }
            ids.append(Chunk(id: String(decoding: header[0..<4], as: UTF8.self), offset: position + 12, size: size))
            position += 12 + size
        }
        return (.consistent, ids)
    }

    // MARK: the bytes after the data

    private struct Trailing {
        var chunks: [Chunk] = []
        var broadcast: (Int64, Int64)?
    }

    /// Decides what the bytes after a data chunk of `claimed` bytes at `dataOffset` are.
    private static func judge(
        _ file: some ByteReading, dataOffset: Int64, claimed: Int64, blockAlign: Int64, wraps: Bool,
        bigEndian: Bool
    ) -> (Verdict, Trailing) {
        let end = dataOffset + claimed
        if end > file.size { return (.truncated(availableBytes: file.size - dataOffset), Trailing()) }
        if let trailing = chain(file, from: end, odd: claimed & 1 == 1, bigEndian: bigEndian) {
            return (.consistent, trailing)
        }
        if wraps {
            let modulus = wrapModulus
            var candidates: [(Int64, Trailing)] = []
            var size = claimed + modulus
            while dataOffset + size <= file.size && candidates.count < 2 {
                if size % max(blockAlign, 1) == 0,
                    let trailing = chain(file, from: dataOffset + size, odd: size & 1 == 1, bigEndian: bigEndian)
                {
                    candidates.append((size, trailing))
                }
                size += modulus
            }
            if candidates.count == 1, let (trueBytes, trailing) = candidates.first {
                return (.wrapped(trueBytes: trueBytes), trailing)
            }
        }
        // A plausible chunk after the data that states more than the file holds: named, not taken for audio.
        if let (chunk, available) = cutShortChunk(file, from: end, odd: claimed & 1 == 1, bigEndian: bigEndian) {
            return (.cutShort(chunk, available: available), Trailing())
        }
        return (.hidden(followingBytes: file.size - end), Trailing())
    }

    /// The first chunk of a chain from `start` that is whole up to a chunk whose size runs past the end of the file:
    /// that chunk and the bytes left after its header; nil where the chain breaks otherwise (audio that no chunk
    /// accounts for).
    private static func cutShortChunk(_ file: some ByteReading, from start: Int64, odd: Bool, bigEndian: Bool)
        -> (Chunk, Int64)?
    {
        for first in odd ? [start + 1, start] : [start] {
            var position = first
            while file.size - position >= 8, let header = file.bytes(at: position, count: 8),
                isPlausibleID(header[0..<4])
            {
                let size = Int64(integer(header[4..<8], bigEndian: bigEndian))
                let id = String(decoding: header[0..<4], as: UTF8.self)
                if position + 8 + size > file.size {
                    // A size larger than the whole file, for an id no writer uses, is text or noise that only looks
                    // like a chunk header.
                    guard size <= file.size || knownTrailingIDs.contains(id) else { return nil }
                    return (Chunk(id: id, offset: position + 8, size: size), file.size - position - 8)
                }
                position += 8 + size + (size & 1)
            }
        }
        return nil
    }

    /// Where a RIFF/RF64 file's chunks break before its audio is found (a chunk whose size runs past the end of the
    /// file, which a reader that believes it never gets past): that chunk and what is wrong; nil when they do not (or
    /// the file is no RIFF).
    static func brokenChunk(_ file: some ByteReading) -> MalformedChunk? {
        guard let head = file.bytes(at: 0, count: 12),
            ["RIFF", "RF64", "BW64", "RIFX"].contains(String(decoding: head[0..<4], as: UTF8.self)),
            head[8..<12] == Array("WAVE".utf8)[...]
        else { return nil }
        let bigEndian = head[0..<4] == Array("RIFX".utf8)[...]
        var position: Int64 = 12
        var previous: (id: String, size: Int64)?
        var walked: [(id: String, size: Int64)] = []
        while position + 8 <= file.size, let header = file.bytes(at: position, count: 8) {
            let id = String(decoding: header[0..<4], as: UTF8.self)
            guard isPlausibleID(header[0..<4]) else {
                // The chunk before led here: its size lies (or its pad byte is missing), for what follows is no chunk.
                return previous.map {
                    MalformedChunk(
                        id: $0.id, afterAudio: false,
                        problem:
                            "states \($0.size) bytes, after which come bytes that are no chunk (at byte \(position)), and no audio was found past it"
                    )
                }
            }
            let size = Int64(integer(header[4..<8], bigEndian: bigEndian))
            previous = (id, size)
            if id == "data" { return nil }
            if position + 8 + size > file.size {
                return MalformedChunk(
                    id: id, afterAudio: false,
                    problem:
                        "states \(size) bytes, but \(file.size - position - 8) remain in the file, and no audio was found past it"
                )
            }
            position += 8 + size + (size & 1)
            walked.append((id, size))
        }
        // The chunks fill the file and none is the audio: the largest holds it (a size that swallows the data chunk,
        // which a reader that walks inside chunks may still find).
        return walked.filter { !["fmt ", "ds64"].contains($0.id) }.max { $0.size < $1.size }.map {
            MalformedChunk(
                id: $0.id, afterAudio: false,
                problem: "states \($0.size) bytes, and the file has no data chunk outside it: its size hides the audio")
        }
    }

    /// The first chunk before the audio whose own structure claims more than its size holds, which would lead a
    /// reader that believes it into the audio (a `cue ` chunk stating more points than it holds, an `smpl` more
    /// loops); nil when there is none.
    func malformedChunk(in file: some ByteReading) -> MalformedChunk? {
        let bigEndian = family == .riff(bigEndian: true)
        switch family {
        case .riff, .rf64: break
        case .aiff, .caf: return nil
        }
        for chunk in chunks where chunk.offset < dataOffset {
            let (countAt, headBytes, itemBytes, items): (Int64, Int64, Int64, String)
            switch chunk.id {
            case "cue ": (countAt, headBytes, itemBytes, items) = (0, 4, 24, "cue points")
            case "smpl": (countAt, headBytes, itemBytes, items) = (28, 36, 24, "loops")
            default: continue
            }
            guard chunk.size >= countAt + 4 else {
                return MalformedChunk(
                    id: chunk.id, afterAudio: false, problem: "is \(chunk.size) bytes, too short for its own count")
            }
            guard let field = file.bytes(at: chunk.offset + countAt, count: 4) else { continue }
            let count = Int64(Self.integer(field[0..<4], bigEndian: bigEndian))
            if headBytes + count * itemBytes > chunk.size {
                let room = max(0, (chunk.size - headBytes) / itemBytes)
                return MalformedChunk(
                    id: chunk.id, afterAudio: false,
                    problem: "states \(count) \(items), but its \(chunk.size) bytes hold \(room)")
            }
        }
        return nil
    }

    /// The chunks from `start` to the end of the file, if the rest of the file is exactly such a chain (allowing the
    /// data's pad byte, and zero padding at the very end); nil otherwise.
    private static func chain(_ file: some ByteReading, from start: Int64, odd: Bool, bigEndian: Bool) -> Trailing? {
        // An odd-sized data chunk is followed by a pad byte, which some writers leave out.
        for first in odd ? [start + 1, start] : [start] {
            var position = first
            var trailing = Trailing()
            var broken = false
            while position < file.size {
                guard file.size - position >= 8, let header = file.bytes(at: position, count: 8),
                    isPlausibleID(header[0..<4])
                else {
                    if !isPadding(file, from: position) { broken = true }
                    break
                }
                let size = Int64(integer(header[4..<8], bigEndian: bigEndian))
                guard position + 8 + size <= file.size else {
                    broken = true
                    break
                }
                let id = String(decoding: header[0..<4], as: UTF8.self)
                if id == "bext" { trailing.broadcast = (position + 8, size) }
                trailing.chunks.append(Chunk(id: id, offset: position + 8, size: size))
                position += 8 + size + (size & 1)
            }
            if !broken && position <= file.size + 1 { return trailing }
        }
        return nil
    }

    /// Whether the file from `position` to its end is a little zero padding.
    private static func isPadding(_ file: some ByteReading, from position: Int64) -> Bool {
        let count = file.size - position
        guard count >= 0, count <= Int64(paddingLimit) else { return false }
        guard count > 0 else { return true }
        return file.bytes(at: position, count: Int(count))?.allSatisfy { $0 == 0 } ?? false
    }

    /// A chunk id: four printable ASCII characters (spaces allowed).
    private static func isPlausibleID(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count == 4 && bytes.allSatisfy { (0x20...0x7E).contains($0) } && bytes.first != 0x20
    }

    private static func integer(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> UInt64 {
        let ordered = bigEndian ? Array(bytes) : bytes.reversed()
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
