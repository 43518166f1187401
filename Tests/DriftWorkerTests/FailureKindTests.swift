import DriftAudio
import DriftCore
import DriftRepair
import Testing

@testable import DriftWorker

@Suite("Failure kinds: one rule from what a repair threw to the word the retry rule, metrics and reports read")
struct FailureKindTests {
    @Test("destinations are retryable, inputs and refusals are not; verification and sync failures have their own word")
    func classified() {
        func kind(_ cause: AudioError.Cause) -> FailureKind {
            FailureKind(of: AudioError(path: "/x.wav", cause: cause))
        }
        #expect(kind(.diskFull) == .outputFull && kind(.diskFull).retryable)
        #expect(kind(.destinationNotWritable("read-only file system")) == .outputUnwritable)
        #expect(kind(.writeFailed("EIO")) == .outputUnwritable && kind(.destinationMissing) == .outputUnwritable)
        #expect(kind(.wouldOverwriteInput) == .refused && !kind(.wouldOverwriteInput).retryable)
        #expect(kind(.destinationNotRegular(.fifo)) == .refused)
        for cause: AudioError.Cause in [
            .notFound, .emptyFile, .corrupt("bad chunk"), .truncated(claimedFrames: 10, availableFrames: 5),
            .unsupported("DSD"), .permissionDenied, .readFailed("EIO"),
        ] {
            #expect(kind(cause) == .inputUnreadable && !kind(cause).retryable, "\(cause)")
        }
        #expect(FailureKind(of: ProcessError.unverified("/o.wav", ["frames 9 != 10"])) == .verification)
        #expect(FailureKind(of: ProcessError(path: "/o.wav", cause: "something else")) == .other)
        #expect(FailureKind(of: ConfinementError("outside the input roots")) == .refused)
    }
}
