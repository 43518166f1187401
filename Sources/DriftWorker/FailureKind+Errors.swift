import DriftAudio
import DriftCore
import DriftRepair

extension FailureKind {
    /// The kind of a job's failure from what its repair threw: the one rule every job runner uses, so the retry
    /// rule, the metrics and the report read the same word.
    init(of error: any Error) {
        switch error {
        case let error as AudioError: self.init(of: error.cause)
        case is ContentRepair.SyncFailure: self = .outOfSync
        case let error as ProcessError: self = error.isVerification ? .verification : .other
        case is ConfinementError: self = .refused
        default: self = .other
        }
    }

    init(of cause: AudioError.Cause) {
        switch cause {
        case .diskFull: self = .outputFull
        case .writeFailed, .destinationNotWritable, .destinationMissing: self = .outputUnwritable
        case .wouldOverwriteInput, .destinationExists, .destinationNotRegular: self = .refused
        case .fenced: self = .leaseLost
        case .notFound, .isDirectory, .notRegularFile, .permissionDenied, .emptyFile, .noFrames, .noAudioStream,
            .notAudio,
            .unsupported,
            .corrupt, .truncated, .hiddenAudio, .malformedChunk, .readFailed:
            self = .inputUnreadable
        }
    }
}
