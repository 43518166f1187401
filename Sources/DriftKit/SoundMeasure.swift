import DriftAudio
import DriftRepair
import DriftSupport

public import struct SystemPackage.FilePath

/// A recording's drift measured from the sound: the recording's audio correlated with its reference's own (a
/// camera's scratch track), as `driftfix measure` does.
public enum SoundMeasure {
    /// Measures `recording` against `reference`'s sound: offset, clock rate, dropouts and the cause they point to.
    /// Where both files state a length, the lengths' drift is a hint for large drifts and is compared with the
    /// sound's. A measurement the sound cannot make is returned, not thrown: `isMeasured` is false and `reason`
    /// says why.
    ///
    /// - Throws: `RecordingError` naming the file that cannot be read.
    public static func drift(of recording: FilePath, against reference: FilePath) async throws(RecordingError)
        -> ContentMeasurement
    {
        do {
            return try await OwnThread.run(name: "driftfix-measure") {
                try SingleFile.measure(recording: recording, reference: reference)
            }
        } catch let error as AudioError {
            throw RecordingError(file: error.path, cause: .unreadable(error.cause.description))
        } catch let error as ProcessError {
            throw RecordingError(file: error.path, cause: .unreadable(error.cause))
        } catch {
            throw RecordingError(file: recording, cause: .unreadable("\(error)"))
        }
    }
}
