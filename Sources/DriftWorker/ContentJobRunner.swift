import DriftAudio
import DriftCore
import DriftPipeline
import DriftWire
import Foundation

/// Runs a content job: the recording and its reference checked and pinned beneath the input roots, the sound
/// measured, the repair decided under the job's policy and (unless measuring only) run and proved in sync, all
/// through the pinned descriptors.
enum ContentJobRunner {
    static func run(
        _ job: JobSpec, content: ContentJob, worker: String,
        failure: (String, FailureKind) -> JobResult, seconds: () -> Double
    ) -> JobResult {
        let roots = job.inputRoots ?? []
        if !content.measureOnly,
            case .failure(let reason) = Confinement.checkRoots(inputs: roots, output: job.outputRoot)
        {
            return failure("\(job.output): refused: \(reason)", .refused)
        }
        var resolved: [String] = []
        for path in [job.input, content.reference] {
            switch Confinement.check(input: path, roots: roots) {
            case .failure(let reason): return failure("\(path): refused: \(reason)", .refused)
            case .success(let real): resolved.append(real)
            }
        }
        // The reference first: it is only read, and its descriptor is closed whatever happens next.
        let referenceDescriptor: Int32
        switch PinnedPaths.pinInput(resolved[1], inputRoots: roots) {
        case .failure(let reason): return failure("\(content.reference): refused: \(reason)", .refused)
        case .success(let descriptor): referenceDescriptor = descriptor
        }
        defer { close(referenceDescriptor) }
        let referencePath = "/proc/self/fd/\(referenceDescriptor)"

        var recordingPath: String
        var outputPath: String?
        var pinned: PinnedPaths?
        var recordingDescriptor: Int32?
        if content.measureOnly {
            switch PinnedPaths.pinInput(resolved[0], inputRoots: roots) {
            case .failure(let reason): return failure("\(job.input): refused: \(reason)", .refused)
            case .success(let descriptor): recordingDescriptor = descriptor
            }
            recordingPath = "/proc/self/fd/\(recordingDescriptor ?? -1)"
        } else {
            let output: String
            switch Confinement.check(output: job.output, root: job.outputRoot) {
            case .failure(let reason): return failure("\(job.output): \(reason)", .refused)
            case .success(let real): output = real
            }
            switch PinnedPaths.pin(input: resolved[0], inputRoots: roots, output: output, outputRoot: job.outputRoot) {
            case .failure(.input(let reason)): return failure("\(job.input): refused: \(reason)", .refused)
            case .failure(.output(let reason, let retryable)):
                return failure("\(job.output): \(reason)", retryable ? .outputUnwritable : .refused)
            case .success(let paths): pinned = paths
            }
            recordingPath = pinned?.inputPath ?? job.input
            outputPath = pinned?.outputPath
        }
        defer {
            pinned?.close()
            if let recordingDescriptor { close(recordingDescriptor) }
        }
        // Messages name the job's paths, not the descriptors.
        func shown(_ message: String) -> String {
            let named = pinned?.describe(message, input: job.input, output: job.output) ?? message
            return named.replacingOccurrences(of: referencePath, with: content.reference)
                .replacingOccurrences(of: "/proc/self/fd/\(recordingDescriptor ?? -1)", with: job.input)
        }

        let byLength = !content.headersInSync && content.headersRefusal == nil
        let headers = HeaderPlan(
            operations: byLength
                ? [job.method == .stretch ? .stretch(frames: job.targetFrames) : .resample(frames: job.targetFrames)]
                : [],
            driftPPM: content.headerDriftPPM, recordingSeconds: content.recordingSeconds,
            referenceSeconds: content.referenceSeconds, referenceFrames: byLength ? job.targetFrames : nil,
            method: job.method, refusal: content.headersRefusal)
        var request = ContentRepair.Request(
            recording: recordingPath, reference: referencePath, output: outputPath,
            policy: content.policy, headers: headers, quality: job.quality)
        request.engine = job.engine ?? .default
        do {
            let outcome = try ContentRepair.run(request)
            let decision = outcome.decision
            var result = JobResult(
                id: job.id, attempt: job.attempt, worker: worker, succeeded: true, seconds: seconds())
            var operations: [String] = []
            let kind: ContentResult.Decision
            var reason = decision.note
            switch decision.action {
            case .repair(let planned) where !content.measureOnly:
                kind = .repaired
                operations = planned.map(\.description)
                result.outputFrames = outcome.result?.outputFrames
                result.checksum = pinned?.outputChecksum()
            case .repair(let planned):
                kind = .measured
                operations = planned.map(\.description)
            case .skip(let why):
                kind = content.measureOnly ? .measured : .skipped
                reason = [why, decision.note].compactMap { $0 }.joined(separator: "; ")
            case .refuse(let why):
                kind = content.measureOnly ? .measured : .refused
                reason = shown(why)
            }
            result.content = ContentResult(
                decision: kind, reason: reason.map(shown), measuredBy: decision.measuredBy,
                operations: operations, measurement: outcome.content)
            return result
        } catch let error as ContentRepair.SyncFailure {
            var result = failure(shown(error.description), .outOfSync)
            result.content = ContentResult(
                decision: .repaired, reason: error.reason, measuredBy: .content,
                operations: {
                    if case .repair(let ops) = error.decision.action {
                        return ops.map(\.description)
                    } else {
                        return []
                    }
                }(),
                measurement: error.content)
            return result
        } catch {
            return failure(shown("\(error)"), FailureKind(of: error))
        }
    }
}
