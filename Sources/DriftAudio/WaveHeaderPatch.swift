import Glibc

/// Fixed-size fields of a just-written WAV (or RF64) header, set in place after libsndfile closed the file, where
/// libsndfile writes something other than what was there:
///
/// - `bext`: libsndfile always writes version 2 and appends a coding-history line of its own. The version is put
///   back to the recording's, and the history made exactly the one carried (the recording's lines and driftfix's),
///   the rest of the chunk zero-padded as EBU Tech 3285 allows.
/// - the WAVE_FORMAT_EXTENSIBLE speaker mask: libsndfile derives it from channel positions and falls back to the
///   default mask for the channel count when the positions do not map; the recording's own mask is written back.
/// - the LIST/INFO software tag (`ISFT`): libsndfile appends ` (libsndfile-VERSION)`; the suffix is zeroed.
///
/// Only bytes inside existing chunks change; chunk sizes, the data and the file size stay as libsndfile wrote them.
enum WaveHeaderPatch {
    /// Offsets inside the bext payload (EBU Tech 3285).
    static let versionOffset: Int64 = 346
    static let historyOffset: Int64 = 602

    /// Makes the bext chunk carry `info`'s version and exactly its coding history. False when the chunk is missing
    /// or too small for the history.
    static func broadcast(_ info: BroadcastInfo, descriptor: Int32, layout: ContainerLayout) -> Bool {
        guard let chunk = layout.broadcastChunk, chunk.size >= historyOffset else { return false }
        let history = Array(BroadcastInfo.withCRLF(info.codingHistory).utf8)
        let room = Int(chunk.size - historyOffset)
        guard history.count <= room else { return false }
        let version = UInt16(bitPattern: info.version)
        return PositionedIO.write(
            descriptor, [UInt8(version & 0xFF), UInt8(version >> 8)], at: chunk.offset + versionOffset)
            && PositionedIO.write(
                descriptor, history + [UInt8](repeating: 0, count: room - history.count),
                at: chunk.offset + historyOffset)
    }

    /// Writes `mask` as the file's speaker mask; false when its format chunk has none (not WAVE_FORMAT_EXTENSIBLE).
    static func channelMask(_ mask: UInt32, descriptor: Int32, layout: ContainerLayout) -> Bool {
        guard let offset = layout.channelMaskOffset else { return false }
        if layout.channelMask == mask { return true }
        return PositionedIO.write(descriptor, (0..<4).map { UInt8((mask >> (8 * $0)) & 0xFF) }, at: offset)
    }

    /// Zeroes what libsndfile appended to the software tag, so it reads back as `original`.
    static func software(_ original: String, file: DescriptorBytes, layout: ContainerLayout) {
        for list in layout.chunks where list.id == "LIST" {
            guard let kind = file.bytes(at: list.offset, count: 4), kind == Array("INFO".utf8) else { continue }
            var position = list.offset + 4
            while position + 8 <= list.offset + list.size, let header = file.bytes(at: position, count: 8) {
                let size = Int64(header[4]) | Int64(header[5]) << 8 | Int64(header[6]) << 16 | Int64(header[7]) << 24
                if header[0..<4].elementsEqual("ISFT".utf8), let text = file.bytes(at: position + 8, count: Int(size)) {
                    let written = Array(text.prefix { $0 != 0 })
                    let wanted = Array(original.utf8)
                    if written.count > wanted.count, written.starts(with: wanted) {
                        _ = PositionedIO.write(
                            file.descriptor, [UInt8](repeating: 0, count: written.count - wanted.count),
                            at: position + 8 + Int64(wanted.count))
                    }
                    return
                }
                position += 8 + size + (size & 1)
            }
        }
    }
}
