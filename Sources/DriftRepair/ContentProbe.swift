import DriftAV
import DriftAudio
import DriftCore
import DriftSync
import Foundation

/// Content measurement on files: opens a recording's audio and a reference's own sound (an audio file, or the audio
/// track of a video) for `ContentMeasurer`.
public enum ContentProbe {
    /// `path`'s audio (stream `stream` of a media file, else its first audio stream), ready to be measured.
    public static func input(_ path: String, stream: Int? = nil) throws(AudioError) -> MeasuredInput {
        let audio = try AudioInput.stream(path, stream: stream)
        return MeasuredInput(path: path, sampleRate: audio.sampleRate, open: audio.open)
    }

    /// The reference's own sound, or nil when it has none (a video without an audio track, a sidecar file).
    ///
    /// - Throws: `AudioError` when the file cannot be read at all.
    public static func sound(of reference: String) throws(AudioError) -> MeasuredInput? {
        do {
            return try input(reference)
        } catch {
            switch error.cause {
            case .noAudioStream, .notAudio: return nil
            default: throw error
            }
        }
    }

    /// Measures `recording` against `reference`'s sound.
    ///
    /// - Throws: `AudioError` naming the file that cannot be read; a reference without sound says so.
    public static func measure(
        recording: String, reference: String, driftHints: [Double] = [],
        settings: ContentMeasurer.Settings = .init()
    ) throws -> ContentMeasurement {
        let recordingInput = try input(recording)
        guard let referenceInput = try sound(of: reference) else {
            throw AudioError(
                path: reference,
                cause: .unsupported("the reference has no sound of its own (no audio stream) to measure against"))
        }
        return try ContentMeasurer(settings: settings).measure(
            recording: recordingInput, reference: referenceInput,
            driftHints: driftHints)
    }

    /// Proves `output` in sync with `reference`: the lag left across it, against `expectedOffsetMs`.
    public static func verify(output: String, reference: String, expectedOffsetMs: Double = 0, limitMs: Double = 1)
        throws -> SyncVerification
    {
        let outputInput = try input(output)
        guard let referenceInput = try sound(of: reference) else {
            throw AudioError(
                path: reference,
                cause: .unsupported("the reference has no sound of its own (no audio stream) to verify against"))
        }
        return try ContentMeasurer().verify(
            output: outputInput, reference: referenceInput,
            expectedOffsetMs: expectedOffsetMs, limitMs: limitMs)
    }
}
