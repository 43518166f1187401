import Foundation

/// WAV files built byte by byte, so that tests can make headers that lie (a data size too small, wrapped past a
/// modulus, followed by other chunks or junk) independently of any writer under test.
public enum WaveBytes {
    /// A RIFF chunk: id, 32-bit little-endian size, payload, pad byte when odd.
    public static func chunk(_ id: String, _ payload: [UInt8]) -> [UInt8] {
        Array(id.utf8) + le32(UInt32(payload.count)) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    public static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    public static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    /// A PCM `fmt ` chunk; with `mask`, WAVE_FORMAT_EXTENSIBLE with that speaker mask.
    public static func format(channels: Int, bits: Int, rate: Int, mask: UInt32? = nil) -> [UInt8] {
        let align = channels * bits / 8
        var body =
            le16(mask == nil ? 1 : 0xFFFE) + le16(UInt16(channels)) + le32(UInt32(rate))
            + le32(UInt32(rate * align)) + le16(UInt16(align)) + le16(UInt16(bits))
        if let mask {
            // cbSize 22, valid bits, mask, KSDATAFORMAT_SUBTYPE_PCM.
            body +=
                le16(22) + le16(UInt16(bits)) + le32(mask)
                + [0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        return chunk("fmt ", body)
    }

    /// 16-bit little-endian samples of `signal` (interleaved), scaled as libsndfile reads them back (x / 32768).
    public static func pcm16(_ signal: TestSignal, start: Int64 = 0, count: Int? = nil) -> [UInt8] {
        let frames = count ?? Int(signal.length - start)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * signal.channelCount * 2)
        for value in signal.recording(start: start, count: frames) {
            let sample = Int16(max(-32768, min(32767, (Double(value) * 32768).rounded())))
            bytes += le16(UInt16(bitPattern: sample))
        }
        return bytes
    }

    /// A whole WAV: RIFF header, `before` chunks, fmt, data with `audio` (its header stating `statedDataBytes`, by
    /// default the true size), then `after` (chunks or raw bytes).
    public static func file(
        channels: Int, bits: Int = 16, rate: Int = 48_000, audio: [UInt8], statedDataBytes: UInt32? = nil,
        before: [UInt8] = [], after: [UInt8] = [], mask: UInt32? = nil
    ) -> [UInt8] {
        let stated = statedDataBytes ?? UInt32(truncatingIfNeeded: audio.count)
        let data = Array("data".utf8) + le32(stated) + audio + (audio.count % 2 == 1 ? [0] : [])
        let body =
            Array("WAVE".utf8) + before + format(channels: channels, bits: bits, rate: rate, mask: mask) + data + after
        return Array("RIFF".utf8) + le32(UInt32(truncatingIfNeeded: body.count)) + body
    }
}
