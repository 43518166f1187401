/// The clock's part of a lag model: what the lag does between dropouts, as columns of a least-squares fit.
///
/// - `line`: a straight clock, offset and drift.
/// - `hinges`: a clock whose rate stepped at these times (re-disciplined mid-take): a line with a kink at each.
/// - `spline`: a clock whose rate moved smoothly (warming, a heater cycling): a cubic B-spline over the take in
///   equal intervals, so its rate is smooth and its lag follows it exactly.
enum ClockShape: Equatable {
    case line
    case hinges([Double])
    case spline(start: Double, end: Double, intervals: Int)

    var columnCount: Int {
        switch self {
        case .line: return 2
        case .hinges(let times): return 2 + times.count
        case .spline(_, _, let intervals): return intervals + 3
        }
    }

    /// The columns at time `t` (`centre` the windows' mean time, which keeps a line's two columns apart).
    func columns(_ t: Double, centre: Double) -> [Double] {
        switch self {
        case .line: return [1, t - centre]
        case .hinges(let times): return [1, t - centre] + times.map { max(0, t - $0) }
        case .spline(let start, let end, let intervals):
            var row = [Double](repeating: 0, count: intervals + 3)
            let (index, weights) = Self.bspline(t, start: start, end: end, intervals: intervals)
            for k in 0..<4 where index + k >= 0 && index + k < row.count { row[index + k] = weights[k] }
            return row
        }
    }

    /// The columns' rates of change at `t`.
    func slopes(_ t: Double) -> [Double] {
        switch self {
        case .line: return [0, 1]
        case .hinges(let times): return [0, 1] + times.map { t > $0 ? 1 : 0 }
        case .spline(let start, let end, let intervals):
            var row = [Double](repeating: 0, count: intervals + 3)
            let (index, weights) = Self.bsplineSlope(t, start: start, end: end, intervals: intervals)
            for k in 0..<4 where index + k >= 0 && index + k < row.count { row[index + k] = weights[k] }
            return row
        }
    }

    /// The uniform cubic B-spline's four non-zero basis values at `t`, and the index of the first. Outside
    /// [start, end] the end pieces continue (the lag extrapolates smoothly a little way).
    static func bspline(_ t: Double, start: Double, end: Double, intervals: Int) -> (Int, [Double]) {
        let (index, u) = piece(t, start: start, end: end, intervals: intervals)
        let v = 1 - u
        return (
            index,
            [
                v * v * v / 6, (3 * u * u * u - 6 * u * u + 4) / 6, (-3 * u * u * u + 3 * u * u + 3 * u + 1) / 6,
                u * u * u / 6,
            ]
        )
    }

    static func bsplineSlope(_ t: Double, start: Double, end: Double, intervals: Int) -> (Int, [Double]) {
        let (index, u) = piece(t, start: start, end: end, intervals: intervals)
        let h = (end - start) / Double(intervals)
        let v = 1 - u
        return (index, [-v * v / 2 / h, (9 * u * u - 12 * u) / 6 / h, (-9 * u * u + 6 * u + 3) / 6 / h, u * u / 2 / h])
    }

    /// The interval holding `t` and the position within it, 0...1 (beyond the ends, the end intervals continued).
    private static func piece(_ t: Double, start: Double, end: Double, intervals: Int) -> (Int, Double) {
        let h = (end - start) / Double(intervals)
        let x = (t - start) / h
        let index = min(max(0, Int(x.rounded(.down))), intervals - 1)
        return (index, x - Double(index))
    }
}
