import DriftCore
import DriftSchema

/// Everything one repair run does: the scan as reported, and one plan per pair, keyed by its `PairID`.
public struct RunPlan: Sendable, Equatable {
    /// The scan, as its report rows (measurements, causes, errors, unpaired files).
    public var report: ScanReport
    /// One plan per row of the report, in the report's order.
    public private(set) var pairs: [PairPlan]
    private var index: [PairID: Int]

    public init(report: ScanReport, pairs: [PairPlan]) {
        self.report = report
        self.pairs = pairs
        index = Dictionary(pairs.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func pair(_ id: PairID) -> PairPlan? { index[id].map { pairs[$0] } }

    /// The pairs a worker must repair, in report order.
    public var toRepair: [PairPlan] { pairs.filter(\.needsRepair) }

    /// Pairs whose earlier output is still current.
    public var unchanged: Int {
        pairs.filter { if case .unchanged = $0.decision { return true } else { return false } }.count
    }

    /// The report with each pair's outcome filled in: `skipped` and `refused` by decision, `unchanged` with its earlier
    /// output, and the repaired pairs from `outcomes` (`unfinished` where there is none).
    public func report(with outcomes: [PairID: PairOutcome]) -> ScanReport {
        var report = self.report
        for row in report.pairs.indices {
            let id = PairID(recording: report.pairs[row].recording)
            guard let plan = pair(id) else { continue }
            switch plan.decision {
            case .skip:
                report.pairs[row].outcome = .skipped
            case .refuse:
                report.pairs[row].outcome = .refused
            case .unchanged(let previous):
                report.pairs[row].outcome = .unchanged
                report.pairs[row].output = previous.output
                report.pairs[row].outputFrames = previous.outputFrames
                report.pairs[row].checksum = previous.checksum
                report.pairs[row].worker = previous.worker
            case .repair:
                report.pairs[row].output = plan.output
                report.pairs[row].operations = plan.operations
                guard let outcome = outcomes[id] else {
                    report.pairs[row].outcome = .unfinished
                    report.pairs[row].error = "unfinished"
                    continue
                }
                report.pairs[row].attempts = outcome.attempts
                if let finding = outcome.content {
                    report.pairs[row].measuredBy = finding.measuredBy
                    report.pairs[row].operations = finding.operations
                    report.pairs[row].content = finding.measurement
                    report.pairs[row].contentNote = finding.note
                    report.pairs[row].nameClockCause()
                }
                switch outcome.state {
                case .repaired(let frames, let checksum, let worker, let seconds):
                    report.pairs[row].outcome = .repaired
                    report.pairs[row].error = nil
                    report.pairs[row].outputFrames = frames
                    report.pairs[row].checksum = checksum
                    report.pairs[row].worker = worker
                    report.pairs[row].processingSeconds = seconds
                    report.pairs[row].warnings += outcome.warnings
                case .failed(let error):
                    report.pairs[row].outcome = .failed
                    report.pairs[row].error = error
                    report.pairs[row].failure = outcome.failure
                case .unfinished(let last):
                    report.pairs[row].outcome = .unfinished
                    report.pairs[row].error = last.map { "unfinished; last: \($0)" } ?? "unfinished"
                case .skipped(let reason):
                    report.pairs[row].outcome = .skipped
                    report.pairs[row].output = nil
                    report.pairs[row].contentNote = report.pairs[row].contentNote ?? reason
                case .refused(let reason):
                    report.pairs[row].outcome = .refused
                    report.pairs[row].output = nil
                    report.pairs[row].error = reason
                case .measured:
                    report.pairs[row].outcome = nil
                    report.pairs[row].output = nil
                }
            }
        }
        report.refreshSummary()
        return report
    }
}
