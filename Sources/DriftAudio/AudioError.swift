/// A failure reading or writing an audio file: always names the file and the cause in one line.
public struct AudioError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, without the path.
    public enum Cause: Equatable, Sendable, CustomStringConvertible {
        case notFound
        case isDirectory
        case permissionDenied
        case emptyFile
        case noFrames
        case notAudio(String)
        case unsupported(String)
        case corrupt(String)
        case truncated(claimedFrames: Int64, availableFrames: Int64)
        case readFailed(String)
        case destinationMissing
        case destinationNotWritable(String)
        case diskFull
        case writeFailed(String)
        case wouldOverwriteInput

        public var description: String {
            switch self {
            case .notFound: return "no such file"
            case .isDirectory: return "is a directory, not an audio file"
            case .permissionDenied: return "permission denied"
            case .emptyFile: return "empty file (0 bytes)"
            case .noFrames: return "contains no audio frames"
            case .notAudio(let why): return "not an audio file libsndfile can read (\(why))"
            case .unsupported(let why): return "unsupported audio format (\(why))"
            case .corrupt(let why): return "corrupt or truncated header (\(why))"
            case .truncated(let claimed, let available):
                return "truncated: header claims \(claimed) frames but the file holds at most \(available)"
            case .readFailed(let why): return "read failed (\(why))"
            case .destinationMissing: return "destination folder does not exist"
            case .destinationNotWritable(let why): return "destination is not writable (\(why))"
            case .diskFull: return "disk full (no space left on device)"
            case .writeFailed(let why): return "write failed (\(why))"
            case .wouldOverwriteInput: return "refusing to write over the input file"
            }
        }
    }

    /// The file concerned.
    public let path: String
    public let cause: Cause

    public init(path: String, cause: Cause) {
        self.path = path
        self.cause = cause
    }

    public var description: String { "\(path): \(cause)" }
}
