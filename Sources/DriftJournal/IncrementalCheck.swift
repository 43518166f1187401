import DriftAudio
import DriftPlanning
import Foundation

/// Decides whether last night's output of a recording can stand: the recording and its reference are unchanged
/// (size, modification time, sampled-content hash), the plan is the same (target, method, quality, path), and the
/// output is still there, unchanged since it was verified, and still reopens with exactly the target length.
public enum IncrementalCheck {
    /// The verdict on `pair`'s earlier output `previous`, given the fingerprints of what it would be made from now.
    public static func verdict(for pair: PairPlan, prints: JobFingerprints?, previous: OutputRecord?) -> IncrementalVerdict {
        guard let previous else { return .stale("never repaired") }
        guard let prints else { return .stale("inputs could not be fingerprinted") }
        if previous.prints.recording != prints.recording { return .stale("the recording changed") }
        if previous.prints.reference != prints.reference { return .stale("the reference changed") }
        if previous.prints.plan != prints.plan { return .stale("the plan changed") }
        guard let seen = FileStatus.of(previous.output) else { return .stale("the output is gone") }
        if let size = previous.outputSize, let modified = previous.outputModified, size != seen.size || modified != seen.modified {
            return .stale("the output changed since it was verified")
        }
        guard let target = pair.targetFrames,
              let verification = try? AudioFileVerifier.verify(path: previous.output, expectedFrames: target),
              verification.passed, previous.outputFrames == target
        else { return .stale("the output no longer verifies") }
        return .current(PreviousOutput(output: previous.output, outputFrames: previous.outputFrames,
                                       checksum: previous.checksum, worker: previous.worker))
    }
}
