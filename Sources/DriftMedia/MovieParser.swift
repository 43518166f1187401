/// Reads the box structure of an ISO base media file (MP4, MOV, M4V, fragmented MP4) from its headers only:
/// media data (`mdat`) is skipped by seeking, never read. Bounded everywhere (depth, box count, entry counts,
/// bytes read), so a hostile file cannot make it hang or allocate without limit.
public struct MovieParser {
    static let maxDepth = 12
    static let maxBoxes = 1_000_000
    /// The largest box payload read into memory (a `trun` of a long fragment, an `elst`).
    static let maxPayload = 64 << 20

    private let source: ByteSource
    private var info = MovieInfo()
    private var boxes = 0
    private var sawMovie = false

    private init(source: ByteSource) {
        self.source = source
    }

    /// Parses `source`.
    public static func parse(_ source: ByteSource) throws(MovieError) -> MovieInfo {
        var parser = MovieParser(source: source)
        try parser.checkSignature()
        var track: MovieInfo.Track? = nil
        var fragmentTrack: UInt32 = 0
        var defaultDuration: UInt32 = 0
        try parser.walk(
            from: 0, to: source.size, depth: 0, track: &track, fragmentTrack: &fragmentTrack,
            defaultDuration: &defaultDuration)
        guard parser.sawMovie else { throw .noMovieBox }
        return parser.info
    }

    private func checkSignature() throws(MovieError) {
        guard let header = try bytes(at: 0, count: 8) else { throw .notMovie }
        let type = String(decoding: header[4..<8], as: UTF8.self)
        guard ["ftyp", "moov", "mdat", "wide", "free", "skip", "pnot", "styp", "sidx", "moof"].contains(type) else {
            throw .notMovie
        }
    }

    private func bytes(at offset: Int64, count: Int) throws(MovieError) -> [UInt8]? {
        do {
            return try source.read(at: offset, count: count)
        } catch {
            throw .truncated(error.reason)
        }
    }

