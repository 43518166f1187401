import DriftCore
import DriftSchema

import struct SystemPackage.FilePath

/// Builds a run's plan from its scan: each pair's decision and operations from the scan's measurement (which already
/// applied the drift and repair policies), its output path, and - for the pairs to repair - the verdict on an earlier
/// night's output.
public enum RunPlanner {
    /// Where the run's inputs and outputs are.
    public struct Layout: Sendable, Equatable {
        /// The scanned roots.
        public var roots: [String]
        /// The output root: outputs mirror the input tree here.
        public var outputRoot: String

        public init(roots: [String], outputRoot: String) {
            self.roots = roots
            self.outputRoot = outputRoot
        }
    }

    /// The plan for `report`.
    ///
    /// - Parameters:
    ///   - content: the content policy; under `content` or `both`, every pair whose reference may have sound of its
    ///     own (not a sidecar, not the recording's own file) goes to a worker that measures it and decides there,
    ///     the in-sync ones included (a late start leaves the lengths equal); under `auto`, those whose lengths no
    ///     clock explains.
    ///   - drift: the drift policy the report's figures are named under once the sound is measured.
    ///   - verdict: whether an earlier output of a pair to repair is still current; nil decides none is (a full run).
    public static func plan(
        _ report: ScanReport, layout: Layout, content: ContentPolicy = ContentPolicy(),
        drift: DriftPolicy = DriftPolicy(), verdict: ((PairPlan) -> IncrementalVerdict)? = nil
    ) -> RunPlan {
        var pairs: [PairPlan] = []
        for row in report.pairs {
            var plan = PairPlan(
                id: PairID(recording: row.recordingText), reference: row.referenceText, decision: .skip,
                audioSeconds: row.recordingSeconds ?? 0)
            plan.targetFrames = row.targetFrames
            let byContent = content.measures(row.cause) && hasOwnSound(row)
            switch row.action {
            case .skip where byContent, .refuse where byContent && row.cause != nil:
                // Measured by the sound on a worker: in sync by the headers (a late start leaves the lengths equal),
                // or refused by them (the sound may explain the difference, or confirm a wrong pairing).
                guard let output = outputPath(for: row.recordingText, layout: layout) else { break }
                plan.decision = .repair
                plan.targetFrames = row.recordingFrames
                plan.method = nil
                plan.measuredBy = .content
                plan.content = content.forWorker
                plan.output = output
                if let verdict, case .current(let previous) = verdict(plan) { plan.decision = .unchanged(previous) }
            case .skip:
                plan.decision = .skip
            case .refuse:
                plan.decision = .refuse(row.error ?? "refused")
            case .resample, .stretch, .align:
                guard let target = row.targetFrames, let method = row.method,
                    let output = outputPath(for: row.recordingText, layout: layout)
                else {
                    plan.decision = .refuse(row.error ?? "no output path below the output root")
                    break
                }
                plan.decision = .repair
                plan.method = MethodChoice(method: method, reason: row.methodReason ?? "")
                plan.operations = [method == .stretch ? .stretch(frames: target) : .resample(frames: target)]
                plan.output = output
                if byContent {
                    plan.measuredBy = .content
                    plan.content = content.forWorker
                }
                if let verdict, case .current(let previous) = verdict(plan) { plan.decision = .unchanged(previous) }
            }
            pairs.append(plan)
        }
        var run = RunPlan(report: report, pairs: pairs)
        run.drift = drift
        return run
    }

    /// Whether a pair's reference may carry sound of its own to measure against: not a sidecar file, and not the
    /// recording's own file (a video repaired to its own picture).
    public static func hasOwnSound(_ row: PairReport) -> Bool {
        row.recording != row.reference && row.referenceSource != "sidecar"
    }

    /// The output path for `recording`: its path below its root, mirrored under the output root (below the root's
    /// own name when several roots are given, so identical relative paths cannot collide).
    public static func outputPath(for recording: String, layout: Layout) -> String? {
        let path = FilePath(recording)
        let candidates = layout.roots.map { FilePath($0) }.filter { path.isBelow($0) }
        guard let root = candidates.max(by: { $0.components.count < $1.components.count }),
            let relative = path.relative(to: root)
        else { return nil }
        var output = FilePath(layout.outputRoot)
        if layout.roots.count > 1, let name = root.lastComponent { output.append(name) }
        return output.pushing(relative).string
    }
}
