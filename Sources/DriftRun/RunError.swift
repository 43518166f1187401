import DriftJournal

/// Why a repair run could not start or finish, in domain terms; the command line words them and picks the exit code.
public enum RunError: Error, CustomStringConvertible, Sendable {
    /// `--resume` asked for a run and the journal has none over these roots.
    case nothingToResume(journal: String)
    /// Resuming keeps the stored plan; a full run makes a fresh one: both cannot be asked for.
    case resumeContradictsFull
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
        case .nothingToResume(let journal):
            return "nothing to resume: journal \(journal) has no unfinished run over these roots"
        case .resumeContradictsFull:
            return "resuming keeps the stored plan and a full run makes a fresh one: choose one"
        case .journal(let error): return error.description
        case .security(let reason): return reason
        case .outputRoot(let path, let reason): return "\(path): cannot create the output root (\(reason))"
        case .dispatch(let reason): return reason
        }
    }

    /// Whether the request itself was wrong (exit 2) rather than the environment (exit 1).
    public var isUsage: Bool {
        switch self {
        case .resumeContradictsFull: return true
        default: return false
        }
    }
}
