import DriftAV
import DriftAudio
import DriftCore
import DriftDSP
import DriftSchema
import DriftSync
import Foundation
import Synchronization

import struct SystemPackage.FilePath

/// Clips found in long recordings by their sound: each file's print, each clip's place in a recording measured on
/// that stretch of the recording, and the repair that cuts the clip's audio out of the recording in sync.
public enum ClipSync {
    /// The version of how a clip is measured, chosen and cut: a night keeps an earlier night's finding for a clip only
    /// when it was made by the same version (raise it when a change could find otherwise).
    public static let version = 1

    /// Seconds of recording measured either side of the place the prints found (they are right to 10 ms; this covers
    /// a coarse place, 50 ms, and the drift of a few thousand ppm over a long clip, which `measure` adds). Recording
    /// beyond the clip's ends has nothing to agree with and counts against the confidence, so it is kept short.
    static let margin = 1.0

    /// `path`'s print, or nil when it has no sound of its own (a video without an audio track).
    ///
    /// - Throws: `AudioError` naming the file when it cannot be read.
    public static func print(of path: String) throws(AudioError) -> SoundPrint? {
        guard let input = try ContentProbe.sound(of: path) else { return nil }
        do {
            return try SoundPrint.make(input)
        } catch let error as AudioError {
            throw error
        } catch {
            throw AudioError(path: path, cause: .corrupt("\(error)"))
        }
    }

    /// A clip's place in a recording, measured there.
    public struct Placement: Sendable {
        public var recording: String
        public var clip: String
        /// What the prints found.
        public var candidate: SoundCandidate
        /// The measurement, on the recording's own timeline (the offset is the clip time of the recording's first
        /// frame).
        public var content: ContentMeasurement
        /// The recording's length and rate.
        public var recordingFrames: Int64
        public var sampleRate: Int
        /// The clip's sound, seconds.
        public var clipSeconds: Double

        /// Recording time of the clip's first moment, seconds (negative: the recording started after the clip).
        public var recordingStartSeconds: Double? {
            guard let offset = content.offsetMs, let drift = content.driftPPM else { return nil }
            return -offset / 1000 * (1 + drift * 1e-6)
        }

        /// Recording time of the clip's last moment, seconds (past the recording's end: it stopped first); sooner by
        /// the time the recorder lost in dropouts.
        public var recordingEndSeconds: Double? {
            guard let start = recordingStartSeconds, let drift = content.driftPPM else { return nil }
            let lost = content.dropouts.filter { $0.atSeconds > start }.reduce(0) { $0 + $1.missingMs / 1000 }
            return start + (clipSeconds - lost) * (1 + drift * 1e-6)
        }

        /// Measured, and sure enough to repair from: confident, or - for a short clip, whose few windows make the
        /// confidence low even where every one of them is right - at half that confidence where the measurement
        /// (correlated windows of the sound) lands within 25 ms of where the prints (onsets) clearly put the clip:
        /// two independent witnesses that agree.
        public func isConfirmed(minimumConfidence: Double) -> Bool {
            guard content.isMeasured else { return false }
            if content.confidence >= minimumConfidence { return true }
            guard content.confidence >= minimumConfidence / 2, candidate.isClear, let start = recordingStartSeconds
            else { return false }
            return abs(start - candidate.startSeconds) <= 0.025
        }
    }

