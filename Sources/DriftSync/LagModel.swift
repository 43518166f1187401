import Foundation

/// One window's lag, as the fine pass found it.
struct LagSample {
    /// Recording time of the window's centre, seconds.
    var t: Double
    /// Reference time − recording time, seconds.
    var lag: Double
    var clarity: Double
    /// Index of the window in the recording.
    var window: Int
}

/// lag(t) = intercept + slope·t + the steps before t, fitted to the windows by least squares after rejecting the
/// windows that disagree.
struct LagModel {
    struct Step {
        /// The last window before the step and the first after it (the step lies between their centres).
        var before: Int
        var after: Int
        /// Lag added at the step, seconds (positive: sound went missing).
        var size: Double
    }

    /// The clock's lag at t = 0 and its average rate of change over the windows (a straight clock: its line).
    var intercept: Double
    var slope: Double
    /// Standard error of `slope`, allowing for correlation between neighbouring windows.
    var slopeError: Double
    /// Standard error of `intercept` (the lag at t = 0), on the same terms.
    var interceptError: Double = .infinity
    var steps: [Step]
    /// The windows the model keeps (within the rejection limit).
    var agreeing: [LagSample]
    /// RMS of the agreeing windows about the model, seconds.
    var scatter: Double
    /// What the clock's lag does between the dropouts, and its coefficients (`centre` the windows' mean time).
    var shape: ClockShape = .line
    var coefficients: [Double] = []
    var centre: Double = 0
    /// The windows' own noise (RMS, seconds), against which the scatter is judged.
    var noise: Double = 0
    /// For each kink of a `hinges` shape, how far it may lie from its place (95 %), seconds.
    var kinkSpread: [Double] = []

    /// The clock's own lag at `t`: the model without its dropouts' steps.
    func clockLag(at t: Double) -> Double {
        guard !coefficients.isEmpty else { return intercept + slope * t }
        return zip(shape.columns(t, centre: centre), coefficients).reduce(0) { $0 + $1.0 * $1.1 }
    }

    /// The clock lag's rate of change at `t`.
    func clockSlope(at t: Double) -> Double {
        guard !coefficients.isEmpty else { return slope }
        return zip(shape.slopes(t), coefficients).reduce(0) { $0 + $1.0 * $1.1 }
    }

    func lag(at t: Double, window: Int) -> Double {
        var value = clockLag(at: t)
        for step in steps where window >= step.after { value += step.size }
        return value
    }

    /// The smallest step called a dropout, seconds: well above a window's noise, and a sixteenth of a millisecond
    /// below which a repair would move nothing audible.
    static let minimumStep = 0.000_25

    /// Fits `samples` (time order). Nil when fewer than three windows agree on anything. With `clockShapes`, a clock
    /// whose rate stepped or moved along the take is fitted as such where the windows demand it (`chooseShape`).
    static func fit(_ samples: [LagSample], clockShapes: Bool = true) -> LagModel? {
        guard samples.count >= 3 else { return nil }
        // A first slope from neighbouring windows' increments: steps are few, so the median ignores them.
        var increments: [Double] = []
        for i in 1..<samples.count {
            let dt = samples[i].t - samples[i - 1].t
            if dt > 0 { increments.append((samples[i].lag - samples[i - 1].lag) / dt) }
        }
        let slope = median(increments) ?? 0
        // Outliers first: a window far from both the level of the windows just before it and of those just after it
        // (a step puts its own windows with one side or the other; a false peak agrees with neither). "Far" is well
        // beyond the windows' own noise, measured on the detrended increments.
        let level = samples.map { $0.lag - slope * $0.t }
        var jumps: [Double] = []
        for i in 1..<level.count { jumps.append(abs(level[i] - level[i - 1])) }
        let noise = 1.4826 * (median(jumps) ?? 0)
        let far = max(0.000_5, 8 * noise)
        let kept = samples.indices.filter { i in
            let before = median(Array(level[max(0, i - 3)..<i]))
            let after = median(i + 1 < level.count ? Array(level[(i + 1)...min(level.count - 1, i + 3)]) : [])
            let sides = [before, after].compactMap { $0 }
            return sides.isEmpty || sides.contains { abs(level[i] - $0) <= far }
        }.map { samples[$0] }
        guard kept.count >= 3 else { return nil }

        let steps = findSteps(kept, slope: slope)
        let line =
            refine(kept, steps: steps, shape: .line)
            ?? LagModel(
                intercept: kept[0].lag, slope: slope, slopeError: .infinity, steps: [], agreeing: kept, scatter: 0)
        var model = clockShapes ? chooseShape(kept, steps: steps, line: line) : line
        // A step the fit makes smaller than a dropout can be was the clock's own doing: fitted again without it.
        let real = model.steps.filter { abs($0.size) >= minimumStep / 2 }
        if real.count < model.steps.count, let refit = refine(kept, steps: real, shape: model.shape) {
            let spread = model.kinkSpread
            model = refit
            model.kinkSpread = spread
        }
        model.noise = windowNoise(kept, steps: model.steps)
        return model
    }

