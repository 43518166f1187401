import DriftCore
import DriftSchema
import Foundation
import Testing

/// A recording 300 ms late on a 131 ppm slow clock, 120 s long, beside a camera that ran 1.3 s longer: what its
/// lengths say, and then what its sound says.
private func lateTake() -> PairReport {
    let analysis = DriftAnalysis(
        recordingFrames: 5_760_000, sampleRate: 48_000, referenceSeconds: Rational(121_300, 1000),
        recordingPath: "/m/dev1/take.wav")
    return PairReport(
        recording: "/m/dev1/take.wav", reference: "/m/dev1/take.mov", folder: "/m/dev1", sampleRate: 48_000,
        channels: 2, format: "WAV", recordingFrames: 5_760_000, referenceSource: "edit list", analysis: analysis)
}

private func sound(offsetMs: Double = 300, driftPPM: Double = -131, confidence: Double = 0.9) -> ContentMeasurement {
    let speed = 1 / (1 + driftPPM * 1e-6) - 1
    let curve = stride(from: 2.5, to: 120, by: 5).map {
        ContentMeasurement.LagPoint(atSeconds: $0, lagMs: offsetMs + speed * $0 * 1000)
    }
    return ContentMeasurement(
        offsetMs: offsetMs, driftPPM: driftPPM, driftPPMError: 0.05, model: .clock, confidence: confidence,
        scatterMs: 0.01, windows: curve.count, agreeingWindows: curve.count, curve: curve)
}

@Suite("A report row shows its best measurement in every field, its lengths apart")
struct PairFiguresTests {
    @Test(
        "by the lengths: 1.3 s in 120 s is no clock; no drift, no verdict, the lengths kept; the row is no clock figure"
    )
    func lengths() throws {
        let row = lateTake()
        #expect(row.cause == .lengthsDiffer && row.measuredBy == .headers)
        #expect(row.driftPPM == nil && row.endOffsetMs == nil && row.flags.isEmpty && !row.isClockFigure)
        #expect(row.sync == "the lengths cannot tell")
        let lengths = try #require(row.lengths)
        #expect(abs(lengths.differenceSeconds + 1.3) < 1e-12 && abs(lengths.ratioPPM - (120 / 121.3 - 1) * 1e6) < 1e-6)
        let summary = ScanSummary(pairs: [row], unpaired: 0, issues: 0)
        #expect(summary.worstDriftPPM == nil && summary.measured == 1 && summary.errors == 0)
    }

    @Test("by the sound: the clock, both ends, the verdict and the cause; the sound's plan replaces the lengths'")
    func revised() throws {
        var row = lateTake()
        // The lengths planned a resample (1.07 % is within the 5 % limit): the sound pads the start and resamples.
        #expect(row.action == .resample)
        let operations: [RepairOperation] = [.padStart(frames: 14_400), .resample(frames: 5_775_000)]
        row.revise(bySound: sound(), plan: .repair(operations), drift: DriftPolicy(), confidenceFloor: 0.5)
        #expect(row.measuredBy == .content && row.driftPPM == -131 && row.cause == .clockDrift)
        #expect(abs((row.startOffsetMs ?? 0) + 300) < 1e-9)
        let growth = (1 / (1 - 131e-6) - 1) * 120_000
        #expect(abs((row.endOffsetMs ?? 0) + 300 + growth) < 1e-9)
        #expect(row.sync == "sound leads by 300.0 ms at the start, 315.7 ms at the end")
        #expect(row.flags == [.ituBT1359, .ebuR37] && row.isClockFigure)
        #expect(row.action == .resample && row.operations == operations && row.targetFrames == 5_775_000)
        #expect(abs((row.lengths?.ratioPPM ?? 0) - (120 / 121.3 - 1) * 1e6) < 1e-6, "the lengths stay the lengths")

        // A refusal of the lengths (beyond 5 %) that the sound explains is no longer a refusal.
        var short = PairReport(
            recording: "/m/s.wav", reference: "/m/s.mov", folder: "/m", sampleRate: 48_000, channels: 1, format: "WAV",
            recordingFrames: 576_000, referenceSource: "edit list",
            analysis: DriftAnalysis(
                recordingFrames: 576_000, sampleRate: 48_000, referenceSeconds: Rational(13, 1),
                recordingPath: "/m/s.wav"))
        #expect(short.action == .refuse && short.error != nil)
        short.revise(
            bySound: sound(), plan: .repair([.padStart(frames: 14_400)]), drift: DriftPolicy(), confidenceFloor: 0.5)
        #expect(short.action == .align && short.error == nil && short.method == nil)
        let summary = ScanSummary(pairs: [short], unpaired: 0, issues: 0)
        #expect(summary.needRepair == 1 && summary.refused == 0)
    }

    @Test("a sound below the confidence floor keeps the lengths' figures; a refusal the sound makes is a refusal")
    func unsure() {
        var row = lateTake()
        row.revise(
            bySound: sound(confidence: 0.3), plan: .refuse("content confidence 0.30 is below the floor 0.50"),
            drift: DriftPolicy(), confidenceFloor: 0.5)
        #expect(row.measuredBy == .headers && row.cause == .lengthsDiffer && row.driftPPM == nil)
        #expect(row.action == .refuse && row.error?.contains("below the floor") == true && row.content != nil)
    }

    @Test("the JSON: version 3, every new key on every row, the lengths as an object")
    func json() throws {
        var report = ScanReport(
            generated: "2026-11-29T00:00:00Z", roots: ["/m"], pairs: [lateTake()], unpaired: [], errors: [])
        report.pairs[0].revise(bySound: sound(), plan: nil, drift: DriftPolicy(), confidenceFloor: 0.5)
        let data = try JSONEncoder().encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 3)
        let row = try #require((object["pairs"] as? [[String: Any]])?.first)
        for key in ["startOffsetMs", "endOffsetMs", "worstOffsetMs", "worstAtSeconds", "lengths", "measuredBy"] {
            #expect(row[key] != nil, "\(key)")
        }
        #expect((row["lengths"] as? [String: Any])?["referenceSeconds"] as? Double == 121.3)
        #expect(try JSONDecoder().decode(ScanReport.self, from: data) == report, "read back as written")
    }
}
