import DriftAV
import DriftAudio
import DriftCore
import DriftMedia
import DriftRepair

import struct SystemPackage.FilePath

/// The one-file commands' side in the library (`process`, `verify`, `measure`): what they read, in what order, and
/// which library answers. A front end fills the values and words the results.
public enum SingleFile {
    /// What an output's type cannot be told from.
    public struct UnknownType: Error, Sendable {
        public let path: String
        public let ext: String
        /// Every extension driftfix writes, lowercase, without the dot.
        public let known: [String]
    }

    /// The file type to write: `chosen` (an option, then the configuration), else the output's extension. Nil: a
    /// media container (.m4a, .mp4, .mkv...) written through FFmpeg in the input's codec, or no extension (the
    /// input's type).
    public static func outputType(for output: String, chosen: FileType?) throws(UnknownType) -> FileType? {
        if let chosen { return chosen }
        guard let ext = FilePath(output).lowercasedExtension else { return nil }
        if let type = FileType(extension: ext) { return type }
        guard MediaRewriter.writes(extension: ext) else {
            throw UnknownType(path: output, ext: ext, known: FileType.knownExtensions + MediaRewriter.extensions)
        }
        return nil
    }

    /// The length `reference` sets: a sound file's exact frames at its rate, else a media file's duration.
    public static func target(matching reference: String) throws -> TargetLength {
        if AudioInput.library(for: reference) == .libsndfile, let file = try? AudioFileReader(path: reference) {
            return .duration(frames: file.frameCount, sampleRate: file.format.sampleRate)
        }
        switch ReferenceProbe.duration(of: reference) {
        case .success(let duration): return .seconds(duration.seconds)
        case .failure(let error): throw ProcessError(path: reference, cause: error.reason)
        }
    }

    /// Repairs one file, verified before it is renamed. Removing the temporary output on a signal is the process's
    /// to arrange (`PendingOutputs`), not a library's.
    ///
    /// - Parameter progress: after each block, (output frames written, output frames in all).
    public static func repair(_ request: ProcessRequest, progress: ((Int64, Int64) -> Void)? = nil) throws
        -> ProcessResult
    {
        try FileProcessor.run(request, progress: progress)
    }

    /// A file's frame count and rate, counted (compressed audio decoded), and the count `reference` or `frames`
    /// expects at that rate.
    public static func length(of path: String, expecting expected: LengthExpectation) throws -> (
        found: Int64, expected: Int64
    ) {
        let (found, rate) = try AudioInput.length(of: path)
        switch expected {
        case .frames(let frames): return (found, frames)
        case .duration(of: let reference):
            return (found, try target(matching: reference).resolve(inputFrames: found, sampleRate: rate))
        }
    }

    /// What `length(of:expecting:)` holds a file to.
    public enum LengthExpectation: Sendable {
        case frames(Int64)
        case duration(of: String)
    }

    /// Proves `output` in sync with `reference`'s sound.
    public static func verifySync(output: String, reference: String, expectedOffsetMs: Double, limitMs: Double) throws
        -> SyncVerification
    {
        try ContentProbe.verify(
            output: output, reference: reference, expectedOffsetMs: expectedOffsetMs, limitMs: limitMs)
    }

    /// Measures `recording` against `reference`'s sound. When both files state a length, the headers' drift is a
    /// hint for large drifts and is compared with the sound's.
    public static func measure(recording: String, reference: String) throws -> ContentMeasurement {
        var header: (drift: Double, recording: Double, reference: Double)?
        if let measured = try? RecordingProbe.measure(recording),
            case .success(let duration) = ReferenceProbe.duration(of: reference, movieHeaderFallback: true)
        {
            let recordingSeconds = Double(measured.frames) / Double(measured.sampleRate)
            let referenceSeconds = duration.seconds.doubleValue
            header = ((recordingSeconds / referenceSeconds - 1) * 1e6, recordingSeconds, referenceSeconds)
        }
        var measurement = try ContentProbe.measure(
            recording: recording, reference: reference, driftHints: header.map { [$0.drift] } ?? [])
        if let header {
            measurement.compare(
                headerDriftPPM: header.drift, recordingSeconds: header.recording, referenceSeconds: header.reference)
        }
        return measurement
    }
}
