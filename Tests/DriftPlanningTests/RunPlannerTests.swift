import DriftCore
import DriftPlanning
import DriftSchema
import Testing

/// A measured row as the scan makes it: `frames` at 48 kHz against a reference of `reference` seconds.
private func row(_ recording: String, frames: Int64, reference: Rational, rule: RepairPolicy = RepairPolicy())
    -> PairReport
{
    let analysis = DriftAnalysis(
        recordingFrames: frames, sampleRate: 48_000, referenceSeconds: reference,
        recordingPath: recording, repair: rule)
    return PairReport(
        recording: recording, reference: recording + ".duration", folder: "/m/cam", sampleRate: 48_000,
        channels: 2, format: "WAV 24-bit", recordingFrames: frames, referenceSource: "sidecar", analysis: analysis)
}

@Suite("Run planning: one plan per pair")
struct RunPlannerTests {
    let layout = RunPlanner.Layout(roots: ["/m"], outputRoot: "/out")

    @Test("each row's action becomes a decision with its operations and output; refusals keep their reason")
    func decisions() {
        let report = ScanReport(
            generated: "t", roots: ["/m"],
            pairs: [
                row("/m/cam/a.wav", frames: 2_879_623, reference: Rational(60, 1)),  // -131 ppm: resample
                row("/m/cam/b.wav", frames: 48_010, reference: Rational(1, 1)),  // 0.2 ms: in sync
                row("/m/cam/c.wav", frames: 40_000, reference: Rational(1, 1)),  // 17% short: refused
                PairReport(
                    recording: "/m/cam/d.wav", reference: "/m/cam/d.mov", folder: "/m/cam", error: "reference: damaged"),
            ], unpaired: [], errors: [])
        let plan = RunPlanner.plan(report, layout: layout)
        #expect(plan.pairs.map(\.id.recording) == ["/m/cam/a.wav", "/m/cam/b.wav", "/m/cam/c.wav", "/m/cam/d.wav"])
        let a = plan.pair(PairID(recording: "/m/cam/a.wav"))
        #expect(
            a?.decision == .repair && a?.operations == [.resample(frames: 2_880_000)] && a?.output == "/out/cam/a.wav")
        #expect(a?.method == MethodChoice(method: .resample, reason: "default") && a?.measuredBy == .headers)
        #expect(plan.pair(PairID(recording: "/m/cam/b.wav"))?.decision == .skip)
        guard case .refuse(let why)? = plan.pair(PairID(recording: "/m/cam/c.wav"))?.decision else {
            Issue.record("c.wav is refused")
            return
        }
        #expect(why.contains("beyond the 5% limit"))
        #expect(plan.pair(PairID(recording: "/m/cam/d.wav"))?.decision == .refuse("reference: damaged"))
        #expect(plan.toRepair.map(\.id.recording) == ["/m/cam/a.wav"])
    }

    @Test("a stretch rule plans a stretch; an earlier output still current makes the pair unchanged")
    func stretchAndUnchanged() {
        var policy = RepairPolicy()
        policy.rules = [MethodRule(pattern: GlobPattern("**/cam/**"), method: .stretch, reason: "drops buffers")]
        let report = ScanReport(
            generated: "t", roots: ["/m"],
            pairs: [
                row("/m/cam/a.wav", frames: 957_600, reference: Rational(20, 1), rule: policy),
                row("/m/cam/b.wav", frames: 957_600, reference: Rational(20, 1), rule: policy),
            ], unpaired: [], errors: [])
        let previous = PreviousOutput(output: "/out/cam/b.wav", outputFrames: 960_000, checksum: "c", worker: "w")
        var asked: [PairID] = []
        let plan = RunPlanner.plan(report, layout: layout) { pair in
            asked.append(pair.id)
            return pair.id.recording.hasSuffix("b.wav") ? .current(previous) : .stale("never repaired")
        }
        #expect(asked.count == 2)
        #expect(plan.pair(PairID(recording: "/m/cam/a.wav"))?.operations == [.stretch(frames: 960_000)])
        #expect(plan.pair(PairID(recording: "/m/cam/b.wav"))?.decision == .unchanged(previous))
        #expect(plan.toRepair.count == 1 && plan.unchanged == 1)
    }

    @Test("outcomes fold into the report by pair, not by position")
    func outcomes() {
        let report = ScanReport(
            generated: "t", roots: ["/m"],
            pairs: [
                row("/m/cam/a.wav", frames: 2_879_623, reference: Rational(60, 1)),
                row("/m/cam/b.wav", frames: 2_879_623, reference: Rational(60, 1)),
                row("/m/cam/c.wav", frames: 2_879_623, reference: Rational(60, 1)),
                row("/m/cam/d.wav", frames: 48_010, reference: Rational(1, 1)),
            ], unpaired: [], errors: [])
        let plan = RunPlanner.plan(report, layout: layout)
        let folded = plan.report(with: [
            PairID(recording: "/m/cam/c.wav"): PairOutcome(
                state: .repaired(outputFrames: 2_880_000, checksum: "x", worker: "w1", seconds: 2), attempts: 2),
            PairID(recording: "/m/cam/a.wav"): PairOutcome(state: .failed("a.wav: corrupt"), attempts: 1),
        ])
        let rows = Dictionary(uniqueKeysWithValues: folded.pairs.map { ($0.recording, $0) })
        #expect(
            rows["/m/cam/c.wav"]?.outcome == .repaired && rows["/m/cam/c.wav"]?.attempts == 2
                && rows["/m/cam/c.wav"]?.worker == "w1")
        #expect(rows["/m/cam/a.wav"]?.outcome == .failed && rows["/m/cam/a.wav"]?.error == "a.wav: corrupt")
        #expect(rows["/m/cam/b.wav"]?.outcome == .unfinished && rows["/m/cam/b.wav"]?.output == "/out/cam/b.wav")
        #expect(rows["/m/cam/d.wav"]?.outcome == .skipped)
        #expect(folded.summary.outcomes == [.repaired: 1, .failed: 1, .unfinished: 1, .skipped: 1])
        #expect(!folded.isGoodRun)
    }

    @Test("outputs mirror the tree, below each root's name when there are several")
    func outputPaths() {
        #expect(RunPlanner.outputPath(for: "/m/cam/a.wav", layout: layout) == "/out/cam/a.wav")
        let two = RunPlanner.Layout(roots: ["/media/day1", "/media/day2/"], outputRoot: "/out")
        #expect(RunPlanner.outputPath(for: "/media/day2/cam/a.wav", layout: two) == "/out/day2/cam/a.wav")
        #expect(RunPlanner.outputPath(for: "/elsewhere/a.wav", layout: two) == nil)
    }

    @Test(
        "operations have a stable text form that parses back",
        arguments: [
            [RepairOperation.resample(frames: 2_880_377)], [.stretch(frames: 5)],
            [.trimStart(frames: 96_000), .insert(atFrame: 480_000, frames: 480), .resample(frames: 2_880_000)],
            [.padStart(frames: 12), .stretch(frames: 1_000)], [],
        ])
    func operationText(operations: [RepairOperation]) {
        #expect(RepairOperation.list(RepairOperation.text(operations)) == operations)
        #expect(RepairOperation.list("resample\ninsert 5") == nil && RepairOperation("stretch -3") == nil)
    }

    @Test("each operation says how many frames it leaves")
    func frameCounts() {
        let steps: [RepairOperation] = [
            .trimStart(frames: 96_000), .insert(atFrame: 480_000, frames: 480), .padStart(frames: 20),
            .resample(frames: 2_880_000),
        ]
        let counts = steps.reduce(into: [Int64(1_000_000)]) { counts, step in
            counts.append(step.frames(after: counts.last ?? 0))
        }
        #expect(counts == [1_000_000, 904_000, 904_480, 904_500, 2_880_000])
    }
}
