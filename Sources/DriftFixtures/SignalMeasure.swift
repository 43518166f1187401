import Foundation

/// Measurements of an output against its ideal.
public enum SignalMeasure {
    /// Signal-to-noise ratio in dB of `actual` against `ideal` (same layout), over all samples.
    public static func snr(actual: [Float], ideal: [Double]) -> Double {
        precondition(actual.count == ideal.count)
        var signal = 0.0
        var noise = 0.0
        for i in 0..<ideal.count {
            signal += ideal[i] * ideal[i]
            let e = Double(actual[i]) - ideal[i]
            noise += e * e
        }
        if noise == 0 { return .infinity }
        return 10 * log10(signal / noise)
    }

    /// The lag (in frames, sub-sample) at which `actual` best matches `ideal` on `channel`, searched within
    /// ±`maxLag`: cross-correlation peak refined by a parabola through its neighbours. Positive: `actual` is late.
    public static func lag(actual: [Float], ideal: [Double], channels: Int, channel: Int = 0, maxLag: Int = 8)
        -> Double
    {
        let frames = ideal.count / channels
        func correlation(_ lag: Int) -> Double {
            var sum = 0.0
            for n in maxLag..<(frames - maxLag) {
                sum += Double(actual[(n + lag) * channels + channel]) * ideal[n * channels + channel]
            }
            return sum
        }
        let values = (-maxLag...maxLag).map(correlation)
        guard let best = values.indices.max(by: { values[$0] < values[$1] }) else { return .nan }
        guard best > 0, best < values.count - 1 else { return Double(best - maxLag) }
        let (a, b, c) = (values[best - 1], values[best], values[best + 1])
        let denominator = a - 2 * b + c
        let offset = denominator == 0 ? 0 : 0.5 * (a - c) / denominator
        return Double(best - maxLag) + offset
    }

    /// The largest absolute sample-to-sample step in `samples` on `channel`.
    public static func maxStep(_ samples: [Float], channels: Int, channel: Int) -> Float {
        var worst: Float = 0
        var previous = samples[channel]
        var i = channel + channels
        while i < samples.count {
            worst = max(worst, abs(samples[i] - previous))
            previous = samples[i]
            i += channels
        }
        return worst
    }

    /// The lag of mono `actual` against mono `ideal` over `window` frames from frame `at`, searched within ±`maxLag`
    /// frames (positive: `actual` is late), and the normalised correlation there (near 1 where both carry the same
    /// sound). Direct time-domain correlation with a parabola through the peak: no code of the project's.
    public static func windowLag(actual: [Float], ideal: [Float], at: Int, window: Int, maxLag: Int) -> (
        lag: Double, correlation: Double
    ) {
        // The frames where both exist, then four running sums (independent chains the processor overlaps).
        let values = actual.withUnsafeBufferPointer { actual in
            ideal.withUnsafeBufferPointer { ideal in
                (-maxLag...maxLag).map { lag -> Double in
                    let from = max(at, -lag)
                    let to = min(at + window, actual.count - lag, ideal.count)
                    guard from < to else { return 0 }
                    var sums = (0.0, 0.0, 0.0, 0.0)
                    var n = from
                    while n + 4 <= to {
                        sums.0 += Double(actual[n + lag]) * Double(ideal[n])
                        sums.1 += Double(actual[n + lag + 1]) * Double(ideal[n + 1])
                        sums.2 += Double(actual[n + lag + 2]) * Double(ideal[n + 2])
                        sums.3 += Double(actual[n + lag + 3]) * Double(ideal[n + 3])
                        n += 4
                    }
                    while n < to {
                        sums.0 += Double(actual[n + lag]) * Double(ideal[n])
                        n += 1
                    }
                    return (sums.0 + sums.1) + (sums.2 + sums.3)
                }
            }
        }
        guard let best = values.indices.max(by: { values[$0] < values[$1] }) else { return (.nan, 0) }
        var energyA = 0.0
        var energyB = 0.0
        for n in at..<(at + window) where n + best - maxLag >= 0 && n + best - maxLag < actual.count && n < ideal.count
        {
            energyA += Double(actual[n + best - maxLag]) * Double(actual[n + best - maxLag])
            energyB += Double(ideal[n]) * Double(ideal[n])
        }
        let normalised = energyA > 0 && energyB > 0 ? values[best] / (energyA * energyB).squareRoot() : 0
        guard best > 0, best < values.count - 1 else { return (Double(best - maxLag), normalised) }
        let (a, b, c) = (values[best - 1], values[best], values[best + 1])
        let denominator = a - 2 * b + c
        return (Double(best - maxLag) + (denominator == 0 ? 0 : 0.5 * (a - c) / denominator), normalised)
    }
}
