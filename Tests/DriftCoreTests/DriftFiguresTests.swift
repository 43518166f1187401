import Testing

@testable import DriftCore

/// A measurement as the sound reports it, for a straight clock: lag(t) = offset + (1/(1 + d) − 1)·t, plus what each
/// dropout lost before t; the curve sampled every 5 s. The truths below are computed from these definitions, not
/// from `DriftFigures`.
private func straight(
    offsetMs: Double, driftPPM: Double, seconds: Double, dropouts: [ContentMeasurement.Dropout] = [],
    model: ContentMeasurement.Model = .clock, disagreement: String? = nil
) -> ContentMeasurement {
    func lag(_ t: Double) -> Double {
        offsetMs + (1 / (1 + driftPPM * 1e-6) - 1) * t * 1000
            + dropouts.filter { $0.atSeconds <= t }.reduce(0) { $0 + $1.missingMs }
    }
    let curve = stride(from: 2.5, to: seconds, by: 5).map { ContentMeasurement.LagPoint(atSeconds: $0, lagMs: lag($0)) }
    var m = ContentMeasurement(
        offsetMs: offsetMs, driftPPM: driftPPM, driftPPMError: 0.05, model: model, confidence: 0.9,
        dropouts: dropouts, scatterMs: 0.01, windows: curve.count, agreeingWindows: curve.count, curve: curve)
    m.offsetMsError = 0.01
    m.disagreement = disagreement
    return m
}

