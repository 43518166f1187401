import Foundation

/// Pass 3: where in the recording each step of the lag happens, to a few milliseconds.
///
/// Between the last window before a gap and the first after it, the recording matches the reference at the lag
/// before the gap up to the gap, and at the lag after it from there on. Both stretches are whitened (so every band
/// counts, as in the windows' correlation), and the gap is placed where the running sum of sample products at the
/// first lag, followed by that at the second, is largest.
enum DropoutLocator {
    /// Recording time of each step of `model` and how far it may be off, seconds, in order.
    static func locate(model: LagModel, windowLength w: Int, rate: Double, sources: AnalysisSources)
        throws -> [(at: Double, uncertainty: Double)]
    {
        let rec = SlidingSamples(try sources.recording())
        let ref = SlidingSamples(try sources.reference())
        var positions: [(at: Double, uncertainty: Double)] = []
        for (index, step) in model.steps.enumerated() {
            // From the last clear window before the gap to a window past the first clear one after it: the first
            // window after may hold only a little sound at its end (a pause before it), which must not sit at the
            // edge of the stretch. Never into the next gap's windows.
            let start = step.before * w
            let next = index + 1 < model.steps.count ? model.steps[index + 1].after * w : Int.max
            let end = min((step.after + 2) * w, max(next, (step.after + 1) * w))
            let length = end - start
            // The lag on either side of the gap, in analysis samples, following the clock's slope along the stretch:
            // whitened sound decorrelates within a fraction of a sample, so the lag must be fractional and moving.
            func lagBefore(_ i: Int) -> Double { model.lag(at: (Double(start + i)) / rate, window: step.before) * rate }
            let stepSamples = step.size * rate
            let lowest = min(lagBefore(0), lagBefore(length)) + min(0, stepSamples)
            let highest = max(lagBefore(0), lagBefore(length)) + max(0, stepSamples)
            let refStart = start + Int(lowest.rounded(.down)) - 2
            let refLength = length + Int((highest - lowest).rounded(.up)) + 5

            var recording = [Float](repeating: 0, count: length)
            var reference = [Float](repeating: 0, count: refLength)
            try recording.withUnsafeMutableBufferPointer {
                try rec.copy(from: start, count: length, into: $0.baseAddress!)
            }
            try reference.withUnsafeMutableBufferPointer {
                try ref.copy(from: refStart, count: refLength, into: $0.baseAddress!)
            }
            rec.drop(before: start)
            ref.drop(before: refStart)
            let x = whitened(recording, rate: rate)
            let y = whitened(reference, rate: rate)
            // c1[i] pairs recording sample i with the reference at the lag before the gap, c2 at the lag after it.
            var total2 = 0.0
            var c1 = [Double](repeating: 0, count: length)
            var c2 = c1
            for i in 0..<length {
                let p1 = Double(start + i - refStart) + lagBefore(i)
                c1[i] = Double(x[i]) * interpolated(y, at: p1)
                c2[i] = Double(x[i]) * interpolated(y, at: p1 + stepSamples)
                total2 += c2[i]
            }
            var score = [Double](repeating: 0, count: length + 1)
            var running1 = 0.0
            var running2 = 0.0
            for a in 0...length {
                score[a] = running1 + (total2 - running2)
                if a < length {
                    running1 += c1[a]
                    running2 += c2[a]
                }
            }
            let best = score.indices.max { score[$0] < score[$1] } ?? 0
            // Where the score stays within a random walk's reach of its maximum (2σ·√distance), the gap could be as
            // well: a few samples in sound, the whole pause in silence.
            var variance = 0.0
            for i in 0..<length { variance += (c1[i] - c2[i]) * (c1[i] - c2[i]) }
            let sigma = (variance / Double(max(length, 1))).squareRoot()
            func within(_ a: Int) -> Bool { score[a] >= score[best] - 2 * sigma * Double(abs(a - best)).squareRoot() }
            var low = best
            var high = best
            while low > 0 && within(low - 1) { low -= 1 }
            while high < length && within(high + 1) { high += 1 }
            // In a pause every place in it lines up the same: the uncertainty reaches the pause's far edge.
            positions.append((Double(start + best) / rate, Double(max(best - low, high - best) + 1) / rate))
        }
        return positions
    }

    /// `y` at fractional index `p` (Catmull-Rom); zero outside.
    static func interpolated(_ y: [Float], at p: Double) -> Double {
        let i = Int(p.rounded(.down))
        guard i >= 1, i + 2 < y.count else { return 0 }
        let f = p - Double(i)
        let (p0, p1, p2, p3) = (Double(y[i - 1]), Double(y[i]), Double(y[i + 1]), Double(y[i + 2]))
        return p1 + 0.5 * f * (p2 - p0 + f * (2 * p0 - 5 * p1 + 4 * p2 - p3 + f * (3 * (p1 - p2) + p3 - p0)))
    }

    /// `x` with a flat spectrum in 80 Hz … 0.42 × rate (magnitude divided out, with a floor against empty bands).
    static func whitened(_ x: [Float], rate: Double) -> [Float] {
        var size = 1
        while size < x.count { size <<= 1 }
        let spectrum = SpectrumBuffers(size: size)
        for i in 0..<x.count { spectrum.re[i] = x[i] }
        spectrum.transform()
        let low = max(1, Int(80 / rate * Double(size)))
        let high = min(size / 2 - 1, Int(0.42 * Double(size)))
        var mean: Float = 0
        for k in low...high { mean += (spectrum.re[k] * spectrum.re[k] + spectrum.im[k] * spectrum.im[k]).squareRoot() }
        mean /= Float(high - low + 1)
        for k in 0...(size / 2) {
            let inBand = k >= low && k <= high
            let magnitude = (spectrum.re[k] * spectrum.re[k] + spectrum.im[k] * spectrum.im[k]).squareRoot()
            let g: Float = inBand ? 1 / (magnitude + 0.1 * mean + 1e-20) : 0
            spectrum.re[k] *= g
            spectrum.im[k] *= g
            if k > 0 && k < size / 2 {
                spectrum.re[size - k] = spectrum.re[k]
                spectrum.im[size - k] = -spectrum.im[k]
            }
        }
        spectrum.transform(inverse: true)
        return (0..<x.count).map { spectrum.re[$0] / Float(size) }
    }
}
