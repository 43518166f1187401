internal import CSndFile
import DriftCore

extension FileType {
    var container: AudioContainer {
        switch self {
        case .wav: return .wav
        case .wavex: return .wavex
        case .rf64: return .rf64
        case .w64: return .w64
        case .aiff: return .aiff
        case .caf: return .caf
        case .flac: return .flac
        case .ogg, .opus: return .ogg
        case .mp3: return .mpeg
        }
    }
}

/// The format an output is written in: the input's, or the one OUT's extension (or `--format`/`--encoding`) names,
/// keeping the input's sample encoding wherever the container can hold it.
public struct OutputFormatChoice: Sendable, Equatable {
    /// The format to write.
    public let format: AudioFormat
    /// What changed from the input's encoding and why, for the run's warnings.
    public let notes: [String]

    /// Chooses the output format for `input`.
    ///
    /// - Parameters:
    ///   - type: the file type asked for (OUT's extension or `--format`); nil keeps the input's container.
    ///   - encoding: the sample encoding asked for (`--encoding`); nil keeps the input's where the container allows.
    /// - Throws: `AudioError.unsupported` naming the combination when libsndfile cannot write it.
    public init(input: AudioFormat, type: FileType?, encoding: SampleEncoding?, path: String) throws(AudioError) {
        var format = input
        var notes: [String] = []
        if let type {
            switch type {
            case .wav:
                // A WAV stays the kind of WAV it was (WAVEX keeps its speaker mask, RF64 its 64-bit sizes).
                if ![.wav, .wavex, .rf64].contains(input.container) {
                    format.container = input.channelCount > 2 ? .wavex : .wav
                }
            default:
                format.container = type.container
            }
            switch type {
            case .opus: format.encoding = .opus
            case .mp3: format.encoding = .mp3
            case .ogg where ![.vorbis, .opus].contains(input.encoding): format.encoding = .vorbis
            default: break
            }
        }
        if format.container != input.container { format.byteOrder = .fileDefault }
        if let encoding {
            format.encoding = encoding
            guard SndFile.canWrite(format) else {
                throw AudioError(
                    path: path,
                    cause: .unsupported(
                        "libsndfile cannot write \(encoding) samples in \(format.container) with \(format.channelCount) channels"
                    ))
            }
        } else if !SndFile.canWrite(format)
            || (format.encoding.isLossy && format.container != input.container
                && !(format.container == .ogg && format.encoding != .mp3))
        {
            // A lossy codec stays only in the containers made for it (MP3 in MPEG, Vorbis and Opus in Ogg).
            let wanted = format.encoding
            format.encoding = OutputFormatChoice.fallback(for: format.encoding, in: format.container)
            if !SndFile.canWrite(format) { format.encoding = .pcm16 }
            guard SndFile.canWrite(format) else {
                throw AudioError(
                    path: path,
                    cause: .unsupported(
                        "libsndfile cannot write \(format.container) with \(format.channelCount) channels"))
            }
            if !wanted.isLossy {
                notes.append("\(format.container) cannot hold \(wanted) samples: written as \(format.encoding)")
            }
        }
        if format.encoding != input.encoding {
            if format.encoding.isLossy {
                notes.append("written as \(format.encoding), a lossy encoding: a generation of loss")
            } else if input.encoding.isLossy, format.encoding == .pcm16 {
                notes.append("\(input.encoding) decoded and written as 16-bit PCM")
            }
        }
        self.format = format
        self.notes = notes
    }

    /// The nearest encoding a container holds.
    static func fallback(for encoding: SampleEncoding, in container: AudioContainer) -> SampleEncoding {
        switch container {
        case .flac:
            switch encoding {
            case .pcm32, .float32, .float64: return .pcm24
            case .pcmU8: return .pcmS8
            default: return .pcm16
            }
        case .ogg: return .vorbis
        case .mpeg: return .mp3
        case .wav, .wavex, .rf64, .w64: return encoding == .pcmS8 ? .pcmU8 : .pcm16
        case .aiff: return encoding == .pcmU8 ? .pcmS8 : .pcm16
        default: return .pcm16
        }
    }
}

extension SndFile {
    /// Whether libsndfile accepts this combination for writing.
    static func canWrite(_ format: AudioFormat) -> Bool {
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate)
        info.channels = Int32(format.channelCount)
        info.format = format.formatCode
        return sf_format_check(&info) == SF_TRUE
    }
}
