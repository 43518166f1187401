import DriftPlanning
import Foundation

/// Decides whether last night's output of a recording can stand: the recording and its reference are unchanged
/// (size, modification time, sampled-content hash), the plan is the same (target, method, quality, path), and the
/// output is still there, unchanged since it was verified, and still reopens with exactly the target length.
public enum IncrementalCheck {
    /// The verdict on `pair`'s earlier output `previous`, given the fingerprints of what it would be made from now.
    ///
    /// - Parameter stillHolds: whether a file still holds a number of frames (the media layer's check, given here so
    ///   that the journal does not link the audio libraries).
    public static func verdict(
        for pair: PairPlan, prints: JobFingerprints?, previous: OutputRecord?,
        stillHolds: (_ path: String, _ frames: Int64) -> Bool
    ) -> IncrementalVerdict {
        guard let previous else { return .stale("never repaired") }
        guard let prints else { return .stale("inputs could not be fingerprinted") }
        if previous.prints.recording != prints.recording { return .stale("the recording changed") }
        if previous.prints.reference != prints.reference { return .stale("the reference changed") }
        if previous.prints.plan != prints.plan { return .stale("the plan changed") }
        guard let seen = FileStatus.of(previous.output) else { return .stale("the output is gone") }
        if let size = previous.outputSize, let modified = previous.outputModified,
            size != seen.size || modified != seen.modified
        {
            return .stale("the output changed since it was verified")
        }
        // A content repair's length is what the sound planned, as verified then; a header repair's is the target.
        let target = pair.measuredBy == .content ? previous.outputFrames : pair.targetFrames
        guard let target, previous.outputFrames == target, stillHolds(previous.output, target)
        else { return .stale("the output no longer verifies") }
        return .current(
            PreviousOutput(
                output: previous.output, outputFrames: previous.outputFrames,
                checksum: previous.checksum, worker: previous.worker))
    }
}
