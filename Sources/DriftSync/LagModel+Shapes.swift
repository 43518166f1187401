import Foundation

extension LagModel {
    /// The shortest span of windows whose clock is looked at for more than a line. Shorter, a crystal's wandering
    /// moves the lag by less than the windows can tell; from 45 s, a warm-up or a step the windows can tell (50 ppm
    /// over a minute bends the lag by 0.2 ms, twenty times the windows' noise) is chosen by the criterion below,
    /// which a straight clock's noise never meets.
    static let shapeMinimumSeconds = 45.0
    /// A shape is taken only where it moves the lag this far from the straight line somewhere (or 3 σ of the windows'
    /// noise, where that is more): closer, the straight repair is as good and simpler.
    static let shapeMinimumDeviation = 0.000_05
    /// How much lower a shape's criterion must be than the simpler one's to be taken.
    static let strongEvidence = 10.0

    /// The clock's shape the windows demand, chosen by the Bayesian information criterion over the same windows:
    /// Σ min(r², (4.5 σ)²)/σ² + k ln n, with σ the windows' own noise (from second differences of neighbouring
    /// windows, which no smooth clock and no single step moves), r each window's residual and k the unknowns (a kink
    /// counts twice: its time is fitted too); the cap keeps one stray window from deciding. Candidates: the line; a line with up to three kinks where the rate stepped
    /// (each placed where it fits best, to a fraction of a window); cubic splines over 1 to 128 equal intervals of at
    /// least 8 s. A straight clock stays a line: the noise alone never earns a shape its k ln n, and a shape that
    /// moves the lag less than `shapeMinimumDeviation` from the line is not taken.
    static func chooseShape(_ samples: [LagSample], steps: [Step], line: LagModel) -> LagModel {
        guard let first = samples.first?.t, let last = samples.last?.t, last - first >= shapeMinimumSeconds,
            samples.count >= 60
        else { return line }
        let sigma = windowNoise(samples, steps: steps)
        guard sigma > 0 else { return line }
        let n = Double(samples.count)
        func score(_ model: LagModel) -> Double {
            let cap = 4.5 * 4.5
            var sum = 0.0
            for sample in samples {
                let r = (sample.lag - model.lag(at: sample.t, window: sample.window)) / sigma
                sum += min(r * r, cap)
            }
            // A kink's time is fitted too: two unknowns each.
            var unknowns = model.shape.columnCount + model.steps.count
            if case .hinges(let times) = model.shape { unknowns += times.count }
            return sum + Double(unknowns) * log(n)
        }
        var best = (model: line, score: score(line))
        // A more complex shape must win by strong evidence (a criterion lower by 10: odds of 150 to 1), so that what
        // a take's sound does to a few windows is never taken for its clock.
        func consider(_ shape: ClockShape) -> LagModel? {
            guard let model = refine(samples, steps: steps, shape: shape) else { return nil }
            let value = score(model)
            if value < best.score - strongEvidence { best = (model, value) }
            return model
        }
        // Kinks, one at a time, each where it fits best while the others stay.
        var kinks: [Double] = []
        for _ in 0..<3 {
            let before = best.score
            guard let kink = bestKink(samples, steps: steps, fixed: kinks, score: score) else { break }
            kinks.append(kink)
            _ = consider(.hinges(kinks.sorted()))
            if best.score >= before { break }
        }
        // Intervals down to 8 s: a heater cycling every two minutes needs four or more a period.
        for intervals in [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]
        where (last - first) / Double(intervals) >= 8 {
            _ = consider(.spline(start: first, end: last, intervals: intervals))
        }
        guard best.model.shape != .line else { return line }
        // Worth a shape: somewhere it puts the lag further from the straight line than the windows' precision.
        let floor = max(shapeMinimumDeviation, 3 * sigma)
        let deviation = samples.map { abs(best.model.clockLag(at: $0.t) - line.clockLag(at: $0.t)) }.max() ?? 0
        guard deviation > floor else { return line }
        var chosen = best.model
        if case .hinges(let times) = chosen.shape {
            chosen.kinkSpread = times.indices.map {
                kinkSpread(samples, steps: steps, kinks: times, index: $0, score: score)
            }
        }
        return chosen
    }

