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
        public let path: FilePath
        public let ext: String
        /// Every extension driftfix writes, lowercase, without the dot.
        public let known: [String]
    }

    /// The file type to write: `chosen` (an option, then the configuration), else the output's extension. Nil: a
    /// media container (.m4a, .mp4, .mkv...) written through FFmpeg in the input's codec, or no extension (the
    /// input's type).
    public static func outputType(for output: FilePath, chosen: FileType?) throws(UnknownType) -> FileType? {
        if let chosen { return chosen }
        guard let ext = output.lowercasedExtension else { return nil }
        if let type = FileType(extension: ext) { return type }
        guard MediaRewriter.writes(extension: ext) else {
            throw UnknownType(path: output, ext: ext, known: FileType.knownExtensions + MediaRewriter.extensions)
        }
        return nil
    }

    /// The length `reference` sets: a sound file's exact frames at its rate, else a media file's duration.
    public static func target(matching reference: FilePath) throws -> TargetLength {
        let reference = reference.pathText
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
    /// - Parameters:
    ///   - request: what to read, what to make of it and where to write it.
    ///   - progress: after each block, (output frames written, output frames in all); what it throws stops the
    ///     repair (nothing placed) and is thrown here.
    public static func repair(_ request: ProcessRequest, progress: ((Int64, Int64) throws -> Void)? = nil) throws
        -> ProcessResult
    {
        try FileProcessor.run(request, progress: progress)
    }

    /// A file's frame count and rate, counted (compressed audio decoded), and the count `reference` or `frames`
    /// expects at that rate.
    public static func length(of path: FilePath, expecting expected: LengthExpectation) throws -> (
        found: Int64, expected: Int64
    ) {
        let (found, rate) = try AudioInput.length(of: path.pathText)
        switch expected {
        case .frames(let frames): return (found, frames)
        case .duration(of: let reference):
            return (found, try target(matching: reference).resolve(inputFrames: found, sampleRate: rate))
        }
    }

    /// What `length(of:expecting:)` holds a file to.
    public enum LengthExpectation: Sendable {
        case frames(Int64)
        case duration(of: FilePath)
    }

    /// Proves `output` in sync with `reference`'s sound: its sound found `expectedOffset` from the reference's (the
    /// recording's sound starting later is positive), within `limit`.
    public static func verifySync(output: FilePath, reference: FilePath, expectedOffset: Duration, limit: Duration)
        throws -> SyncVerification
    {
        try ContentProbe.verify(
            output: output.pathText, reference: reference.pathText,
            expectedOffsetMs: expectedOffset.seconds * 1000, limitMs: limit.seconds * 1000)
    }

    /// Measures `recording` against `reference`'s sound. When both files state a length, the headers' drift is a
    /// hint for large drifts and is compared with the sound's.
    public static func measure(recording: FilePath, reference: FilePath) throws -> ContentMeasurement {
        let (recording, reference) = (recording.pathText, reference.pathText)
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

    /// Whether a one-file repair to `reference`'s length is measured by the sound under `policy`: always under
    /// `content` and `both`; under `auto`, where the two lengths differ by more than a clock drifts (a take started or
    /// stopped apart from its camera) and the reference has sound of its own; never under `headers`, nor where the
    /// reference is the recording's own file.
    public static func measuresBySound(
        recording: FilePath, reference: FilePath, policy: ContentPolicy, drift: DriftPolicy
    ) -> Bool {
        // A media file's own track to its own picture has no other sound to measure against (as a night's
        // self-pair): the lengths plan it.
        guard recording.resolvingLinks() != reference.resolvingLinks() else { return false }
        let (recording, reference) = (recording.pathText, reference.pathText)
        switch policy.mode {
        case .headers: return false
        case .content, .both: return true
        case .auto:
            guard let lengths = lengths(recording: recording, reference: reference) else { return false }
            let analysis = DriftAnalysis(
                recordingFrames: lengths.frames, sampleRate: lengths.rate, referenceSeconds: lengths.reference,
                recordingPath: recording, drift: drift)
            return analysis.cause == .lengthsDiffer && ((try? ContentProbe.sound(of: reference)) ?? nil) != nil
        }
    }

    /// The recording's frames and rate and the reference's exact duration, where both headers tell them.
    private static func lengths(recording: String, reference: String) -> (
        frames: Int64, rate: Int, reference: Rational
    )? {
        guard let measured = try? RecordingProbe.measure(recording), measured.frames > 0,
            case .success(let duration) = ReferenceProbe.duration(of: reference, movieHeaderFallback: true),
            duration.seconds.numerator > 0
        else { return nil }
        return (measured.frames, measured.sampleRate, duration.seconds)
    }

    /// Repairs `recording` by its sound against `reference`'s, as a night's content job does: measured, decided
    /// under `policy` (the lengths' plan where the sound cannot tell, under `auto`), repaired and proved in sync
    /// before the output is renamed into place.
    ///
    /// - Throws: `AudioError` or `ProcessError` naming the file and the cause (an output that did not prove in sync
    ///   among them: discarded, never placed).
    public static func repairBySound(
        recording: FilePath, reference: FilePath, output: FilePath, policy: ContentPolicy, method: MethodChoice,
        quality: ResampleQuality, engine: ResampleEngine, overwrite: Bool,
        progress: ((Int64, Int64) throws -> Void)? = nil
    ) throws -> SoundRepair {
        let (recording, reference, output) = (recording.pathText, reference.pathText, output.pathText)
        guard let lengths = lengths(recording: recording, reference: reference) else {
            throw ProcessError(path: reference, cause: "its length cannot be read to compare with the recording's")
        }
        let target = lengths.reference.multipliedRounded(by: Int64(lengths.rate)) ?? lengths.frames
        let recordingSeconds = Double(lengths.frames) / Double(lengths.rate)
        let referenceSeconds = lengths.reference.doubleValue
        let operation: RepairOperation =
            method.method == .stretch ? .stretch(frames: target) : .resample(frames: target)
        let headers = HeaderPlan(
            operations: target == lengths.frames ? [] : [operation],
            driftPPM: (recordingSeconds / referenceSeconds - 1) * 1e6, recordingSeconds: recordingSeconds,
            referenceSeconds: referenceSeconds, referenceFrames: target, method: method.method)
        var request = ContentRepair.Request(
            recording: recording, reference: reference, output: output, policy: policy.forWorker, headers: headers,
            quality: quality, replacing: overwrite ? .regularFile : .never)
        request.engine = engine
        do {
            let outcome = try ContentRepair.run(request, progress: progress)
            return SoundRepair(
                measurement: outcome.content, action: outcome.decision.action,
                measuredBy: outcome.decision.measuredBy, note: outcome.decision.note, result: outcome.result)
        } catch let failure as ContentRepair.SyncFailure {
            throw ProcessError(
                path: failure.path, cause: "sync verification failed: \(failure.reason); nothing written")
        }
    }

    /// What a one-file repair by the sound found and did.
    public struct SoundRepair: Sendable {
        /// The sound's measurement (with the residual left once the output proved in sync); nil where the reference
        /// has no sound.
        public var measurement: ContentMeasurement?
        /// Repaired (these operations), skipped or refused, and why.
        public var action: ContentDecision.Action
        /// Which measurement decided: the sound, or the lengths where the sound could not tell.
        public var measuredBy: PlanMeasurement
        /// Why the sound was not used, where it was not.
        public var note: String?
        /// The repair, when one ran.
        public var result: ProcessResult?
    }
}
