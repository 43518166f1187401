public import struct SystemPackage.FilePath

/// Why a one-file call of the library failed: the file it concerns and the cause, in the library's terms (a front
/// end words them: `driftfix` names its options).
public struct RecordingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Cause: Sendable, Equatable {
        /// The output exists, and replacing it was not asked for.
        case outputExists
        /// The file cannot be read as audio (or a reference's length cannot be told), and why.
        case unreadable(String)
        /// The asked-for result cannot be made from this file (a length past a stretch's bounds, an empty target).
        case impossible(String)
        /// Writing or verifying failed, and why; nothing was placed.
        case failed(String)
        /// The calling task was cancelled; nothing was placed.
        case cancelled
    }

    public var file: FilePath
    public var cause: Cause

    public init(file: FilePath, cause: Cause) {
        self.file = file
        self.cause = cause
    }

    public var description: String {
        let why =
            switch cause {
            case .outputExists: "already exists"
            case .unreadable(let reason), .impossible(let reason), .failed(let reason): reason
            case .cancelled: "cancelled; nothing written"
            }
        return "\(file.pathText): \(why)"
    }
}
