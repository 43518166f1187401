/// What went wrong with a night beside its pairs' own outcomes: each one makes the night unsuccessful (exit 1), and
/// each is said on one line.
public enum RunProblem: Sendable, Equatable, CustomStringConvertible {
    /// The job store (the journal) failed mid-run (a full disk...): dispatch stopped.
    case storeFailed(String)
    /// The local workers kept dying at start-up: how the last one ended.
    case workersFailing(String)
    /// The night's end could not be recorded in the journal: the next run would resume this one.
    case notRecorded(String)
    /// The metrics file could not be written.
    case metricsNotWritten(String)

    public var description: String {
        switch self {
        case .storeFailed(let reason), .workersFailing(let reason), .notRecorded(let reason),
            .metricsNotWritten(let reason):
            return reason
        }
    }
}
