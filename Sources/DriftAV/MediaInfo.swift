import DriftCore

/// What libavformat found in a media file: its container and its streams.
public struct MediaInfo: Sendable, Equatable {
    public var path: String
    public var container: MediaContainer
    public var streams: [MediaStream]
    /// Whether an MP4/MOV file keeps its index (`moov`) before the media data ("fast start").
    public var indexFirst: Bool
    /// The file's own tags: `title`, `artist`, `date`, `encoder`...
    public var tags: [String: String] = [:]

    /// The audio streams, in file order (attached pictures and the like are not audio).
    public var audioStreams: [MediaStream] { streams.filter { $0.kind == .audio } }
    /// Video streams that are pictures in motion (not cover art).
    public var videoStreams: [MediaStream] { streams.filter { $0.kind == .video && !$0.isAttachedPicture } }
}

/// A container as driftfix treats it.
public enum MediaContainer: Hashable, Sendable, CustomStringConvertible {
    /// ISO base media: MP4, M4A, MOV, 3GP (libavformat's `mov` demuxer).
    case isoMedia
    /// Matroska and WebM.
    case matroska
    case mxf
    /// ADTS: a raw AAC stream.
    case adts
    case caf
    case ogg
    case wav
    case flac
    case mp3
    case avi
    case mpegts
    /// Anything else libavformat opens, by its demuxer name.
    case other(String)

    init(demuxer: String) {
        let names = Set(demuxer.split(separator: ",").map(String.init))
        if names.contains("mov") || names.contains("mp4") {
            self = .isoMedia
        } else if names.contains("matroska") || names.contains("webm") {
            self = .matroska
        } else if names.contains("mxf") {
            self = .mxf
        } else if names.contains("aac") {
            self = .adts
        } else if names.contains("caf") {
            self = .caf
        } else if names.contains("ogg") {
            self = .ogg
        } else if names.contains("wav") {
            self = .wav
        } else if names.contains("flac") {
            self = .flac
        } else if names.contains("mp3") {
            self = .mp3
        } else if names.contains("avi") {
            self = .avi
        } else if names.contains("mpegts") {
            self = .mpegts
        } else {
            self = .other(demuxer)
        }
    }

    public var description: String {
        switch self {
        case .isoMedia: return "MP4/MOV"
        case .matroska: return "Matroska"
        case .mxf: return "MXF"
        case .adts: return "ADTS"
        case .caf: return "CAF"
        case .ogg: return "Ogg"
        case .wav: return "WAV"
        case .flac: return "FLAC"
        case .mp3: return "MP3"
        case .avi: return "AVI"
        case .mpegts: return "MPEG-TS"
        case .other(let name): return name
        }
    }
}

/// One stream of a media file.
public struct MediaStream: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case audio, video, subtitle, data, attachment, other
    }

    /// The stream's index in the file.
    public var index: Int
    public var kind: Kind
    /// libavcodec's codec name: `aac`, `alac`, `opus`, `pcm_s24le`, `h264`, ...
    public var codec: String
    /// Cover art and thumbnails: a video stream that is one picture.
    public var isAttachedPicture = false
    public var sampleRate: Int?
    public var channelCount: Int?
    /// `stereo`, `5.1(side)`, ...
    public var channelLayout: String?
    /// Bits per second, when the file says (lossy audio is re-encoded at this rate).
    public var bitRate: Int?
    /// Significant bits per sample for PCM and lossless codecs.
    public var bitsPerSample: Int?
    /// Samples per codec frame (AAC 1024, Opus 960...); nil when it varies.
    public var frameSize: Int?
    /// The time unit of its timestamps, in seconds.
    public var timeBase: Rational
    /// Video: frames per second, as the file states it.
    public var frameRate: Rational?
    /// Tags: `language`, `handler_name`, ...
    public var tags: [String: String] = [:]

    /// Seconds of one codec frame (audio) or one picture (video), when known: the granularity with which the
    /// stream can end.
    public var frameDuration: Rational? {
        switch kind {
        case .audio:
            guard let frameSize, let sampleRate, frameSize > 0, sampleRate > 0 else { return nil }
            return Rational(Int64(frameSize), Int64(sampleRate))
        case .video:
            guard let frameRate, frameRate.numerator > 0 else { return nil }
            return Rational(frameRate.denominator, frameRate.numerator)
        default:
            return nil
        }
    }

    /// Whether its samples are stored without loss (PCM, ALAC, FLAC, ...): a re-encode keeps them.
    public var isLossless: Bool {
        codec.hasPrefix("pcm_") || ["alac", "flac", "wavpack", "tta", "ape", "mlp", "truehd", "s302m"].contains(codec)
    }
}
