import DriftJobs
import DriftPlanning
import Foundation

/// Decides whether last night's output can stand: what it was made from is unchanged (the recording and reference,
/// or the clip and the recordings that heard it: size, modification time, sampled-content hash; the plan: target,
/// method, quality, engine, path, a clip's places and settings), and the output is still there, unchanged since it was
/// verified, and still reopens with exactly its length.
public enum IncrementalCheck {
    /// The verdict on `pair`'s earlier output `previous`, given the fingerprints of what it would be made from now.
    ///
    /// - Parameter stillHolds: whether a file still holds a number of frames (the media layer's check, given here so
    ///   that the journal does not link the audio libraries).
    public static func verdict(
        for pair: PairPlan, prints: JobFingerprints?, previous: OutputRecord?,
        stillHolds: (_ path: String, _ frames: Int64) -> Bool
    ) -> IncrementalVerdict {
        // A content repair's length is what the sound planned, as verified then; a header repair's is the target.
        let target = pair.measuredBy == .content ? previous?.outputFrames : pair.targetFrames
        switch standing(previous, prints: prints, frames: target, stillHolds: stillHolds) {
        case .success(let previous):
            return .current(
                PreviousOutput(
                    output: previous.output, outputFrames: previous.outputFrames,
                    checksum: previous.checksum, worker: previous.worker, finding: previous.finding))
        case .failure(let stale):
            return .stale(stale.reason)
        }
    }

    /// Why an earlier output does not stand.
    public struct Stale: Error, Sendable, Equatable {
        public var reason: String
    }

    /// `previous`, when it still stands for work fingerprinted `prints` whose output must hold `frames` (nil: the
    /// length it was verified with); else why not.
    public static func standing(
        _ previous: OutputRecord?, prints: JobFingerprints?, frames: Int64? = nil,
        stillHolds: (_ path: String, _ frames: Int64) -> Bool
    ) -> Result<OutputRecord, Stale> {
        guard let previous else { return .failure(Stale(reason: "never repaired")) }
        guard let prints else { return .failure(Stale(reason: "inputs could not be fingerprinted")) }
        if previous.prints.recording != prints.recording { return .failure(Stale(reason: "the recording changed")) }
        if previous.prints.reference != prints.reference { return .failure(Stale(reason: "the reference changed")) }
        if previous.prints.plan != prints.plan { return .failure(Stale(reason: "the plan changed")) }
        // A finding that wrote nothing (a clip no place was sure of) stands on its inputs alone.
        if previous.output.isEmpty { return .success(previous) }
        guard let seen = FileStatus.of(previous.output) else { return .failure(Stale(reason: "the output is gone")) }
        if let size = previous.outputSize, let modified = previous.outputModified,
            size != seen.size || modified != seen.modified
        {
            return .failure(Stale(reason: "the output changed since it was verified"))
        }
        let target = frames ?? previous.outputFrames
        guard previous.outputFrames == target, stillHolds(previous.output, target) else {
            return .failure(Stale(reason: "the output no longer verifies"))
        }
        return .success(previous)
    }
}
