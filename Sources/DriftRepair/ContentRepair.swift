import DriftAV
import DriftAudio
import DriftCore
import DriftSync
import Foundation
import Synchronization

/// One pair measured by its sound and repaired by what was measured, as a worker runs a content job and
/// `driftfix process --sync-to` runs it locally: measure the recording against the reference's sound, compare with
/// the headers, decide under the policy, repair (start offset, dropouts, rate), and prove the written file in sync
/// before it is renamed into place.
public enum ContentRepair {
    public struct Request: Sendable {
        /// The recording to read (its path, or a pinned descriptor's).
        public var recording: String
        /// The reference whose sound is the truth.
        public var reference: String
        /// Where to write; nil measures only.
        public var output: String?
        public var policy: ContentPolicy
        /// What the headers alone would do.
        public var headers: HeaderPlan
        public var quality: ResampleQuality
        public var engine: ResampleEngine = .default
        public var replacing: StagedOutput.Replacement
        /// The recording's name for the output's metadata, where `recording` is a pinned path.
        public var recordingName: String?

        public init(
            recording: String, reference: String, output: String?, policy: ContentPolicy, headers: HeaderPlan,
            quality: ResampleQuality = .default, replacing: StagedOutput.Replacement = .regularFile
        ) {
            self.recording = recording
            self.reference = reference
            self.output = output
            self.policy = policy
            self.headers = headers
            self.quality = quality
            self.replacing = replacing
        }
    }

    public struct Outcome: Sendable {
        /// The sound's measurement (nil where the reference has none), with the residual once a content repair
        /// verified.
        public var content: ContentMeasurement?
        public var decision: ContentDecision
        /// The repair, when one ran.
        public var result: ProcessResult?
    }

    /// A written file that did not prove in sync: discarded, never placed.
    public struct SyncFailure: Error, CustomStringConvertible {
        public let path: String
        /// The measurement with the residual and its curve.
        public let content: ContentMeasurement
        public let decision: ContentDecision
        /// Why: the residual beyond its limit, or an output that cannot be measured.
        public let reason: String

        public var description: String { "\(path): sync verification failed: \(reason)" }
    }

    /// Measures, decides and (unless measuring only, or the decision is skip or refuse) repairs.
    ///
    /// - Throws: `AudioError`, `ProcessError`, `DSPError` naming the file and the cause, or `SyncFailure`.
    public static func run(_ request: Request, progress: ((Int64, Int64) throws -> Void)? = nil) throws -> Outcome {
        let (frames, rate) = try AudioInput.length(of: request.recording)
        var measurement: ContentMeasurement?
        if request.policy.measuresContent, let sound = try ContentProbe.sound(of: request.reference) {
            var measured = try ContentMeasurer().measure(
                recording: try ContentProbe.input(request.recording), reference: sound,
                driftHints: request.headers.driftPPM.map { [$0] } ?? [])
            measured.compare(
                headerDriftPPM: request.headers.driftPPM, recordingSeconds: Double(frames) / Double(rate),
                referenceSeconds: request.headers.referenceSeconds, headerPrecisionMs: request.policy.headerPrecisionMs)
            measurement = measured
        }
        var headers = request.headers
        if headers.referenceFrames == nil, let seconds = headers.referenceSeconds {
            headers.referenceFrames = Int64((seconds * Double(rate)).rounded())
        }
        let decision = ContentDecision.decide(
            policy: request.policy, measurement: measurement, headers: headers,
            recordingFrames: frames, sampleRate: rate)
        guard let output = request.output, case .repair(let operations) = decision.action else {
            return Outcome(content: measurement, decision: decision, result: nil)
        }
        var process = ProcessRequest(
            input: request.recording, output: output, target: nil, quality: request.quality,
            replacing: request.replacing)
        process.engine = request.engine
        process.operations = operations
        process.inputName = request.recordingName
        // The sync proof, for a repair the sound planned: the written file against the reference, before it counts.
        let verified = Mutex<SyncVerification?>(nil)
        if decision.measuredBy == .content, let measurement {
            let expected = request.policy.start == .reference ? 0 : measurement.offsetMs ?? 0
            let limit = request.policy.residualLimitMs
            let reference = request.reference
            process.beforeCommit = { temporary in
                let verification = try ContentProbe.verify(
                    output: temporary, reference: reference,
                    expectedOffsetMs: expected, limitMs: limit)
                verified.withLock { $0 = verification }
                if !verification.passed { throw SyncRejected() }
            }
        }
        do {
            let result = try FileProcessor.run(process, progress: progress)
            return Outcome(
                content: measurement.map { with($0, verified.withLock { $0 }) }, decision: decision, result: result)
        } catch is SyncRejected {
            let verification = verified.withLock { $0 }
            let content = with(
                measurement
                    ?? ContentMeasurement(
                        offsetMs: nil, driftPPM: nil, driftPPMError: nil,
                        model: .unmeasurable, confidence: 0), verification)
            throw SyncFailure(
                path: output, content: content, decision: decision,
                reason: verification?.reason ?? "the output could not be measured")
        }
    }

    /// `measurement` with the verification's residual, limit and curve.
    static func with(_ measurement: ContentMeasurement, _ verification: SyncVerification?) -> ContentMeasurement {
        guard let verification else { return measurement }
        var content = measurement
        content.residualMs = verification.residualMs
        content.residualLimitMs = verification.limitMs
        content.residualCurve = verification.curve
        return content
    }

    private struct SyncRejected: Error {}
}
