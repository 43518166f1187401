public import struct SystemPackage.FilePath

/// A failure reading or writing an audio file: always names the file and the cause in one line.
public struct AudioError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, without the path.
    public enum Cause: Equatable, Sendable, CustomStringConvertible {
        case notFound
        case isDirectory
        /// A FIFO, device, socket...: never opened as audio (reading could hang or touch a device).
        case notRegularFile(FileKind)
        case permissionDenied
        case emptyFile
        case noFrames
        /// A media file with no audio stream (a video without sound): what callers looking for sound test for.
        case noAudioStream
        /// Neither audio library recognised the file; the reason names the library that looked.
        case notAudio(String)
        case unsupported(String)
        case corrupt(String)
        case truncated(claimedFrames: Int64, availableFrames: Int64)
        /// The header's data size accounts for less than the file holds: audio no chunk claims follows it.
        case hiddenAudio(HiddenAudio)
        /// A chunk whose structure lies (a count beyond its size, a size beyond the file): named, with what is wrong.
        case malformedChunk(MalformedChunk)
        case readFailed(String)
        case destinationMissing
        case destinationNotWritable(String)
        case diskFull
        case writeFailed(String)
        case wouldOverwriteInput
        /// The destination exists and replacing it was not asked for.
        case destinationExists
        /// The destination is a device, FIFO, socket or symbolic link: only regular files are ever replaced.
        case destinationNotRegular(FileKind)
        /// Verified but not renamed into place: the publish fence refused it (a worker that lost its lease).
        case fenced(String)

        public var description: String {
            switch self {
            case .notFound: return "no such file"
            case .isDirectory: return "is a directory, not an audio file"
            case .notRegularFile(let kind): return "not a regular file but \(kind)"
            case .permissionDenied: return "permission denied"
            case .emptyFile: return "empty file (0 bytes)"
            case .noFrames: return "contains no audio frames"
            case .noAudioStream: return "no audio stream"
            case .notAudio(let why): return "not an audio file driftfix can read (\(why))"
            case .unsupported(let why): return "unsupported (\(why))"
            case .corrupt(let why): return "corrupt or truncated header (\(why))"
            case .truncated(let claimed, let available):
                return "truncated: header claims \(claimed) frames but the file holds at most \(available)"
            case .hiddenAudio(let hidden): return hidden.description
            case .malformedChunk(let chunk): return chunk.description
            case .readFailed(let why): return "read failed (\(why))"
            case .destinationMissing: return "destination folder does not exist"
            case .destinationNotWritable(let why): return "destination is not writable (\(why))"
            case .diskFull: return "disk full (no space left on device)"
            case .writeFailed(let why): return "write failed (\(why))"
            case .wouldOverwriteInput: return "refusing to write over the input file"
            case .destinationExists: return "already exists (not replaced)"
            case .destinationNotRegular(let kind):
                return "is \(kind), not a regular file: driftfix only ever replaces regular files"
            case .fenced(let why): return "verified but not published: \(why)"
            }
        }
    }

    /// The file concerned.
    public let path: FilePath
    public let cause: Cause

    init(path: FilePath, cause: Cause) {
        self.path = path
        self.cause = cause
    }

    /// The file named by its `PathText` (how the readers and writers carry it).
    package init(path text: String, cause: Cause) {
        self.init(path: FilePath(pathText: text), cause: cause)
    }

    public var description: String { "\(path.pathText): \(cause)" }
}

/// Audio a header hides: the data chunk states fewer bytes than follow it.
public struct HiddenAudio: Equatable, Sendable, CustomStringConvertible {
    /// The data size the header states.
    public let statedBytes: Int64
    /// Bytes after the stated data that no chunk accounts for.
    public let followingBytes: Int64
    /// The true data size when the stated one is a 32-bit size wrapped past 4 GiB (but cannot be read past the wrap
    /// in this encoding); nil when the size is simply too small.
    public let wrappedBytes: Int64?
    /// Bytes per frame for plain sample encodings, to say how much audio that is.
    public let frameBytes: Int64?
    public let sampleRate: Int

    public var description: String {
        func amount(_ bytes: Int64) -> String {
            guard let frameBytes, frameBytes > 0, sampleRate > 0 else { return "\(bytes) bytes" }
            let frames = bytes / frameBytes
            return "\(bytes) bytes (\(frames) frames, \(Self.duration(Double(frames) / Double(sampleRate))))"
        }
        if let wrappedBytes {
            return "the header's 32-bit data size wrapped past 4 GiB: it states \(amount(statedBytes)), the file holds "
                + "\(amount(wrappedBytes)); \(amount(followingBytes)) of audio would be lost, and this encoding cannot "
                + "be read past the wrap"
        }
        return "the header's data size is too small: it states \(amount(statedBytes)), but \(amount(followingBytes)) "
            + "more follow that no chunk accounts for (audio the header hides); refused rather than repaired short"
    }

    /// `1 h 02 min 03.5 s`, `4 min 10.0 s`, `12.3 s`.
    static func duration(_ seconds: Double) -> String {
        let tenths = Int64((seconds * 10).rounded())
        let (hours, minutes, rest) = (tenths / 36_000, tenths / 600 % 60, tenths % 600)
        let secondsText = "\(rest / 10).\(rest % 10) s"
        if hours > 0 {
            return "\(hours) h \(minutes < 10 ? "0" : "")\(minutes) min \(rest < 100 ? "0" : "")\(secondsText)"
        }
        if minutes > 0 { return "\(minutes) min \(rest < 100 ? "0" : "")\(secondsText)" }
        return secondsText
    }
}

/// A chunk a file's reading cannot get past: its id, where it lies, and what about it is wrong.
public struct MalformedChunk: Equatable, Sendable, CustomStringConvertible {
    /// The chunk's four-character id (`cue `, `LIST`).
    public let id: String
    /// Whether it lies after the audio data.
    public let afterAudio: Bool
    /// What is wrong with it: "states 1000 cue points, but its 52 bytes hold 2".
    public let problem: String

    public var description: String {
        "its '\(id)' chunk (\(afterAudio ? "after" : "before") the audio) \(problem); refused rather than read wrong"
    }
}
