import DriftSchema
import DriftSoundPairing

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
    /// The timeline could not be written.
    case timelineNotWritten(String)
    /// Pairs a scan was asked to measure by their sound that were not measured (each row says why).
    case unmeasured(Int)
    /// Clips a pairing by sound could not settle (nothing was cut from them), by why: heard at places that fit
    /// equally, heard but confirmed nowhere, too short to measure, silent, heard by no recording clearly.
    case clipsLeft([SoundPairingReport.LeftClip.Why: Int])

    public var description: String {
        switch self {
        case .storeFailed(let reason), .workersFailing(let reason), .notRecorded(let reason),
            .metricsNotWritten(let reason), .timelineNotWritten(let reason):
            return reason
        case .unmeasured(let count):
            return
                "\(count) pair\(count == 1 ? " was" : "s were") not measured by \(count == 1 ? "its" : "their") sound"
        case .clipsLeft(let counts):
            let total = counts.values.reduce(0, +)
            let words: [(SoundPairingReport.LeftClip.Why, String)] = [
                (.repeats, "heard at places that fit equally"), (.unconfirmed, "found but confirmed nowhere"),
                (.tooShort, "too short to measure"), (.silent, "silent"), (.unheard, "heard by no recording clearly"),
            ]
            let parts = words.compactMap { why, text in counts[why].map { "\($0) \(text)" } }
            return
                "\(total) clip\(total == 1 ? "" : "s") left for a person, nothing cut from \(total == 1 ? "it" : "them"): \(parts.joined(separator: ", "))"
        }
    }
}