    /// How far kink `index` may move before the fit is worse by the 95 % point of χ² with one degree of freedom
    /// (3.84 in the score's units of σ²), the other kinks kept: its 95 % interval's half-width, seconds.
    static func kinkSpread(
        _ samples: [LagSample], steps: [Step], kinks: [Double], index: Int, score: (LagModel) -> Double
    ) -> Double {
        func value(_ t: Double) -> Double {
            var moved = kinks
            moved[index] = t
            return solve(samples, steps: steps, shape: .hinges(moved.sorted())).map(score) ?? .infinity
        }
        let base = value(kinks[index])
        var spread = 0.0
        for sign in [-1.0, 1.0] {
            var delta = 0.01
            while delta < 600, value(kinks[index] + sign * delta) - base < 3.84 { delta *= 1.5 }
            spread = max(spread, delta)
        }
        return spread
    }

    /// The windows' own noise, seconds: from the second differences of neighbouring windows' lags (a smooth clock
    /// moves them by nanoseconds, a step or a kink only one or two of them, which the median ignores).
    static func windowNoise(_ samples: [LagSample], steps: [Step]) -> Double {
        var differences: [Double] = []
        for i in 1..<max(1, samples.count - 1) {
            let (a, b, c) = (samples[i - 1], samples[i], samples[i + 1])
            guard b.window - a.window == 1, c.window - b.window == 1 else { continue }
            differences.append(abs(c.lag - 2 * b.lag + a.lag))
        }
        // A second difference of independent noise has √6 times its spread.
        return 1.4826 * (median(differences) ?? 0) / 6.0.squareRoot()
    }

    /// The time of one more kink (with `fixed` kept) that fits the windows best: searched at every fourth window, then
    /// narrowed by golden sections between the neighbours of the best. Nil where there is no room for one.
    static func bestKink(
        _ samples: [LagSample], steps: [Step], fixed: [Double], score: (LagModel) -> Double
    ) -> Double? {
        guard let first = samples.first?.t, let last = samples.last?.t else { return nil }
        // A kink needs windows on both sides to be told from the ends' own slopes.
        let margin = min(20, (last - first) / 8)
        // A dropout is a step in the lag, not a change of rate: no kink is looked for within 5 s of one.
        var drops: [Double] = []
        for step in steps {
            if let after = samples.first(where: { $0.window >= step.after }) { drops.append(after.t) }
        }
        var candidates: [Double] = []
        for index in stride(from: 0, to: samples.count, by: 4) {
            let t = samples[index].t
            guard t > first + margin, t < last - margin else { continue }
            guard fixed.allSatisfy({ abs(t - $0) > margin }), drops.allSatisfy({ abs(t - $0) > 5 }) else { continue }
            candidates.append(t)
        }
        func value(_ t: Double) -> Double {
            solve(samples, steps: steps, shape: .hinges((fixed + [t]).sorted())).map(score) ?? .infinity
        }
        let values = candidates.map(value)
        guard let coarse = values.indices.min(by: { values[$0] < values[$1] }) else { return nil }
        var low = candidates[max(0, coarse - 1)]
        var high = candidates[min(candidates.count - 1, coarse + 1)]
        let ratio = (5.0.squareRoot() - 1) / 2
        var a = high - ratio * (high - low)
        var b = low + ratio * (high - low)
        var (fa, fb) = (value(a), value(b))
        for _ in 0..<24 {
            if fa < fb {
                high = b
                (b, fb) = (a, fa)
                a = high - ratio * (high - low)
                fa = value(a)
            } else {
                low = a
                (a, fa) = (b, fb)
                b = low + ratio * (high - low)
                fb = value(b)
            }
        }
        return (low + high) / 2
    }
}