    /// Least squares with the steps for `shape`, rejecting windows beyond 4.5 σ (at least 60 µs) of its own fit.
    static func refine(_ samples: [LagSample], steps: [Step], shape: ClockShape) -> LagModel? {
        var kept = samples
        guard var model = solve(kept, steps: steps, shape: shape) else { return nil }
        for _ in 0..<3 {
            let residuals = kept.map { $0.lag - model.lag(at: $0.t, window: $0.window) }
            let spread = 1.4826 * (median(residuals.map { abs($0) }) ?? 0)
            let limit = max(4.5 * spread, 0.000_06)
            let next = zip(kept, residuals).filter { abs($0.1) <= limit }.map(\.0)
            guard next.count >= 3, let refit = solve(next, steps: steps, shape: shape) else { break }
            model = refit
            if next.count == kept.count { break }
            kept = next
        }
        return model
    }

    /// Steps in the detrended lag: an increment between neighbouring windows far beyond the windows' noise, confirmed
    /// by the median levels on either side.
    static func findSteps(_ s: [LagSample], slope: Double) -> [Step] {
        // Each increment less the clock's local rate over its time (the median rate of the neighbouring increments):
        // a clock whose rate wanders, or a pause in the sound between two windows, is not a jump.
        var rates: [Double] = []
        for i in 1..<s.count {
            let dt = s[i].t - s[i - 1].t
            rates.append(dt > 0 ? (s[i].lag - s[i - 1].lag) / dt : slope)
        }
        func localRate(_ i: Int) -> Double {
            let around = (max(0, i - 12)..<min(rates.count, i + 12)).filter { $0 != i }.map { rates[$0] }
            return median(around) ?? slope
        }
        let local = rates.indices.map(localRate)
        var increments: [Double] = []
        for i in 1..<s.count { increments.append(s[i].lag - s[i - 1].lag - local[i - 1] * (s[i].t - s[i - 1].t)) }
        let noise = 1.4826 * (median(increments.map { abs($0) }) ?? 0)
        let threshold = max(8 * noise, minimumStep)
        var candidates: [Int] = []  // index of the first window after a jump
        for i in 1..<s.count where abs(increments[i - 1]) > threshold { candidates.append(i) }
        // A window straddling a gap may show either level: jumps within three windows are one step.
        var groups: [[Int]] = []
        for c in candidates {
            if let last = groups.last?.last, c - last <= 3 {
                groups[groups.count - 1].append(c)
            } else {
                groups.append([c])
            }
        }
        var steps: [Step] = []
        for group in groups {
            let first = group[0]
            let last = group[group.count - 1]
            let beforeEnd = first - 1
            let afterStart = last
            // The levels on either side, detrended by the clock's rate there.
            let rate = local[beforeEnd]
            let level = { (i: Int) in s[i].lag - rate * s[i].t }
            let before = (max(0, beforeEnd - 6)...beforeEnd).map(level)
            let after = (afterStart...min(s.count - 1, afterStart + 6)).map(level)
            guard let b = median(before), let a = median(after) else { continue }
            let size = a - b
            // An isolated wild window makes two opposite jumps and no level change.
            guard abs(size) > threshold else { continue }
            steps.append(Step(before: s[beforeEnd].window, after: s[afterStart].window, size: size))
        }
        return steps
    }

