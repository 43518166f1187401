import DriftAudio
import DriftCore
import DriftRepair
import DriftWire
import Foundation
import Tracing

/// Runs a content job: the recording and its reference checked and pinned beneath the input roots, the sound
/// measured, the repair decided under the job's policy and (unless measuring only) run and proved in sync, all
/// through the pinned descriptors.
enum ContentJobRunner {
    static func run(
        _ job: JobSpec, content: ContentJob, worker: String,
        failure: JobRunner.Failure, seconds: () -> Double
    ) -> JobResult {
        // 1. The files: both read beneath the input roots; the output's folder beneath its root unless measuring.
        let pinned: PinnedJob
        let pinning = withSpan("pin") { _ in
            PinnedJob.pin(
                inputs: [job.input, content.reference], outputs: content.output.map { [$0] } ?? [],
                inputRoots: job.inputRoots ?? [], outputRoot: job.outputRoot)
        }
        switch pinning {
        case .failure(let refusal): return failure(refusal.message, refusal.kind, nil)
        case .success(let paths): pinned = paths
        }
        defer { pinned.close() }

        // 2. Measure, decide, repair and prove.
        var request = ContentRepair.Request(
            recording: pinned.inputs[0], reference: pinned.inputs[1], output: pinned.outputs.first,
            policy: content.policy, headers: headerPlan(content), quality: content.quality)
        request.engine = content.engine
        request.recordingName = (job.input as NSString).lastPathComponent
        do {
            // Measured by the sound, decided, and repaired (its steps are spans of their own) when it writes.
            let outcome = try withSpan(content.output == nil ? "measure" : "measure and repair") { _ in
                try ContentRepair.run(request)
            }
            // 3. What it decided and did, naming the job's paths.
            let decided = finding(outcome, content: content, shown: pinned.shown)
            var output: WrittenOutput?
            var warnings: [String]?
            if decided.decision == .repaired, let written = outcome.result {
                let checksum = withSpan("checksum") { _ in pinned.checksum(ofOutput: 0) }
                output = WrittenOutput(frames: written.outputFrames, checksum: checksum)
                warnings = written.warnings.isEmpty ? nil : written.warnings.map(pinned.shown)
            }
            return JobResult(
                id: job.id, attempt: job.attempt, worker: worker, seconds: seconds(),
                outcome: .decided(decided, output: output), warnings: warnings)
        } catch let error as ContentRepair.SyncFailure {
            // A written output that did not prove in sync: failed for good, with the curve that failed.
            let operations =
                if case .repair(let planned) = error.decision.action { planned } else { [RepairOperation]() }
            return failure(
                pinned.shown(error.description), .outOfSync,
                ContentResult(
                    decision: .repaired, reason: error.reason, measuredBy: .content, operations: operations,
                    measurement: error.content))
        } catch {
            return failure(pinned.shown("\(error)"), FailureKind(of: error), nil)
        }
    }

    /// The headers' plan the job carries, for the comparison and for where the sound cannot tell.
    private static func headerPlan(_ content: ContentJob) -> HeaderPlan {
        let byLength = !content.headersInSync && content.headersRefusal == nil
        let target = content.targetFrames
        let operation: RepairOperation =
            content.method == .stretch ? .stretch(frames: target) : .resample(frames: target)
        return HeaderPlan(
            operations: byLength ? [operation] : [], driftPPM: content.headerDriftPPM,
            recordingSeconds: content.recordingSeconds, referenceSeconds: content.referenceSeconds,
            referenceFrames: byLength ? target : nil, method: content.method, refusal: content.headersRefusal)
    }

    /// The decision in the wire's words: repaired (or measured, when measuring only), skipped or refused, with why.
    private static func finding(_ outcome: ContentRepair.Outcome, content: ContentJob, shown: (String) -> String)
        -> ContentResult
    {
        let decision = outcome.decision
        var operations: [RepairOperation] = []
        let kind: ContentResult.Decision
        var reason = decision.note
        switch decision.action {
        case .repair(let planned):
            kind = .repaired
            operations = planned
        case .skip(let why):
            kind = .skipped
            reason = [why, decision.note].compactMap { $0 }.joined(separator: "; ")
        case .refuse(let why):
            kind = .refused
            reason = why
        }
        return ContentResult(
            decision: content.measureOnly ? .measured : kind, reason: reason.map(shown),
            measuredBy: decision.measuredBy, operations: operations, measurement: outcome.content,
            planned: content.measureOnly ? kind : nil)
    }
}
