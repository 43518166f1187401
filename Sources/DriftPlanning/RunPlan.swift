import DriftCore
import DriftSchema

/// Everything one repair run does: the scan as reported, and one plan per pair, keyed by its `PairID`.
public struct RunPlan: Sendable, Equatable {
    /// The scan, as its report rows (measurements, causes, errors, unpaired files).
    public var report: ScanReport
    /// One plan per row of the report, in the report's order.
    public private(set) var pairs: [PairPlan]
    private var index: [PairID: Int]
    /// The drift policy a pair's figures are named under when its sound is measured.
    public var drift = DriftPolicy()

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
    /// output, and the repaired pairs from `outcomes` (`unfinished` where there is none). A pair its sound measured
    /// shows what the sound found and planned in place of the lengths' figures and plan, so that the plan, the
    /// outcome and the summary's counts agree.
    public func report(with outcomes: [PairID: PairOutcome]) -> ScanReport {
        var report = self.report
        for row in report.pairs.indices {
            let id = PairID(recording: report.pairs[row].recordingText)
            guard let plan = pair(id) else { continue }
            let floor = plan.content?.confidenceFloor ?? ContentPolicy().confidenceFloor
            switch plan.decision {
            case .skip:
                report.pairs[row].outcome = .skipped
            case .refuse:
                report.pairs[row].outcome = .refused
            case .unchanged(let previous):
                if let finding = previous.finding {
                    report.pairs[row].revise(
                        bySound: finding.measurement, plan: .repair(finding.operations), drift: drift,
                        confidenceFloor: floor)
                    report.pairs[row].contentNote = finding.note
                }
                report.pairs[row].outcome = .unchanged
                report.pairs[row].outputText = previous.output
                report.pairs[row].outputFrames = previous.outputFrames
                report.pairs[row].checksum = previous.checksum
                report.pairs[row].worker = previous.worker
            case .repair:
                report.pairs[row].outputText = plan.output
                report.pairs[row].operations = plan.operations
                guard let outcome = outcomes[id] else {
                    report.pairs[row].outcome = .unfinished
                    report.pairs[row].error = "unfinished"
                    continue
                }
                report.pairs[row].attempts = outcome.attempts
                if let finding = outcome.content {
                    report.pairs[row].revise(
                        bySound: finding.measurement, plan: Self.soundPlan(outcome.state, finding: finding),
                        drift: drift, confidenceFloor: floor)
                    report.pairs[row].operations = finding.operations
                    report.pairs[row].contentNote = finding.note
                }
                Self.fill(&report.pairs[row], with: outcome)
            }
        }
        report.refreshSummary()
        return report
    }

    /// The plan a content job's sound made, as its outcome shows it.
    static func soundPlan(_ state: PairOutcome.State, finding: ContentFinding) -> SoundPlan? {
        switch state {
        case .skipped(let reason): .skip(reason)
        case .refused(let reason): .refuse(reason)
        case .repaired, .failed, .unfinished: finding.operations.isEmpty ? nil : .repair(finding.operations)
        case .measured: nil
        }
    }

    /// A repaired pair's row with how its job ended.
    private static func fill(_ row: inout PairReport, with outcome: PairOutcome) {
        switch outcome.state {
        case .repaired(let frames, let checksum, let worker, let seconds):
            row.outcome = .repaired
            row.error = nil
            row.outputFrames = frames
            row.checksum = checksum
            row.worker = worker
            row.processingSeconds = seconds
            row.warnings += outcome.warnings
        case .failed(let error):
            row.outcome = .failed
            row.error = error
            row.failure = outcome.failure
        case .unfinished(let last):
            row.outcome = .unfinished
            row.error = last.map { "unfinished; last: \($0)" } ?? "unfinished"
        case .skipped(let reason):
            row.outcome = .skipped
            row.output = nil
            row.contentNote = row.contentNote ?? reason
        case .refused(let reason):
            row.outcome = .refused
            row.output = nil
            row.error = reason
        case .measured:
            row.outcome = nil
            row.output = nil
        }
    }
}
