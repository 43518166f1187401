import DriftCore

extension ChunkedLayout {
    /// The format chunk an output gets, and what it implies for the container.
    struct FormatChunk {
        var payload: [UInt8]
        var rf64 = false
        var bigEndian = false
        /// A float or companded WAV states its frame count in a `fact` chunk.
        var needsFact = false
        /// The IFF form: `AIFF` or `AIFC` (`WAVE` for RIFF).
        var form = "WAVE"
    }

    /// The recording's format chunk where the output's format is the recording's (a new rate written into it), else
    /// one made for the output; nil for an encoding this writer does not lay out.
    static func formatChunk(_ chunks: RecordingChunks, format: AudioFormat, channelMask: UInt32?) -> FormatChunk? {
        switch (chunks.family, format.container) {
        case (.riff, .wav), (.riff, .wavex), (.riff, .rf64): return waveFormat(chunks.formatChunk, format, channelMask)
        case (.aiff, .aiff): return aiffFormat(chunks, format)
        default: return nil
        }
    }

    // MARK: WAV

    /// KSDATAFORMAT_SUBTYPE_*: the format tag, then the fixed tail of the GUID.
    private static let subtypeTail: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
    ]

    private static func waveFormat(_ recording: [UInt8], _ format: AudioFormat, _ channelMask: UInt32?) -> FormatChunk?
    {
        let tag: UInt16
        let bits: Int
        switch format.encoding {
        case .pcmU8: (tag, bits) = (1, 8)
        case .pcm16: (tag, bits) = (1, 16)
        case .pcm24: (tag, bits) = (1, 24)
        case .pcm32: (tag, bits) = (1, 32)
        case .float32: (tag, bits) = (3, 32)
        case .float64: (tag, bits) = (3, 64)
        case .ulaw: (tag, bits) = (7, 8)
        case .alaw: (tag, bits) = (6, 8)
        default: return nil
        }
        let input = ChunkBytes(recording)
        let inputExtensible = input.u16(at: 0) == 0xFFFE && input.count >= 40
        let extensible = format.container == .wavex || (format.container == .rf64 && inputExtensible)
        let channels = format.channelCount
        let blockAlign = channels * bits / 8
        let rate = UInt64(format.sampleRate)
        var result = FormatChunk(payload: [], rf64: format.container == .rf64, needsFact: tag != 1)
        let inputTag = inputExtensible ? input.u16(at: 24) : input.u16(at: 0)
        if inputTag == tag, inputExtensible == extensible, input.u16(at: 2) == UInt16(channels),
            input.u16(at: 14) == UInt16(bits), input.u16(at: 12) == UInt16(blockAlign), input.count >= 16
        {
            // The recording's own chunk: its extension fields and speaker mask as they were.
            var payload = input
            payload.set(rate, at: 4, width: 4)
            payload.set(rate * UInt64(blockAlign), at: 8, width: 4)
            result.payload = payload.bytes
            return result
        }
        var payload = ChunkBytes([UInt8](repeating: 0, count: extensible ? 40 : tag == 1 ? 16 : 18))
        payload.set(UInt64(extensible ? 0xFFFE : tag), at: 0, width: 2)
        payload.set(UInt64(channels), at: 2, width: 2)
        payload.set(rate, at: 4, width: 4)
        payload.set(rate * UInt64(blockAlign), at: 8, width: 4)
        payload.set(UInt64(blockAlign), at: 12, width: 2)
        payload.set(UInt64(bits), at: 14, width: 2)
        if extensible {
            payload.set(22, at: 16, width: 2)
            payload.set(UInt64(bits), at: 18, width: 2)
            let mask = channelMask ?? (inputExtensible ? input.u32(at: 20) : nil) ?? 0
            payload.set(UInt64(mask), at: 20, width: 4)
            payload.bytes.replaceSubrange(
                24..<40, with: ChunkBytes.encode(UInt64(tag), width: 2, bigEndian: false) + subtypeTail)
        }
        result.payload = payload.bytes
        return result
    }

    // MARK: AIFF

    private static func aiffFormat(_ chunks: RecordingChunks, _ format: AudioFormat) -> FormatChunk? {
        let input = ChunkBytes(chunks.formatChunk, bigEndian: true)
        let inputCompression = chunks.form == "AIFC" ? input.fourCC(at: 18) : nil
        // The form and compression type: the recording's where they store this encoding, else the usual ones.
        let bits: Int
        let choices: [String?]
        switch format.encoding {
        case .pcmS8, .pcm16, .pcm24, .pcm32:
            bits = format.encoding.bytesPerSample.map { $0 * 8 } ?? 16
            choices =
                [nil, "NONE", "twos", "sowt"] + (format.encoding == .pcm24 ? ["in24", "42ni"] : [])
                + (format.encoding == .pcm32 ? ["in32", "23ni"] : [])
        case .float32: (bits, choices) = (32, ["fl32", "FL32"])
        case .float64: (bits, choices) = (64, ["fl64", "FL64"])
        default: return nil
        }
        let compression: String?
        if choices.contains(inputCompression) {
            compression = inputCompression
        } else {
            compression = choices.first ?? nil
        }
        let littleEndian = ["sowt", "42ni", "23ni"].contains(compression ?? "")
        var result = FormatChunk(payload: [], bigEndian: !littleEndian, form: compression == nil ? "AIFF" : "AIFC")
        if result.form == chunks.form, input.u16(at: 0) == UInt16(format.channelCount),
            input.u16(at: 6) == UInt16(bits), inputCompression == compression, input.count >= 18
        {
            var payload = input
            payload.bytes.replaceSubrange(8..<18, with: extended(format.sampleRate))
            result.payload = payload.bytes
            return result
        }
        var payload = ChunkBytes([UInt8](repeating: 0, count: 18), bigEndian: true)
        payload.set(UInt64(format.channelCount), at: 0, width: 2)
        payload.set(UInt64(bits), at: 6, width: 2)
        payload.bytes.replaceSubrange(8..<18, with: extended(format.sampleRate))
        if let compression {
            // The compression type and an empty Pascal-string name (its count byte and a pad byte).
            payload.bytes += Array(compression.utf8) + [0, 0]
        }
        result.payload = payload.bytes
        return result
    }

    /// A sample rate as the 80-bit IEEE 754 extended number AIFF stores.
    static func extended(_ rate: Int) -> [UInt8] {
        guard rate > 0 else { return [UInt8](repeating: 0, count: 10) }
        let value = UInt64(rate)
        let shift = value.leadingZeroBitCount
        let exponent = UInt64(16383 + 63 - shift)
        return ChunkBytes.encode(exponent, width: 2, bigEndian: true)
            + ChunkBytes.encode(value << UInt64(shift), width: 8, bigEndian: true)
    }
}
