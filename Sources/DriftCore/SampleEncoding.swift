/// How samples are stored. The names are the library's own; DriftAudio maps them to libsndfile's subtype codes.
public enum SampleEncoding: Hashable, Sendable, CustomStringConvertible {
    case pcmS8, pcmU8, pcm16, pcm24, pcm32, float32, float64, ulaw, alaw, vorbis, opus, mp3
    /// Any other encoding the audio library reads (ADPCM, GSM, ALAC, ...), by its libsndfile subtype code.
    case other(Int32)

    /// Bytes per sample for fixed-size encodings; nil for compressed ones.
    public var bytesPerSample: Int? {
        switch self {
        case .pcmS8, .pcmU8, .ulaw, .alaw: return 1
        case .pcm16: return 2
        case .pcm24: return 3
        case .pcm32, .float32: return 4
        case .float64: return 8
        default: return nil
        }
    }

    /// Lossy encodings: a rewrite re-encodes, so samples cannot round-trip bit for bit.
    public var isLossy: Bool { self == .vorbis || self == .opus || self == .mp3 }

    public var description: String {
        switch self {
        case .pcmS8: return "8-bit signed"
        case .pcmU8: return "8-bit unsigned"
        case .pcm16: return "16-bit"
        case .pcm24: return "24-bit"
        case .pcm32: return "32-bit"
        case .float32: return "32-bit float"
        case .float64: return "64-bit float"
        case .ulaw: return "u-law"
        case .alaw: return "A-law"
        case .vorbis: return "Vorbis"
        case .opus: return "Opus"
        case .mp3: return "MP3"
        case .other(let code): return "encoding 0x\(String(code, radix: 16))"
        }
    }
}

extension SampleEncoding {
    /// Names for `--encoding` and the configuration's `encoding`.
    public static let names: [String: SampleEncoding] = [
        "pcm-s8": .pcmS8, "pcm-u8": .pcmU8, "pcm-16": .pcm16, "pcm-24": .pcm24, "pcm-32": .pcm32, "float": .float32,
        "double": .float64, "ulaw": .ulaw, "alaw": .alaw, "vorbis": .vorbis, "opus": .opus, "mp3": .mp3,
    ]
}
