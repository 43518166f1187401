/// Why a job failed, as scripts, metrics ("failures by reason") and the retry rule read it; the sentence beside it,
/// naming the file and the cause, is for people.
public enum FailureKind: String, Codable, Sendable, CaseIterable {
    /// The input cannot be read as audio: missing, unreadable, empty, corrupt, truncated, unsupported.
    case inputUnreadable = "input-unreadable"
    /// Refused by the worker's confinement or the safety rules: outside the roots, overlapping roots, a path that
    /// leads out, an output that would replace an input or something that is not a regular file.
    case refused
    /// The destination is full.
    case outputFull = "output-full"
    /// The destination cannot be written: read-only, gone, no permission, a write error.
    case outputUnwritable = "output-unwritable"
    /// The written output did not verify (its length, its format, the copied streams), or the plan does not fit the
    /// file.
    case verification
    /// The written output did not prove in sync against the reference's sound.
    case outOfSync = "out-of-sync"
    /// The workers running it died or went silent, as many times as a job may be handed out.
    case workerLost = "worker-lost"
    /// Done and verified by a worker that had lost touch with the coordinator past its lease, so not published: the
    /// job may belong to another worker now.
    case leaseLost = "lease-lost"
    case other

    /// Whether another attempt, on another worker, may succeed: a destination recovers (space freed, another
    /// worker's disk), and a fenced output was never wrong; a bad input, a refusal or a failed proof fail the same
    /// way again.
    public var retryable: Bool { self == .outputFull || self == .outputUnwritable || self == .leaseLost }
}
