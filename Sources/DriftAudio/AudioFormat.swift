import DriftCore

/// A file container as libsndfile names it (the major format).
public enum AudioContainer: Hashable, Sendable, CustomStringConvertible {
    case wav, wavex, rf64, w64, aiff, caf, flac, ogg, mpeg
    /// Any other container libsndfile reads (AU, IRCAM, ...), by its libsndfile code.
    case other(Int32)

    init(code: Int32) {
        switch code {
        case 0x01_0000: self = .wav
        case 0x13_0000: self = .wavex
        case 0x22_0000: self = .rf64
        case 0x0B_0000: self = .w64
        case 0x02_0000: self = .aiff
        case 0x18_0000: self = .caf
        case 0x17_0000: self = .flac
        case 0x20_0000: self = .ogg
        case 0x23_0000: self = .mpeg
        default: self = .other(code)
        }
    }

    /// The libsndfile major-format code.
    public var code: Int32 {
        switch self {
        case .wav: return 0x01_0000
        case .wavex: return 0x13_0000
        case .rf64: return 0x22_0000
        case .w64: return 0x0B_0000
        case .aiff: return 0x02_0000
        case .caf: return 0x18_0000
        case .flac: return 0x17_0000
        case .ogg: return 0x20_0000
        case .mpeg: return 0x23_0000
        case .other(let code): return code
        }
    }

    /// Containers that store samples uncompressed, so the data size follows from the frame count.
    public var storesPlainSamples: Bool {
        switch self {
        case .wav, .wavex, .rf64, .w64, .aiff, .caf: return true
        default: return false
        }
    }

    /// Containers whose sizes are 32-bit: they must switch to RF64 beyond 4 GiB.
    public var isRIFF: Bool { self == .wav || self == .wavex }

    public var description: String {
        switch self {
        case .wav: return "WAV"
        case .wavex: return "WAVEX"
        case .rf64: return "RF64"
        case .w64: return "W64"
        case .aiff: return "AIFF"
        case .caf: return "CAF"
        case .flac: return "FLAC"
        case .ogg: return "OGG"
        case .mpeg: return "MPEG"
        case .other(let code): return "format 0x\(String(code, radix: 16))"
        }
    }
}

/// libsndfile's subtype codes for the encodings.
extension SampleEncoding {
    init(code: Int32) {
        switch code {
        case 0x01: self = .pcmS8
        case 0x05: self = .pcmU8
        case 0x02: self = .pcm16
        case 0x03: self = .pcm24
        case 0x04: self = .pcm32
        case 0x06: self = .float32
        case 0x07: self = .float64
        case 0x10: self = .ulaw
        case 0x11: self = .alaw
        case 0x60: self = .vorbis
        case 0x64: self = .opus
        case 0x82: self = .mp3
        default: self = .other(code)
        }
    }

    /// The libsndfile subtype code.
    public var code: Int32 {
        switch self {
        case .pcmS8: return 0x01
        case .pcmU8: return 0x05
        case .pcm16: return 0x02
        case .pcm24: return 0x03
        case .pcm32: return 0x04
        case .float32: return 0x06
        case .float64: return 0x07
        case .ulaw: return 0x10
        case .alaw: return 0x11
        case .vorbis: return 0x60
        case .opus: return 0x64
        case .mp3: return 0x82
        case .other(let code): return code
        }
    }

}

/// Byte order as stored in the file's format code.
public enum ByteOrder: Int32, Sendable {
    case fileDefault = 0x0000_0000
    case little = 0x1000_0000
    case big = 0x2000_0000
    case cpu = 0x3000_0000
}

/// Everything needed to write a file in the same shape as another: container, encoding, rate, channels.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    public var container: AudioContainer
    public var encoding: SampleEncoding
    public var byteOrder: ByteOrder
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels per frame.
    public var channelCount: Int

    public init(
        container: AudioContainer, encoding: SampleEncoding, byteOrder: ByteOrder = .fileDefault,
        sampleRate: Int, channelCount: Int
    ) {
        self.container = container
        self.encoding = encoding
        self.byteOrder = byteOrder
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    init(formatCode: Int32, sampleRate: Int, channelCount: Int) {
        self.container = AudioContainer(code: formatCode & 0x0FFF_0000)
        self.encoding = SampleEncoding(code: formatCode & 0x0000_FFFF)
        self.byteOrder = ByteOrder(rawValue: formatCode & 0x3000_0000) ?? .fileDefault
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// The combined libsndfile format code.
    public var formatCode: Int32 { container.code | encoding.code | byteOrder.rawValue }

    /// The container to write `frames` frames in this format: a WAV whose data would pass 4 GiB becomes RF64,
    /// because RIFF sizes are 32-bit and a larger WAV would carry a wrapped, lying header.
    /// - Parameter metadataBytes: the chunks carried around the data, beyond the usual few kilobytes.
    public func forWriting(frames: Int64, metadataBytes: Int64 = 0) -> AudioFormat {
        guard container.isRIFF, let bytes = encoding.bytesPerSample else { return self }
        // Keep a margin for the header and metadata chunks (bext, LIST/INFO, PEAK) written around the data.
        let riffLimit: Int64 = 0xFFFF_FFFF - 1 << 20 - metadataBytes
        let dataBytes = Int128(frames) * Int128(channelCount) * Int128(bytes)
        guard dataBytes > Int128(riffLimit) else { return self }
        var upgraded = self
        upgraded.container = .rf64
        return upgraded
    }

    public var description: String {
        let layout = channelCount == 1 ? "mono" : channelCount == 2 ? "stereo" : "\(channelCount) ch"
        return "\(container) \(encoding) \(sampleRate) Hz \(layout)"
    }
}
