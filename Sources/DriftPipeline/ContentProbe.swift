import DriftAudio
import DriftAV
import DriftCore
import DriftSync
import Foundation

/// Content measurement on files: opens a recording's audio and a reference's own sound (an audio file, or the audio
/// track of a video) for `ContentMeasurer`, each pass decoding it again from the start.
public enum ContentProbe {
    /// `path`'s audio (stream `stream` of a media file, else its first audio stream), ready to be measured.
    public static func input(_ path: String, stream: Int? = nil) throws(AudioError) -> MeasuredInput {
        if MediaRoute.decodesWithFFmpeg(path) {
            // Decoded once per pass, without the counting pass an exact length needs: measurement reads to the end.
            let probe = try DecodedAudioStream(path: path, stream: stream)
            return MeasuredInput(path: path, sampleRate: probe.sampleRate) { try DecodedAudioStream(path: path, stream: stream) }
        }
        let probe = try AudioFileReader(path: path)
        return MeasuredInput(path: path, sampleRate: probe.format.sampleRate) { try AudioFileReader(path: path) }
    }

    /// Measures `recording` against `reference`'s sound.
    ///
    /// - Throws: `AudioError` naming the file that cannot be read; a reference without sound says so.
    public static func measure(recording: String, reference: String, settings: ContentMeasurer.Settings = .init())
        throws -> ContentMeasurement
    {
        let recordingInput = try input(recording)
        let referenceInput: MeasuredInput
        do {
            referenceInput = try input(reference)
        } catch let error where error.cause == .unsupported("no audio stream") {
            throw AudioError(path: reference, cause: .unsupported("the reference has no sound of its own (no audio stream) to measure against"))
        }
        return try ContentMeasurer(settings: settings).measure(recording: recordingInput, reference: referenceInput)
    }
}
