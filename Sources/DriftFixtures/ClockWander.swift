import Foundation

/// How a recorder's clock wandered during a take, beyond the drift it started with: the truth a test compares the
/// measurement of a wandering clock with. The scene time the recorder's sample at recording time t heard is the exact
/// integral of the clock's speed, ∫₀ᵗ du / (1 + drift(u)·10⁻⁶): in closed form for a ramp and a step, by five-point
/// Gauss-Legendre on one-second pieces for a cycle (exact to rounding for so smooth an integrand). The scene is then
/// evaluated at those times, so the recording is its band-limited sound on the wandering clock, with no resampler of
/// the project's in between.
public enum ClockWander: Sendable {
    /// The drift moves linearly to `endPPM` at time `overSeconds` and stays there (a crystal warming up).
    case ramp(endPPM: Double, overSeconds: Double)
    /// The drift swings ±`amplitudePPM` around the starting drift with this period (a heater cycling).
    case cycle(amplitudePPM: Double, periodSeconds: Double)
    /// The drift becomes `toPPM` at recording time `atSeconds` (re-disciplined by GPS, a timecode re-jam).
    case step(atSeconds: Double, toPPM: Double)

    /// The drift at recording time `t`, for a clock that started at `startPPM`.
    public func driftPPM(at t: Double, startPPM: Double) -> Double {
        switch self {
        case .ramp(let end, let over): return startPPM + (end - startPPM) * min(max(t, 0), over) / over
        case .cycle(let amplitude, let period): return startPPM + amplitude * sin(2 * .pi * t / period)
        case .step(let at, let to): return t < at ? startPPM : to
        }
    }

    /// Scene seconds elapsed between recording times 0 and `t` (t ≥ 0).
    public func sceneSeconds(at t: Double, startPPM: Double) -> Double {
        let a = startPPM * 1e-6
        switch self {
        case .ramp(let end, let over):
            let b = (end - startPPM) * 1e-6 / over
            let ramping = min(t, over)
            var seconds = abs(b) < 1e-18 ? ramping / (1 + a) : log((1 + a + b * ramping) / (1 + a)) / b
            if t > over { seconds += (t - over) / (1 + end * 1e-6) }
            return seconds
        case .step(let at, let to):
            return t <= at ? t / (1 + a) : at / (1 + a) + (t - at) / (1 + to * 1e-6)
        case .cycle:
            // Whole seconds, then the rest.
            let whole = Int(t.rounded(.down))
            var seconds = 0.0
            for k in 0..<whole { seconds += integral(from: Double(k), to: Double(k + 1), startPPM: startPPM) }
            return seconds + integral(from: Double(whole), to: t, startPPM: startPPM)
        }
    }

    private static let nodes: [(x: Double, w: Double)] = [
        (0, 128.0 / 225), (-0.538_469_310_105_683_1, 0.478_628_670_499_366_5),
        (0.538_469_310_105_683_1, 0.478_628_670_499_366_5), (-0.906_179_845_938_664_0, 0.236_926_885_056_189_1),
        (0.906_179_845_938_664_0, 0.236_926_885_056_189_1),
    ]

    private func integral(from a: Double, to b: Double, startPPM: Double) -> Double {
        guard b > a else { return 0 }
        let half = (b - a) / 2
        let middle = (a + b) / 2
        return Self.nodes.reduce(0) { sum, node in
            sum + node.w / (1 + driftPPM(at: middle + half * node.x, startPPM: startPPM) * 1e-6)
        } * half
    }
}
