import Testing

@testable import DriftCore

private func analyze(
    frames: Int64, rate: Int = 48_000, reference: Rational, path: String = "/m/a.wav",
    repair: RepairPolicy = RepairPolicy(), drift: DriftPolicy = DriftPolicy()
) -> DriftAnalysis {
    DriftAnalysis(
        recordingFrames: frames, sampleRate: rate, referenceSeconds: reference, recordingPath: path,
        drift: drift, repair: repair)
}

@Suite("Drift measurement, causes and plans")
struct DriftAnalysisTests {
    @Test("a slow recorder clock: 131 ppm short over an hour")
    func clockDrift() {
        let a = analyze(frames: 172_777_363, reference: Rational(3600, 1))
        #expect(a.driftSeconds == Rational(-22_637, 48_000))
        #expect(abs(a.driftPPM - -131.0) < 0.01)
        #expect(a.cause == .clockDrift)
        #expect(a.causeDetail == "recorder clock 131.00 ppm slow")
        #expect(a.action == .resample)
        #expect(a.targetFrames == 172_800_000)
        // 471.6 ms early at the end: past both limits.
        #expect(a.flags == [.ituBT1359, .ebuR37])
    }

    @Test(
        "lip-sync flags: BT.1359 45 ms lead / 125 ms lag, EBU R37 40 / 60 ms",
        arguments: [
            (-0.042, [SyncFlag.ebuR37]), (-0.046, [.ituBT1359, .ebuR37]), (0.061, [.ebuR37]),
            (0.126, [.ituBT1359, .ebuR37]), (0.030, []),
        ])
    func flags(offsetSeconds: Double, expected: [SyncFlag]) {
        let frames = 48_000 * 600 + Int64((offsetSeconds * 48_000).rounded())
        #expect(analyze(frames: frames, reference: Rational(600, 1)).flags == expected)
    }

    @Test("within the tolerance: skip")
    func inSync() {
        let a = analyze(frames: 2_880_048, reference: Rational(60, 1))  // 1 ms long
        #expect(a.cause == .inSync && a.action == .skip && a.method == nil)
        #expect(analyze(frames: 2_880_049, reference: Rational(60, 1)).action == .resample)
    }

    @Test("NTSC pull-down and pull-up")
    func pullDown() {
        let down = analyze(frames: 1_440_000, reference: Rational(1_441_440, 48_000))
        #expect(down.cause == .pullDown && down.action == .resample && down.targetFrames == 1_441_440)
        let up = analyze(frames: 1_441_440, reference: Rational(30, 1))
        #expect(up.cause == .pullUp)
    }

    @Test("a rate mislabel is repaired even beyond the refuse limit; unexplained beyond it is refused")
    func mislabelAndRefusal() {
        // 10 s of 44.1 kHz audio whose header says 48 kHz: 441,000 frames that play in 9.1875 s.
        let mislabel = analyze(frames: 441_000, reference: Rational(10, 1))
        #expect(mislabel.cause == .rateMislabel)
        #expect(mislabel.causeDetail == "44100 Hz audio labelled 48000 Hz")
        #expect(mislabel.action == .resample && mislabel.targetFrames == 480_000)
        let truncated = analyze(frames: 400_000, reference: Rational(10, 1))
        #expect(truncated.cause == .lengthsDiffer && truncated.action == .refuse)
        #expect(truncated.refusal?.contains("wrong pairing") == true)
        // 3% unexplained: within the limit, repaired; with a 2% limit, refused.
        #expect(analyze(frames: 494_400, reference: Rational(10, 1)).action == .resample)
        var strict = DriftPolicy()
        strict.refuseLimit = Rational(2, 100)
        #expect(analyze(frames: 494_400, reference: Rational(10, 1), drift: strict).action == .refuse)
    }

    @Test("config rules pick stretch for recorder faults, never for pitch-shifting causes")
    func rules() {
        let policy = RepairPolicy(rules: [
            MethodRule(pattern: GlobPattern("**/dropper/**"), method: .stretch, reason: "drops buffers")
        ])
        let dropped = analyze(frames: 2_865_600, reference: Rational(60, 1), path: "/m/dropper/t.wav", repair: policy)
        #expect(dropped.action == .stretch)
        #expect(dropped.method?.reason == "config rule \"**/dropper/**\": drops buffers")
        let pulled = analyze(
            frames: 1_440_000, reference: Rational(1_441_440, 48_000), path: "/m/dropper/t.wav", repair: policy)
        #expect(pulled.action == .resample && pulled.method?.reason == "ntsc-pull-down shifts the pitch")
    }

    @Test(
        "lengths beyond a clock's range (300 ppm) are no drift: a late start on a short take is lengths-differ",
        arguments: [
            // (recording frames, reference seconds, cause): 1 s short of 241 s; 131 ppm; 299 ppm; 301 ppm.
            (Int64(11_520_000), Rational(241, 1), DriftCause.lengthsDiffer),
            (Int64(172_777_363), Rational(3600, 1), .clockDrift),
            (Int64(2_879_139), Rational(60, 1), .clockDrift),
            (Int64(2_879_133), Rational(60, 1), .lengthsDiffer),
        ])
    func clockRange(frames: Int64, reference: Rational, cause: DriftCause) {
        let a = analyze(frames: frames, reference: reference)
        #expect(a.cause == cause, "\(a.driftPPM) ppm")
        let figures = DriftFigures(lengths: a)
        if cause == .lengthsDiffer {
            #expect(figures.driftPPM == nil && figures.endOffsetMs == nil && figures.flags.isEmpty)
            #expect(a.causeDetail.contains("started or stopped apart"))
        } else {
            #expect(figures.driftPPM == a.driftPPM && figures.endOffsetMs == a.endOffsetMilliseconds)
            #expect(figures.startOffsetMs == nil, "the lengths cannot tell a start")
        }
    }
}