    /// Least squares for intercept, slope and step sizes. Windows between a step's `before` and `after` go to the
    /// side whose level is nearer.
    static func solve(_ s: [LagSample], steps allSteps: [Step], shape: ClockShape = .line) -> LagModel? {
        // A step needs windows on both of its sides, or it cannot be measured (and would make the system singular).
        let steps = allSteps.filter { step in
            s.contains { $0.window <= step.before } && s.contains { $0.window >= step.after }
        }
        let base = shape.columnCount
        let unknowns = base + steps.count
        guard s.count > unknowns else { return nil }
        let tMean = s.reduce(0) { $0 + $1.t } / Double(s.count)
        var rows: [[Double]] = []
        for sample in s {
            var row = shape.columns(sample.t, centre: tMean)
            for step in steps {
                if sample.window >= step.after {
                    row.append(1)
                } else if sample.window <= step.before {
                    row.append(0)
                } else {
                    row.append(-1)  // decided below
                }
            }
            rows.append(row)
        }
        if rows.contains(where: { $0.contains(-1) }) {
            assignStraddling(&rows, s, stepColumns: base..<unknowns)
        }
        guard let result = fitRows(rows, s.map(\.lag)) else { return nil }
        let c = result.coefficients
        var fitted = steps
        for j in fitted.indices { fitted[j].size = c[base + j] }
        let residuals = zip(rows, s).map { row, sample in sample.lag - zip(row, c).reduce(0) { $0 + $1.0 * $1.1 } }
        let n = Double(s.count)
        let variance = residuals.reduce(0) { $0 + $1 * $1 } / max(1, n - Double(unknowns))
        let inflation = varianceInflation(residuals)
        let clock = Array(c[0..<base])
        func value(_ columns: [Double]) -> Double { zip(columns, clock).reduce(0) { $0 + $1.0 * $1.1 } }
        /// The variance of a linear function of the clock's coefficients.
        func spread(_ g: [Double]) -> Double {
            var sum = 0.0
            for i in g.indices where g[i] != 0 {
                for j in g.indices where g[j] != 0 { sum += g[i] * result.inverse[i][j] * g[j] }
            }
            return (variance * inflation * max(0, sum)).squareRoot()
        }
        // The lag at t = 0 and the average rate over the windows (the line's own two for a straight clock).
        let (first, last) = (s[0].t, s[s.count - 1].t)
        let startColumns = shape.columns(0, centre: tMean)
        let averageColumns = zip(shape.columns(last, centre: tMean), shape.columns(first, centre: tMean)).map {
            ($0 - $1) / max(last - first, 1e-9)
        }
        let slope = shape == .line ? c[1] : value(averageColumns)
        return LagModel(
            intercept: value(startColumns), slope: slope, slopeError: spread(averageColumns),
            interceptError: spread(startColumns), steps: fitted, agreeing: s,
            scatter: (residuals.reduce(0) { $0 + $1 * $1 } / n).squareRoot(), shape: shape, coefficients: clock,
            centre: tMean)
    }

    /// Straddling windows (-1 in a step's column) go to the side whose level is nearer: compared with the two levels
    /// a fit of the clean windows gives (0 where there is no such fit).
    private static func assignStraddling(_ rows: inout [[Double]], _ s: [LagSample], stepColumns: Range<Int>) {
        let clean = zip(rows, s).filter { !$0.0.contains(-1) }
        guard let first = fitRows(clean.map(\.0), clean.map(\.1.lag)) else {
            for i in rows.indices { for j in rows[i].indices where rows[i][j] == -1 { rows[i][j] = 0 } }
            return
        }
        for i in rows.indices where rows[i].contains(-1) {
            for j in stepColumns where rows[i][j] == -1 {
                var without = rows[i]
                for k in stepColumns where without[k] == -1 { without[k] = 0 }
                var with = without
                with[j] = 1
                let p0 = zip(without, first.coefficients).reduce(0) { $0 + $1.0 * $1.1 }
                let p1 = zip(with, first.coefficients).reduce(0) { $0 + $1.0 * $1.1 }
                rows[i][j] = abs(s[i].lag - p1) < abs(s[i].lag - p0) ? 1 : 0
            }
        }
    }

    /// Neighbouring windows share reverberation and noise: how much the residuals' lag-1 correlation inflates the
    /// variance (fewer independent windows than there are).
    private static func varianceInflation(_ residuals: [Double]) -> Double {
        var r1 = 0.0
        var r0 = 0.0
        for i in residuals.indices {
            r0 += residuals[i] * residuals[i]
            if i > 0 { r1 += residuals[i] * residuals[i - 1] }
        }
        let rho = r0 > 0 ? max(0, min(0.95, r1 / r0)) : 0
        return (1 + rho) / (1 - rho)
    }

    /// Solves the normal equations; the coefficients and (XᵀX)⁻¹.
    static func fitRows(_ rows: [[Double]], _ y: [Double]) -> (coefficients: [Double], inverse: [[Double]])? {
        guard let m = rows.first?.count, rows.count >= m else { return nil }
        var a = [[Double]](repeating: [Double](repeating: 0, count: 2 * m), count: m)
        var b = [Double](repeating: 0, count: m)
        for (row, value) in zip(rows, y) {
            // A spline's row has four values that are not zero: only those are added up.
            let nonzero = row.indices.filter { row[$0] != 0 }
            for i in nonzero {
                b[i] += row[i] * value
                for j in nonzero { a[i][j] += row[i] * row[j] }
            }
        }
        for i in 0..<m { a[i][m + i] = 1 }
        // Gauss–Jordan with partial pivoting on [XᵀX | I].
        for col in 0..<m {
            guard let pivot = (col..<m).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-12
            else { return nil }
            a.swapAt(col, pivot)
            b.swapAt(col, pivot)
            let d = a[col][col]
            for j in 0..<(2 * m) { a[col][j] /= d }
            b[col] /= d
            for i in 0..<m where i != col {
                let f = a[i][col]
                if f == 0 { continue }
                for j in 0..<(2 * m) { a[i][j] -= f * a[col][j] }
                b[i] -= f * b[col]
            }
        }
        return (b, (0..<m).map { Array(a[$0][m..<(2 * m)]) })
    }
}
