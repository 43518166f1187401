/// How a recorder's clock ran along a take where it did not run straight: a crystal warming up or cycling with a
/// heater (`wander`), or re-disciplined mid-take so its rate stepped (`steps`). A straight clock has none: its line
/// is the offset and the drift.
///
/// `lag` is the clock's own lag (reference time less recording time, the dropouts' lost time left out), sampled densely
/// enough that a straight line between neighbouring points stays within a microsecond of the fitted model, with a
/// point at every rate step: the repair follows it. `drift` is what a person reads and the report plots.
public struct ClockPath: Codable, Sendable, Equatable {
    /// The drift at a moment of the take: (recording rate / true rate − 1) × 10⁶, the header drift's sign.
    public struct DriftPoint: Codable, Sendable, Equatable {
        package var atSeconds: Double
        public var driftPPM: Double

        package init(atSeconds: Double, driftPPM: Double) {
            self.atSeconds = atSeconds
            self.driftPPM = driftPPM
        }
    }

    /// Where the clock's rate changed at once.
    public struct RateStep: Codable, Sendable, Equatable {
        /// Recording time of the step, seconds.
        package var atSeconds: Double
        /// How far the step may lie from `atSeconds` (95 %), seconds.
        package var uncertaintySeconds: Double
        public var fromPPM: Double
        public var toPPM: Double

        package init(atSeconds: Double, uncertaintySeconds: Double, fromPPM: Double, toPPM: Double) {
            self.atSeconds = atSeconds
            self.uncertaintySeconds = uncertaintySeconds
            self.fromPPM = fromPPM
            self.toPPM = toPPM
        }
    }

    /// The clock's lag along the take (ms), at recording times (s), in time order.
    public var lag: [ContentMeasurement.LagPoint]
    /// The drift along the take, at most a few hundred points.
    public var drift: [DriftPoint]
    /// The drift at the first and the last moment the sound was measured (`fromSeconds`, `toSeconds`).
    public var startPPM: Double
    public var endPPM: Double
    package var fromSeconds: Double
    package var toSeconds: Double
    public var minPPM: Double
    public var maxPPM: Double
    public var rateSteps: [RateStep]

    package init(
        lag: [ContentMeasurement.LagPoint], drift: [DriftPoint], startPPM: Double, endPPM: Double, fromSeconds: Double,
        toSeconds: Double, minPPM: Double, maxPPM: Double, rateSteps: [RateStep] = []
    ) {
        self.lag = lag
        self.drift = drift
        self.startPPM = startPPM
        self.endPPM = endPPM
        self.fromSeconds = fromSeconds
        self.toSeconds = toSeconds
        self.minPPM = minPPM
        self.maxPPM = maxPPM
        self.rateSteps = rateSteps
    }

    /// The clock's lag at recording time `t`, seconds: the straight line between the nearest points, continued along
    /// the end segments beyond them.
    package func lagSeconds(at t: Double) -> Double {
        guard let first = lag.first, let last = lag.last else { return 0 }
        guard lag.count > 1 else { return first.lagMs / 1000 }
        // The segment holding t (the first or last one beyond the ends), by bisection.
        var low = 0
        var high = lag.count - 1
        if t <= first.atSeconds {
            high = 1
        } else if t >= last.atSeconds {
            low = lag.count - 2
        } else {
            while high - low > 1 {
                let middle = (low + high) / 2
                if lag[middle].atSeconds <= t { low = middle } else { high = middle }
            }
        }
        let (a, b) = (lag[low], lag[high])
        let span = b.atSeconds - a.atSeconds
        guard span > 0 else { return a.lagMs / 1000 }
        return (a.lagMs + (b.lagMs - a.lagMs) * (t - a.atSeconds) / span) / 1000
    }

    /// The drift at recording time `t`, from the path's slope there, ppm.
    package func driftPPM(at t: Double) -> Double {
        let h = 0.5
        let slope = (lagSeconds(at: t + h) - lagSeconds(at: t - h)) / (2 * h)
        return (1 / (1 + slope) - 1) * 1e6
    }

    /// The path of a stretch of a longer recording moved onto the whole recording's timeline (it began `seconds`
    /// into it): the same moments are `seconds` later, their lag as much smaller.
    package func shifted(bySeconds seconds: Double) -> ClockPath {
        var moved = self
        moved.lag = lag.map { .init(atSeconds: $0.atSeconds + seconds, lagMs: $0.lagMs - seconds * 1000) }
        moved.drift = drift.map { .init(atSeconds: $0.atSeconds + seconds, driftPPM: $0.driftPPM) }
        moved.fromSeconds += seconds
        moved.toSeconds += seconds
        moved.rateSteps = rateSteps.map {
            var step = $0
            step.atSeconds += seconds
            return step
        }
        return moved
    }

    /// In words: "clock wanders: −131.0 → −101.0 ppm over 20.0 min (between −131.0 and −101.0)", "clock rate stepped
    /// at 10:02.3 by +100.0 ppm (−131.0 → −31.0 ppm)".
    package func summary(seconds: Double) -> String {
        func ppm(_ value: Double) -> String { (value >= 0 ? "+" : "") + String(value, decimals: 1) }
        if !rateSteps.isEmpty {
            return rateSteps.map { step in
                "clock rate stepped at \(Self.clock(step.atSeconds)) by \(ppm(step.toPPM - step.fromPPM)) ppm "
                    + "(\(ppm(step.fromPPM)) → \(ppm(step.toPPM)) ppm)"
            }.joined(separator: "; ")
        }
        var text =
            "clock wanders: \(ppm(startPPM)) → \(ppm(endPPM)) ppm over \(String((toSeconds - fromSeconds) / 60, decimals: 1)) min"
        if minPPM < min(startPPM, endPPM) - 0.5 || maxPPM > max(startPPM, endPPM) + 0.5 {
            text += " (between \(ppm(minPPM)) and \(ppm(maxPPM)))"
        }
        return text
    }

    /// m:ss.s or h:mm:ss.s.
    static func clock(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        let (h, m, s, t) = (tenths / 36000, tenths / 600 % 60, tenths / 10 % 60, tenths % 10)
        return h > 0 ? "\(h):\(pad(m)):\(pad(s)).\(t)" : "\(m):\(pad(s)).\(t)"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
