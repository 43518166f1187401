import Glibc

/// An ID3v2.4 tag holding exactly the string tags driftfix carries, for MP3 outputs.
///
/// libsndfile hands MP3 tags to LAME, which drops the software tag, truncates to ID3v1's 30 characters and adds empty
/// comment, date and album fields. So MP3 files are written without tags and this tag is put in front afterwards:
/// what was there is carried, and nothing else. The frames are the ones libsndfile's reader maps back (through
/// mpg123): TIT2, TCOP, TSSE, TPE1, COMM, TDRC, TALB, TRCK, TCON; the license tag has no frame it reads.
enum ID3Tag {
    /// Tags an MP3 written this way cannot carry back to libsndfile.
    static let unsupported: Set<AudioTag> = [.license]

    static func frameID(for tag: AudioTag) -> String? {
        switch tag {
        case .title: return "TIT2"
        case .copyright: return "TCOP"
        case .software: return "TSSE"
        case .artist: return "TPE1"
        case .comment: return "COMM"
        case .date: return "TDRC"
        case .album: return "TALB"
        case .trackNumber: return "TRCK"
        case .genre: return "TCON"
        case .license: return nil
        }
    }

    /// The whole tag (header and frames, UTF-8 text), or nil when there is nothing to write.
    static func bytes(for tags: [AudioTag: String]) -> [UInt8]? {
        var frames: [UInt8] = []
        for (tag, value) in tags.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let id = frameID(for: tag) else { continue }
            var body: [UInt8] = [3]  // UTF-8
            if id == "COMM" { body += Array("XXX".utf8) + [0] }  // language unknown, empty description
            body += Array(value.utf8)
            frames += Array(id.utf8) + syncsafe(body.count) + [0, 0] + body
        }
        guard !frames.isEmpty else { return nil }
        return Array("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count) + frames
    }

    /// 28 bits in four bytes of seven.
    static func syncsafe(_ value: Int) -> [UInt8] {
        [UInt8((value >> 21) & 0x7F), UInt8((value >> 14) & 0x7F), UInt8((value >> 7) & 0x7F), UInt8(value & 0x7F)]
    }

    /// Puts `tag` in front of the file open on `descriptor` (`size` bytes), moving its contents back in 1 MiB blocks
    /// from the end, so no second copy of the file is needed.
    static func prepend(_ tag: [UInt8], to descriptor: Int32, size: Int64) -> Bool {
        let shift = Int64(tag.count)
        let block = 1 << 20
        var buffer = [UInt8](repeating: 0, count: block)
        var end = size
        while end > 0 {
            let start = max(0, end - Int64(block))
            let count = Int(end - start)
            let ok = buffer.withUnsafeMutableBytes { raw -> Bool in
                guard let base = raw.baseAddress else { return false }
                return PositionedIO.read(descriptor, into: base, count: count, at: start)
                    && PositionedIO.write(descriptor, from: base, count: count, at: start + shift)
            }
            guard ok else { return false }
            end = start
        }
        return PositionedIO.write(descriptor, tag, at: 0)
    }
}
