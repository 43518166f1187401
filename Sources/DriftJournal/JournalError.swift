internal import GRDB

/// Why the journal cannot be used, with its path; one line for the user.
public struct JournalError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Cause: Sendable, Equatable {
        /// SQLite found the file damaged, or it is not a database at all.
        case corrupt(String)
        /// Another driftfix coordinator owns this journal.
        case inUse(String)
        /// Another process holds an SQLite lock longer than the busy timeout.
        case locked
        case diskFull
        /// The folder or file cannot be written (permissions, read-only file system).
        case notWritable(String)
        /// The journal was written by a newer driftfix.
        case newerSchema(String)
        case other(String)
    }

    public let path: String
    public let cause: Cause

    public init(path: String, cause: Cause) {
        self.path = path
        self.cause = cause
    }

    public var description: String {
        switch cause {
        case .corrupt(let detail):
            return
                "journal \(path) is damaged (\(detail)); nothing was changed. Move it aside to start a fresh journal "
                + "(resume state and drift history in it are then not used)"
        case .inUse(let owner):
            return
                "journal \(path) is in use by another driftfix repair (\(owner)); wait for it, or give this run another --journal"
        case .locked:
            return "journal \(path) is locked by another process (SQLite busy for 5 s); try again when it is done"
        case .diskFull:
            return "journal \(path): no space left on the device; the journal is intact up to its last complete "
                + "transaction - free space and run again to resume"
        case .notWritable(let detail):
            return "journal \(path) cannot be written (\(detail))"
        case .newerSchema(let detail):
            return "journal \(path) was written by a newer driftfix (\(detail)); use that version or another --journal"
        case .other(let detail):
            return "journal \(path): \(detail)"
        }
    }

    /// Classifies an SQLite error by its primary result code.
    static func from(_ error: Error, path: String) -> JournalError {
        if let journalError = error as? JournalError { return journalError }
        guard let sqlite = error as? DatabaseError else { return JournalError(path: path, cause: .other("\(error)")) }
        let message = sqlite.message ?? "\(sqlite.resultCode)"
        switch sqlite.resultCode.primaryResultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return JournalError(path: path, cause: .corrupt(message))
        case .SQLITE_BUSY, .SQLITE_LOCKED: return JournalError(path: path, cause: .locked)
        case .SQLITE_FULL: return JournalError(path: path, cause: .diskFull)
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN, .SQLITE_AUTH:
            return JournalError(path: path, cause: .notWritable(message))
        default:
            return JournalError(path: path, cause: .other(message))
        }
    }
}
