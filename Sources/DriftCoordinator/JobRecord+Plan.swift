import DriftCore
import DriftPlanning
import DriftWire

extension JobRecord {
    /// The job that carries out `plan` (a pair to repair) on a worker.
    ///
    /// - Parameters:
    ///   - inputRoots: the scan's roots: a worker reads only below them.
    ///   - run: the run's key, echoed by results, so a result can only complete this run's job.
    public init?(id: Int, plan: PairPlan, quality: ResampleQuality, outputRoot: String, inputRoots: [String], run: Int64?) {
        // Header plans are one length change; the wire carries it as target + method.
        guard plan.needsRepair, let output = plan.output, let target = plan.targetFrames, let method = plan.method else {
            return nil
        }
        self.init(id: id, input: plan.id.recording, output: output, outputRoot: outputRoot, targetFrames: target,
                  method: method.method, methodReason: method.reason, quality: quality, audioSeconds: plan.audioSeconds,
                  run: run)
        spec.inputRoots = inputRoots
    }

    /// How this job stands, for the run's report.
    public var outcome: PairOutcome {
        switch state {
        case .done(let result):
            return PairOutcome(state: .repaired(outputFrames: result.outputFrames, checksum: result.checksum,
                                                worker: result.worker, seconds: result.seconds), attempts: attempts)
        case .failed(let error):
            return PairOutcome(state: .failed(error), attempts: attempts)
        case .queued, .leased:
            return PairOutcome(state: .unfinished(lastError), attempts: attempts)
        }
    }
}

extension JobStore {
    /// Every job's outcome, by pair.
    public var outcomes: [PairID: PairOutcome] {
        Dictionary(all.map { ($0.pair, $0.outcome) }, uniquingKeysWith: { first, _ in first })
    }
}
