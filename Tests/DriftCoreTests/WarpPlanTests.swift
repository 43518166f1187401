import Foundation
import Testing

@testable import DriftCore

/// A wandering clock's repair path, planned from a clock written down by hand: the recording's lag against the
/// reference sampled every 2.5 s from its drift (integrated here in small steps), and the warp's knots read back as a
/// piecewise straight path that must put every recording frame where the clock says it belongs.
@Suite("Warp plans")
struct WarpPlanTests {
    static let rate = 48_000.0
    static let seconds = 1200.0

    /// The lag (reference time − recording time, s) along the take for a drift (ppm) along recording time, starting
    /// at `offset`: the integral of 1 / (1 + d) − 1 by the midpoint rule every 0.01 s, read between those steps
    /// straight (the lag curves by less than a nanosecond within one).
    struct Lag {
        static let step = 0.01
        let values: [Double]

        init(offset: Double, drift: (Double) -> Double) {
            var values = [offset]
            for index in 0..<Int(WarpPlanTests.seconds / Self.step) + 1 {
                let middle = (Double(index) + 0.5) * Self.step
                values.append(values[index] + (1 / (1 + drift(middle) * 1e-6) - 1) * Self.step)
            }
            self.values = values
        }

        func at(_ t: Double) -> Double {
            let index = min(Int(t / Self.step), values.count - 2)
            let within = t / Self.step - Double(index)
            return values[index] + (values[index + 1] - values[index]) * within
        }
    }

    static func measurement(
        model: ContentMeasurement.Model, offset: Double, drift: @escaping (Double) -> Double
    ) -> ContentMeasurement {
        let truth = Lag(offset: offset, drift: drift)
        let lag = stride(from: 0.0, through: seconds, by: 2.5).map {
            ContentMeasurement.LagPoint(atSeconds: $0, lagMs: truth.at($0) * 1000)
        }
        let drifts = stride(from: 0.0, through: seconds, by: 10).map {
            ClockPath.DriftPoint(atSeconds: $0, driftPPM: drift($0))
        }
        let ppm = drifts.map(\.driftPPM)
        var m = ContentMeasurement(
            offsetMs: offset * 1000, driftPPM: (ppm.min()! + ppm.max()!) / 2, driftPPMError: 0.01, model: model,
            confidence: 0.9)
        m.offsetMsError = 0.005
        m.scatterMs = 0.015
        m.clock = ClockPath(
            lag: lag, drift: drifts, startPPM: drift(0), endPPM: drift(seconds), fromSeconds: 0, toSeconds: seconds,
            minPPM: ppm.min()!, maxPPM: ppm.max()!)
        return m
    }

    /// The output frame the knots give stream frame `input`: straight between knots.
    static func along(_ knots: [WarpKnot], _ input: Int64) -> Double {
        let i = knots.lastIndex { $0.input <= input } ?? 0
        let (a, b) = (knots[i], knots[min(i + 1, knots.count - 1)])
        guard b.input > a.input else { return Double(a.output) }
        return Double(a.output) + Double(input - a.input) / Double(b.input - a.input) * Double(b.output - a.output)
    }

    func check(
        model: ContentMeasurement.Model, offset: Double, drift: @escaping (Double) -> Double, maxKnots: Int
    ) throws -> (knots: [WarpKnot], pad: Int64) {
        let frames = Int64(Self.seconds * Self.rate)
        let ops = try ContentRepairPlan.operations(
            for: Self.measurement(model: model, offset: offset, drift: drift), frames: frames,
            sampleRate: Int(Self.rate)
        ).get()
        guard case .warp(let total, let knots) = ops.last else {
            Issue.record("no warp: \(ops)")
            return ([], 0)
        }
        #expect(WarpKnot.isPath(knots, frames: total))
        #expect(knots.count <= maxKnots, "\(knots.count) knots" as Comment)
        let pad: Int64 = ops.compactMap { if case .padStart(let n) = $0 { n } else { nil } }.first ?? 0
        let trim: Int64 = ops.compactMap { if case .trimStart(let n) = $0 { n } else { nil } }.first ?? 0
        // Every recording frame, sampled each 0.1 s: where the clock puts it on the reference's timeline.
        let truth = Lag(offset: offset, drift: drift)
        var (worst, sum, count) = (0.0, 0.0, 0.0)
        for frame in stride(from: trim, to: frames, by: 4800) {
            let t = Double(frame) / Self.rate
            let ideal = (t + truth.at(t)) * Self.rate
            let error = abs(Self.along(knots, frame + pad - trim) - ideal)
            worst = max(worst, error)
            sum += error
            count += 1
        }
        // Whole frames at each knot: a kink and the output's end are rounded, less than half a frame (10 µs); along
        // the rest the path's own chord is within 0.05 frame.
        #expect(worst < 0.55, "a frame \(worst) output frames from where the clock puts it" as Comment)
        #expect(sum / count < 0.1, "frames \(sum / count) output frames from the clock on average" as Comment)
        return (knots, pad)
    }

    @Test(
        "a rate step: knots at the start, at the step and beside it, and at the end; every frame within half a frame of its place"
    )
    func step() throws {
        let (knots, pad) = try check(model: .steps, offset: 0.5, drift: { $0 < 600 ? -131 : -31 }, maxKnots: 7)
        // The kink is where the step was.
        #expect(knots.contains { $0.input == 600 * Int64(Self.rate) + pad })
    }

    @Test("a warming clock: a knot every few seconds of a curve is more than the path needs; fewer follow it as well")
    func warming() throws {
        let (knots, _) = try check(
            model: .wander, offset: 0.5, drift: { -131 + 30 * $0 / Self.seconds }, maxKnots: Int(Self.seconds / 2.5) / 4
        )
        #expect(knots.count > 8, "a curve needs more than a few knots")
    }

    @Test("a cycling clock, ±15 ppm every 5 minutes, started before the reference")
    func cycling() throws {
        _ = try check(
            model: .wander, offset: -0.25, drift: { -50 + 15 * sin(2 * .pi * $0 / 300) },
            maxKnots: Int(Self.seconds / 2.5) / 2)
    }
}
