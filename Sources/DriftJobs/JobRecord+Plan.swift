import DriftCore
import DriftPlanning
import DriftSchema
import DriftWire

extension JobRecord {
    /// The job that carries out `plan` (a pair to repair, or to measure by its sound) on a worker.
    ///
    /// - Parameters:
    ///   - inputRoots: the scan's roots: a worker reads only below them.
    ///   - run: the run's key, echoed by results, so a result can only complete this run's job.
    ///   - content: for a content plan, the headers' numbers the worker compares its measurement with.
    public init?(
        id: Int, plan: PairPlan, quality: ResampleQuality, engine: ResampleEngine = .default, outputRoot: String,
        inputRoots: [String], run: Int64?, content: ContentJob? = nil
    ) {
        guard plan.needsRepair, let output = plan.output, let target = plan.targetFrames else { return nil }
        let work: JobWork
        if var content {
            content.output = output
            content.engine = engine
            work = .content(content)
        } else {
            // A header plan is one length change: the target and the method.
            guard let method = plan.method else { return nil }
            work = .header(
                HeaderRepair(
                    output: output, targetFrames: target, method: method.method, methodReason: method.reason,
                    quality: quality, engine: engine))
        }
        self.init(
            id: id, input: plan.id.recording, work: work, outputRoot: outputRoot, inputRoots: inputRoots,
            audioSeconds: plan.audioSeconds, run: run)
    }

    /// How this job stands, for the run's report.
    public var outcome: PairOutcome {
        switch state {
        case .done(let result):
            let content: ContentResult? =
                switch result.outcome {
                case .decided(let content, _): content
                case .failed(let failure): failure.content
                case .repaired, .heard: nil
                }
            let finding = content.map {
                ContentFinding(
                    measurement: $0.measurement, measuredBy: $0.measuredBy, operations: $0.operations, note: $0.reason)
            }
            func repaired(_ output: WrittenOutput?) -> PairOutcome {
                var outcome = PairOutcome(
                    state: .repaired(
                        outputFrames: output?.frames, checksum: output?.checksum, worker: result.worker,
                        seconds: result.seconds),
                    attempts: attempts, content: finding)
                outcome.warnings = result.warnings ?? []
                return outcome
            }
            switch result.outcome {
            case .failed(let failure):
                // Not kept so by a store (its state is `.failed`); a record made by hand may still say it.
                return PairOutcome(
                    state: .failed(failure.message), attempts: attempts, content: finding, failure: failure.kind)
            case .decided(let content, let output):
                switch content.decision {
                case .skipped:
                    return PairOutcome(
                        state: .skipped(content.reason ?? "in sync"), attempts: attempts, content: finding)
                case .refused:
                    return PairOutcome(
                        state: .refused(content.reason ?? "refused"), attempts: attempts, content: finding)
                case .measured: return PairOutcome(state: .measured, attempts: attempts, content: finding)
                case .repaired: return repaired(output)
                }
            case .repaired(let output): return repaired(output)
            case .heard: return repaired(nil)
            }
        case .failed(let failure):
            let finding = failure.content.map {
                ContentFinding(
                    measurement: $0.measurement, measuredBy: $0.measuredBy, operations: $0.operations, note: $0.reason)
            }
            return PairOutcome(
                state: .failed(failure.message), attempts: attempts, content: finding, failure: failure.kind)
        case .queued, .leased:
            return PairOutcome(state: .unfinished(lastError), attempts: attempts)
        }
    }
}

extension ContentJob {
    /// The content job for a pair: its reference, the policy, and the headers' plan and numbers from its scan row (a
    /// pair the headers found in sync carries the recording's own length). Measure-only until given an output.
    public init(pair: PairPlan, row: PairReport, policy: ContentPolicy, quality: ResampleQuality) {
        self.init(
            row: row, policy: policy, quality: quality,
            targetFrames: pair.targetFrames ?? row.targetFrames ?? row.recordingFrames ?? 0,
            method: pair.method ?? MethodChoice(method: .resample, reason: "in sync by the headers"))
    }

    /// The measure-only job for a scan row.
    public init(
        row: PairReport, policy: ContentPolicy, quality: ResampleQuality, targetFrames: Int64, method: MethodChoice
    ) {
        self.init(
            reference: row.referenceText, output: nil, policy: policy, targetFrames: targetFrames, method: method,
            quality: quality, headersInSync: row.action == .skip, headerDriftPPM: row.lengths?.ratioPPM,
            recordingSeconds: row.recordingSeconds ?? 0, referenceSeconds: row.referenceSeconds)
        headersRefusal = row.action == .refuse ? row.error ?? "refused by the headers" : nil
    }
}

extension JobStore {
    /// Every job's outcome, by pair.
    public var outcomes: [PairID: PairOutcome] { all.outcomes }
}

extension Sequence where Element == JobRecord {
    /// Each pair's outcome, by its job (the first, where a pair had two).
    public var outcomes: [PairID: PairOutcome] {
        Dictionary(map { ($0.pair, $0.outcome) }, uniquingKeysWith: { first, _ in first })
    }
}