    /// Walks the boxes in [start, end), descending into containers.
    private mutating func walk(
        from start: Int64, to end: Int64, depth: Int, track: inout MovieInfo.Track?, fragmentTrack: inout UInt32,
        defaultDuration: inout UInt32
    ) throws(MovieError) {
        guard depth <= MovieParser.maxDepth else {
            throw .malformed("boxes nested deeper than \(MovieParser.maxDepth)")
        }
        var position = start
        while position < end {
            boxes += 1
            guard boxes <= MovieParser.maxBoxes else { throw .malformed("more than \(MovieParser.maxBoxes) boxes") }
            guard end - position >= 8, let header = try bytes(at: position, count: 8) else {
                // Trailing padding shorter than a box header is tolerated at the top level only.
                if depth == 0 && end - position < 8 { return }
                throw .truncated("box header at byte \(position)")
            }
            var size = Int64(BigEndian.u32(header, 0))
            let type = String(decoding: header[4..<8].map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
            var headerSize: Int64 = 8
            if size == 1 {
                guard let large = try bytes(at: position + 8, count: 8) else {
                    throw .truncated("64-bit size of '\(type)'")
                }
                let value = BigEndian.u64(large, 0)
                guard value <= UInt64(Int64.max) else { throw .malformed("'\(type)' size out of range") }
                size = Int64(value)
                headerSize = 16
            } else if size == 0 {
                size = end - position  // extends to the end of its container (or the file)
            }
            guard size >= headerSize else { throw .malformed("'\(type)' box of \(size) bytes at byte \(position)") }
            let boxEnd = position + size
            guard boxEnd <= end else {
                // A cut-off mdat at the end of a file still being written is common; the headers may be complete.
                if depth == 0 && type == "mdat" { return }
                throw .truncated(
                    "'\(type)' box at byte \(position) runs past the end (\(size) bytes, \(end - position) left)")
            }
            let body = position + headerSize
            switch type {
            case "moov":
                sawMovie = true
                try walk(
                    from: body, to: boxEnd, depth: depth + 1, track: &track, fragmentTrack: &fragmentTrack,
                    defaultDuration: &defaultDuration)
            case "trak":
                var current: MovieInfo.Track? = MovieInfo.Track()
                try walk(
                    from: body, to: boxEnd, depth: depth + 1, track: &current, fragmentTrack: &fragmentTrack,
                    defaultDuration: &defaultDuration)
                if let current { info.tracks.append(current) }
            case "mdia", "edts", "mvex", "traf":
                try walk(
                    from: body, to: boxEnd, depth: depth + 1, track: &track, fragmentTrack: &fragmentTrack,
                    defaultDuration: &defaultDuration)
            case "moof":
                info.fragmented = true
                try walk(
                    from: body, to: boxEnd, depth: depth + 1, track: &track, fragmentTrack: &fragmentTrack,
                    defaultDuration: &defaultDuration)
            default:
                try leaf(
                    type, from: body, to: boxEnd, track: &track, fragmentTrack: &fragmentTrack,
                    defaultDuration: &defaultDuration)
            }
            position = boxEnd
        }
    }

    /// A box that holds values, not boxes: the times, ids, handlers, edit lists and fragment runs the duration is
    /// made of; any other box (mdat, free, udta, stbl, ...) is skipped without reading.
    private mutating func leaf(
        _ type: String, from body: Int64, to boxEnd: Int64, track: inout MovieInfo.Track?, fragmentTrack: inout UInt32,
        defaultDuration: inout UInt32
    ) throws(MovieError) {
        switch type {
        case "mvhd":
            let p = try payload(body, boxEnd, type)
            let (timescale, duration) = try timescaleAndDuration(p, type)
            info.movieTimescale = timescale
            info.movieDuration = duration
        case "tkhd":
            let p = try payload(body, boxEnd, type)
            let offset = p.first == 1 ? 20 : 12
            guard p.count >= offset + 4 else { throw .truncated("tkhd") }
            track?.id = BigEndian.u32(p, offset)
        case "mdhd":
            let p = try payload(body, boxEnd, type)
            let (timescale, duration) = try timescaleAndDuration(p, type)
            track?.mediaTimescale = timescale
            track?.mediaDuration = duration
        case "hdlr":
            let p = try payload(body, boxEnd, type)
            guard p.count >= 12 else { throw .truncated("hdlr") }
            // The media handler comes first; QuickTime's data handler ('alis') must not replace it.
            if track?.handler.isEmpty == true { track?.handler = String(decoding: p[8..<12], as: UTF8.self) }
        case "elst":
            track?.edits = try edits(try payload(body, boxEnd, type))
        case "mehd":
            let p = try payload(body, boxEnd, type)
            if p.first == 1 {
                guard p.count >= 12 else { throw .truncated("mehd") }
                info.fragmentDuration = BigEndian.u64(p, 4)
            } else {
                guard p.count >= 8 else { throw .truncated("mehd") }
                info.fragmentDuration = UInt64(BigEndian.u32(p, 4))
            }
        case "trex":
            let p = try payload(body, boxEnd, type)
            guard p.count >= 16 else { throw .truncated("trex") }
            let id = BigEndian.u32(p, 4)
            let duration = BigEndian.u32(p, 12)
            if let index = info.tracks.firstIndex(where: { $0.id == id }) {
                info.tracks[index].defaultSampleDuration = duration
            }
        case "tfhd":
            let p = try payload(body, boxEnd, type)
            guard p.count >= 8 else { throw .truncated("tfhd") }
            let flags = BigEndian.u32(p, 0) & 0xFF_FFFF
            fragmentTrack = BigEndian.u32(p, 4)
            var offset = 8
            if flags & 0x01 != 0 { offset += 8 }
            if flags & 0x02 != 0 { offset += 4 }
            defaultDuration = info.tracks.first(where: { $0.id == fragmentTrack })?.defaultSampleDuration ?? 0
            if flags & 0x08 != 0 {
                guard p.count >= offset + 4 else { throw .truncated("tfhd") }
                defaultDuration = BigEndian.u32(p, offset)
            }
        case "trun":
            let duration = try runDuration(try payload(body, boxEnd, type), defaultDuration: defaultDuration)
            if let index = info.tracks.firstIndex(where: { $0.id == fragmentTrack }) {
                let (sum, overflow) = info.tracks[index].fragmentDuration.addingReportingOverflow(duration)
                guard !overflow else { throw .malformed("fragment durations overflow") }
                info.tracks[index].fragmentDuration = sum
            }
        default:
            break
        }
    }

    private func payload(_ start: Int64, _ end: Int64, _ type: String) throws(MovieError) -> [UInt8] {
        let count = end - start
        guard count <= Int64(MovieParser.maxPayload) else {
            throw .malformed("'\(type)' box of \(count) bytes is implausibly large")
        }
        guard let bytes = try bytes(at: start, count: Int(count)) else { throw .truncated(type) }
        return bytes
    }

    /// `mvhd`/`mdhd`: version 0 (32-bit times) or 1 (64-bit).
    private func timescaleAndDuration(_ p: [UInt8], _ type: String) throws(MovieError) -> (UInt32, UInt64) {
        guard let version = p.first else { throw .truncated(type) }
        if version == 1 {
            guard p.count >= 32 else { throw .truncated(type) }
            return (BigEndian.u32(p, 20), BigEndian.u64(p, 24))
        }
        guard p.count >= 20 else { throw .truncated(type) }
        return (BigEndian.u32(p, 12), UInt64(BigEndian.u32(p, 16)))
    }

    private func edits(_ p: [UInt8]) throws(MovieError) -> [MovieInfo.Edit] {
        guard p.count >= 8 else { throw .truncated("elst") }
        let version = p[0]
        let count = Int(BigEndian.u32(p, 4))
        let entrySize = version == 1 ? 20 : 12
        guard count <= (p.count - 8) / entrySize else {
            throw .malformed("elst claims \(count) entries in \(p.count) bytes")
        }
        return (0..<count).map { i in
            let offset = 8 + i * entrySize
            if version == 1 {
                return MovieInfo.Edit(
                    segmentDuration: BigEndian.u64(p, offset),
                    mediaTime: Int64(bitPattern: BigEndian.u64(p, offset + 8)))
            }
            return MovieInfo.Edit(
                segmentDuration: UInt64(BigEndian.u32(p, offset)),
                mediaTime: Int64(Int32(bitPattern: BigEndian.u32(p, offset + 4))))
        }
    }

    /// The total sample duration of one `trun`.
    private func runDuration(_ p: [UInt8], defaultDuration: UInt32) throws(MovieError) -> UInt64 {
        guard p.count >= 8 else { throw .truncated("trun") }
        let flags = BigEndian.u32(p, 0) & 0xFF_FFFF
        let count = Int(BigEndian.u32(p, 4))
        var offset = 8
        if flags & 0x01 != 0 { offset += 4 }
        if flags & 0x04 != 0 { offset += 4 }
        let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
        guard flags & 0x100 != 0 else { return UInt64(count) * UInt64(defaultDuration) }
        guard p.count >= offset else { throw .truncated("trun") }
        guard count <= (p.count - offset) / (fields * 4) else {
            throw .malformed("trun claims \(count) samples in \(p.count) bytes")
        }
        var total: UInt64 = 0
        for i in 0..<count { total += UInt64(BigEndian.u32(p, offset + i * fields * 4)) }
        return total
    }
}

enum BigEndian {
    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func u64(_ b: [UInt8], _ i: Int) -> UInt64 {
        UInt64(u32(b, i)) << 32 | UInt64(u32(b, i + 4))
    }
}
