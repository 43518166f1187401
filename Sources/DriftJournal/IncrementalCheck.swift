import DriftAudio
import DriftCoordinator
import Foundation

/// Decides whether last night's output of a recording can stand: the recording and its reference are unchanged
/// (size, modification time, sampled-content hash), the plan is the same (target, method, quality, path), and the
/// output is still there, unchanged since it was verified, and still reopens with exactly the target length.
public enum IncrementalCheck {
    public enum Verdict: Equatable, Sendable {
        case current(OutputRecord)
        /// Why the job must run (for the log).
        case stale(String)
    }

    public static func verdict(for job: JobRecord, prints: JobFingerprints?, previous: OutputRecord?) -> Verdict {
        guard let previous else { return .stale("never repaired") }
        guard let prints else { return .stale("inputs could not be fingerprinted") }
        if previous.prints.recording != prints.recording { return .stale("the recording changed") }
        if previous.prints.reference != prints.reference { return .stale("the reference changed") }
        if previous.prints.plan != prints.plan { return .stale("the plan changed") }
        guard let seen = JournalJobStore.fileStatus(previous.output) else { return .stale("the output is gone") }
        if let size = previous.outputSize, let modified = previous.outputModified, size != seen.size || modified != seen.modified {
            return .stale("the output changed since it was verified")
        }
        guard let verification = try? AudioFileVerifier.verify(path: previous.output, expectedFrames: job.spec.targetFrames),
              verification.passed, previous.outputFrames == job.spec.targetFrames
        else { return .stale("the output no longer verifies") }
        return .current(previous)
    }
}