    /// Measures `clip` against the stretch of `recording` around `candidate`.
    ///
    /// - Throws: `AudioError` naming the file that cannot be read.
    /// - Parameter recordingLength: the recording's frames and rate where the caller counted them already (a compressed
    ///   file is counted by decoding it whole).
    public static func measure(
        recording: String, clip: String, candidate: SoundCandidate, clipSeconds: Double,
        recordingLength: (frames: Int64, sampleRate: Int)? = nil
    ) throws -> Placement {
        let whole = try ContentProbe.input(recording)
        let (frames, rate) = try recordingLength ?? AudioInput.length(of: recording)
        guard let clipSound = try ContentProbe.sound(of: clip) else {
            throw AudioError(
                path: clip, cause: .unsupported("the clip has no sound of its own (no audio stream) to find"))
        }
        let first = max(0, Int64(((candidate.startSeconds - margin) * Double(rate)).rounded(.down)))
        let last = min(
            frames, Int64(((candidate.startSeconds + clipSeconds * 1.003 + margin) * Double(rate)).rounded(.up)))
        guard last > first else {
            let unmeasured = ContentMeasurement(
                offsetMs: nil, driftPPM: nil, driftPPMError: nil, model: .unmeasurable, confidence: 0,
                reason: "the recording does not reach the place its sound was found", unmeasurable: .noCommonSound)
            return Placement(
                recording: recording, clip: clip, candidate: candidate, content: unmeasured,
                recordingFrames: frames, sampleRate: rate, clipSeconds: clipSeconds)
        }
        let span = MeasuredInput(path: recording, sampleRate: rate) {
            SpanSource(try whole.open(), range: first..<last)
        }
        // The clip's start in the span, where the prints put it: reference (clip) time less recording (span) time.
        let expected = -(candidate.startSeconds - Double(first) / Double(rate))
        let measured = try ContentMeasurer().measure(recording: span, reference: clipSound, expectedLag: expected)
        return Placement(
            recording: recording, clip: clip, candidate: candidate,
            content: measured.shifted(bySeconds: Double(first) / Double(rate)),
            recordingFrames: frames, sampleRate: rate, clipSeconds: clipSeconds)
    }

    /// What a clip's repair did.
    public struct Repair: Sendable {
        public var operations: [RepairOperation]
        public var result: ProcessResult
        /// The written file measured against the clip.
        public var verification: SyncVerification
    }

    /// Writes the clip's audio cut from the recording: `clipFrames` frames at the recording's rate, every moment at
    /// the clip's moment, proved in sync against the clip before it is renamed into place.
    ///
    /// - Throws: `ContentRefusal` when the measurement cannot plan it, `ContentRepair.SyncFailure` when the written
    ///   file does not prove in sync (it is discarded), or what reading and writing throw.
    /// - Parameter mux: write a copy of the clip with this audio in place of its own (video and other streams copied
    ///   packet for packet) rather than an audio file.
    /// - Parameter recordingName: the recording's name for the cut's metadata, where `placement.recording` is a
    ///   pinned path.
    ///
    /// The cut carries the recording's chunks (bext, iXML with its scene, take and track names, markers inside the
    /// cut), its time stamps at the clip's start timecode where the clip has one, else at the recording's own time
    /// plus the cut's offset: an editor's sync by timecode lines it up with the clip.
    public static func repair(
        _ placement: Placement, clipFrames: Int64, output: String, quality: ResampleQuality = .default,
        engine: ResampleEngine = .default, limitMs: Double = 1, mux: Bool = false, recordingName: String? = nil
    ) throws -> Repair {
        let operations = try ContentRepairPlan.clipOperations(
            for: placement.content, frames: placement.recordingFrames, sampleRate: placement.sampleRate,
            clipFrames: clipFrames
        ).get()
        // The format follows the output's extension (a WAV recording may be cut into FLAC).
        var request = ProcessRequest(
            input: placement.recording, output: output, target: nil, quality: quality,
            outputType: mux ? nil : FileType(extension: FilePath(output).lowercasedExtension ?? ""))
        request.engine = engine
        if mux { request.muxInto = MuxTarget(media: placement.clip) }
        request.operations = operations
        request.isCut = true
        request.startTime = StartTimecode.exact(of: placement.clip)
        request.inputName = recordingName
        let verified = Mutex<SyncVerification?>(nil)
        let clip = placement.clip
        request.beforeCommit = { temporary in
            let verification = try ContentProbe.verify(
                output: temporary, reference: clip, expectedOffsetMs: 0, limitMs: limitMs)
            verified.withLock { $0 = verification }
            if !verification.passed { throw Rejected() }
        }
        do {
            let result = try FileProcessor.run(request)
            guard let verification = verified.withLock({ $0 }) else { throw Rejected() }
            return Repair(operations: operations, result: result, verification: verification)
        } catch is Rejected {
            let verification = verified.withLock { $0 }
            var content = placement.content
            content.residualMs = verification?.residualMs
            content.residualLimitMs = verification?.limitMs
            throw ContentRepair.SyncFailure(
                path: output, content: content,
                decision: ContentDecision(action: .repair(operations), measuredBy: .content),
                reason: verification?.reason ?? "the output could not be measured")
        }
    }

    private struct Rejected: Error {}
}
