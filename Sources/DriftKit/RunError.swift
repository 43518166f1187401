import DriftJournal

/// Why a repair run could not start or finish, in domain terms; the command line words them and picks the exit code.
public enum RunError: Error, CustomStringConvertible, Sendable {
    /// `--resume` asked for a run and the journal has none over these roots, or there is no journal (`exists`).
    case nothingToResume(journal: String, exists: Bool)
    /// The settings cannot work, or a setting means nothing on the chosen path (`Run.Settings.validate`).
    case invalidSettings(Run.SettingsError)
    /// The journal cannot be used (in use, damaged, full disk, not writable...).
    case journal(JournalError)
    /// The CURVE setup cannot be used (a key file, the allowlist).
    case security(String)
    /// The output root cannot be made.
    case outputRoot(path: String, reason: String)
    /// The night's dispatch could not run: its endpoint (a bind that failed, an address in use), its ZeroMQ context
    /// or the workers it starts (a local pool, a Slurm array).
    case dispatch(String)

    public var description: String {
        switch self {
        case .nothingToResume(let journal, let exists):
            return exists
                ? "nothing to resume: journal \(journal) has no unfinished run over these roots"
                : "nothing to resume: there is no journal at \(journal)"
        case .invalidSettings(let error): return error.description
        case .journal(let error): return error.description
        case .security(let reason): return reason
        case .outputRoot(let path, let reason): return "\(path): cannot create the output root (\(reason))"
        case .dispatch(let reason): return reason
        }
    }
}

extension RunError {
    /// `body`'s errors as a run's: its own, or the journal's (anything else is the journal's too, named by it).
    static func journaling<T>(_ journal: Journal, _ body: () throws -> T) throws(RunError) -> T {
        do {
            return try body()
        } catch let error as RunError {
            throw error
        } catch let error as JournalError {
            throw .journal(error)
        } catch {
            throw .journal(JournalError(path: journal.path, cause: .other("\(error)")))
        }
    }
}