@Suite("A pair's figures from its best measurement: the sound's offsets, limits and cause")
struct DriftFiguresTests {
    @Test("a straight slow clock started 300 ms late: leads by 300 ms at the start and more at the end")
    func lateSlowClock() throws {
        let seconds = 241.0
        let m = straight(offsetMs: 300, driftPPM: -131, seconds: seconds)
        let f = try #require(
            DriftFigures(sound: m, recordingSeconds: seconds, referenceSeconds: 242, sampleRate: 48000))
        let growth = (1 / (1 - 131e-6) - 1) * seconds * 1000  // the lag the clock adds over the take, ms
        #expect(f.measuredBy == .content)
        #expect(f.driftPPM == -131)
        #expect(abs(try #require(f.startOffsetMs) + 300) < 1e-9)
        #expect(abs(try #require(f.endOffsetMs) + 300 + growth) < 1e-9)
        #expect(abs(try #require(f.driftSeconds) * 1000 + growth) < 1e-9)
        #expect(abs(try #require(f.worstOffsetMs) + 300 + growth) < 1e-9 && f.worstAtSeconds == seconds)
        #expect(f.flags == [.ituBT1359, .ebuR37])
        #expect(f.cause == .clockDrift)
        #expect(f.causeDetail == "recorder clock 131.00 ppm slow; started 300.0 ms after the reference")
    }

    @Test(
        "a clock within the tolerance names how the take was started or stopped",
        arguments: [
            (300.0, nil as String?, DriftCause.lateStart), (-250.0, nil, .earlyStart), (0.0, "early stop", .earlyStop),
            (0.0, "late stop", .lateStop), (0.0, nil, .inSync), (0.5, nil, .inSync),
        ])
    func startsAndStops(offsetMs: Double, disagreement: String?, cause: DriftCause) throws {
        let m = straight(offsetMs: offsetMs, driftPPM: 0.02, seconds: 60, disagreement: disagreement)
        let f = try #require(DriftFigures(sound: m, recordingSeconds: 60, referenceSeconds: 61, sampleRate: 48000))
        #expect(f.cause == cause, "\(f.causeDetail)")
        // A sound 300 ms early is past both limits; 250 ms late past both too; within half a ms, none.
        #expect(f.flags.isEmpty == (abs(offsetMs) < 40))
    }

    @Test("lost buffers are the cause; the clock under them is the drift, and what they lost is no clock drift")
    func dropouts() throws {
        let lost = [ContentMeasurement.Dropout(atSeconds: 40, missingMs: 30)]
        let m = straight(offsetMs: 0, driftPPM: -100, seconds: 120, dropouts: lost, model: .dropouts)
        let f = try #require(DriftFigures(sound: m, recordingSeconds: 120, referenceSeconds: 121, sampleRate: 48000))
        let clockMs = (1 / (1 - 100e-6) - 1) * 120 * 1000
        #expect(f.cause == .dropouts && f.driftPPM == -100)
        #expect(abs(try #require(f.driftSeconds) * 1000 + clockMs) < 1e-9)
        #expect(abs(try #require(f.endOffsetMs) + clockMs + 30) < 1e-9)
        #expect(f.causeDetail.hasPrefix("1 dropout, 30.0 ms of sound lost; recorder clock 100.00 ppm slow"))
    }

    @Test("a wandering clock: its mean error along its path is the drift, its path the offsets; the cause its wander")
    func wander() throws {
        var m = straight(offsetMs: 0, driftPPM: -106, seconds: 100, model: .wander)
        // The lag of a clock going from -81 to -131 ppm linearly over 100 s: ∫ (1/(1+d(u)) − 1) du, d(u) ramping.
        func lagMs(_ t: Double) -> Double {
            var sum = 0.0
            let steps = 10_000
            for k in 0..<steps {
                let u = (Double(k) + 0.5) / Double(steps) * t
                sum += 1 / (1 + (-81 - 50 * u / 100) * 1e-6) - 1
            }
            return sum * t / Double(steps) * 1000
        }
        let path = stride(from: 0.0, through: 100, by: 2.5).map {
            ContentMeasurement.LagPoint(atSeconds: $0, lagMs: lagMs($0))
        }
        m.clock = ClockPath(
            lag: path, drift: [], startPPM: -81, endPPM: -131, fromSeconds: 0, toSeconds: 100, minPPM: -131,
            maxPPM: -81)
        let f = try #require(DriftFigures(sound: m, recordingSeconds: 100, referenceSeconds: 101, sampleRate: 48000))
        // Its mean error: the take's 100 s against the reference time the clock spanned (not the fit's line, -106).
        let mean = (100 / (100 + lagMs(100) / 1000) - 1) * 1e6
        #expect(f.cause == .clockWander && abs((f.driftPPM ?? 0) - mean) < 1e-6 && abs(mean + 105.9) < 0.5)
        #expect(abs(try #require(f.endOffsetMs) + lagMs(100)) < 1e-6)
        #expect(f.causeDetail.hasPrefix("clock wanders: -81.0 → -131.0 ppm"))
    }

    @Test("a rate no clock runs at, by the sound: a pull-down is named, an odd one is unexplained")
    func ratios() throws {
        let pulled = straight(offsetMs: 0, driftPPM: (1000.0 / 1001.0 - 1) * 1e6, seconds: 60)
        #expect(
            DriftFigures(sound: pulled, recordingSeconds: 60, referenceSeconds: 60, sampleRate: 48000)?.cause
                == .pullDown)
        let odd = straight(offsetMs: 0, driftPPM: -3000, seconds: 60)
        #expect(
            DriftFigures(sound: odd, recordingSeconds: 60, referenceSeconds: 60, sampleRate: 48000)?.cause
                == .unexplained)
    }

    @Test("the lip-sync verdict reads the raw lag at its worst, not the fit at the ends")
    func worstRawLag() throws {
        var m = straight(offsetMs: 0, driftPPM: 0, seconds: 60)
        // One stretch of windows 50 ms ahead mid-take (a fit would not show it at either end).
        m.curve[6].lagMs = 50
        let f = try #require(DriftFigures(sound: m, recordingSeconds: 60, referenceSeconds: 60, sampleRate: 48000))
        #expect(f.worstOffsetMs == -50 && f.worstAtSeconds == m.curve[6].atSeconds)
        #expect(f.flags == [.ituBT1359, .ebuR37])
    }

    @Test("an unmeasurable sound gives no figures")
    func unmeasurable() {
        let m = ContentMeasurement(
            offsetMs: nil, driftPPM: nil, driftPPMError: nil, model: .unmeasurable, confidence: 0,
            unmeasurable: .repetitive)
        #expect(DriftFigures(sound: m, recordingSeconds: 60, referenceSeconds: 60, sampleRate: 48000) == nil)
    }
}
