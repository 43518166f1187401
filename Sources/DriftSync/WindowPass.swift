import Foundation

/// A stream's analysis samples from a sliding start onward: read ahead on demand, dropped behind on request.
/// Samples outside the stream read as zeros.
final class SlidingSamples {
    private let stream: AnalysisSamples
    private var samples: [Float] = []
    private var base = 0
    private var ended = false
    private var chunk = [Float](repeating: 0, count: 32768)

    init(_ stream: AnalysisSamples) {
        self.stream = stream
    }

    /// Copies samples `start ..< start + count` into `out` (zeros where the stream has none, or they were dropped).
    func copy(from start: Int, count: Int, into out: UnsafeMutablePointer<Float>) throws {
        try fill(upTo: start + count)
        for i in 0..<count {
            let index = start + i - base
            out[i] = index >= 0 && index < samples.count ? samples[index] : 0
        }
    }

    /// Forgets samples before `index`.
    func drop(before index: Int) {
        let n = min(index - base, samples.count)
        guard n > 1 << 15 else { return }
        samples.removeFirst(n)
        base += n
    }

    private func fill(upTo end: Int) throws {
        while !ended && base + samples.count < end {
            let got = try chunk.withUnsafeMutableBufferPointer {
                try stream.read(into: $0.baseAddress!, count: $0.count)
            }
            if got == 0 { ended = true } else { samples.append(contentsOf: chunk[0..<got]) }
            // Far ahead of what is asked (a lag of minutes): keep only what can still be asked for.
            if base + samples.count < end - 4 * chunk.count { drop(before: base + samples.count - chunk.count) }
        }
    }
}

/// Pass 2: the recording in consecutive windows, each correlated with the reference around its predicted place.
struct WindowPass {
    let windowLength: Int
    /// Windows with sound in both files, and of those, how many were clear and how many ambiguous.
    var soundWindows = 0
    var ambiguousWindows = 0
    var samples: [LagSample] = []

    /// The transform size: the smallest power of two covering 0.9 s at the analysis rate (8192 at 8 kHz).
    static func transformSize(rate: Double) -> Int {
        var n = 1
        while Double(n) < 0.9 * rate { n <<= 1 }
        return n
    }

    /// Window length: three quarters of the transform, the last quarter being the search (±128 ms at 8 kHz).
    static func windowLength(rate: Double) -> Int { transformSize(rate: rate) / 4 * 3 }

    init(
        sources: AnalysisSources, rate: Double, coarse: CoarseAlignment, silence: Float,
        recordingSamples: Int
    ) throws {
        let w = WindowPass.windowLength(rate: rate)
        windowLength = w
        let search = WindowPass.transformSize(rate: rate) - w
        let rec = SlidingSamples(try sources.recording())
        let ref = SlidingSamples(try sources.reference())
        let correlator = WindowCorrelator(window: w, search: search, rate: rate)
        let window = UnsafeMutablePointer<Float>.allocate(capacity: w)
        let stretch = UnsafeMutablePointer<Float>.allocate(capacity: w + search)
        defer {
            window.deallocate()
            stretch.deallocate()
        }
        func rms(_ p: UnsafeMutablePointer<Float>, _ n: Int) -> Float {
            var sum: Float = 0
            for i in 0..<n { sum += p[i] * p[i] }
            return (sum / Float(n)).squareRoot()
        }

        var tracked: (lag: Double, window: Int)?
        let count = recordingSamples / w
        for k in 0..<count {
            let start = k * w
            try rec.copy(from: start, count: w, into: window)
            rec.drop(before: start)
            let t = (Double(start) + Double(w) / 2) / rate
            guard rms(window, w) >= silence, let coarseLag = coarse.predictedLag(at: t) else { continue }
            var predictions = [coarseLag * rate]
            if let tracked, k - tracked.window <= 8 {
                let carried = tracked.lag + coarse.slope * Double((k - tracked.window) * w)
                if abs(carried - predictions[0]) > Double(search) / 8 {
                    predictions.insert(carried, at: 0)
                } else {
                    predictions = [carried]
                }
            }
            var best: (peak: WindowCorrelator.Peak, first: Int)?
            var heard = false
            for prediction in predictions {
                let first = start + Int(prediction.rounded()) - search / 2
                try ref.copy(from: first, count: w + search, into: stretch)
                guard rms(stretch, w + search) >= silence else { continue }
                heard = true
                let peak = correlator.correlate(window: window, stretch: stretch)
                if best == nil || peak.clarity > best!.peak.clarity { best = (peak, first) }
                if peak.clarity >= CoarseAligner.minimumClarity && peak.ambiguity <= CoarseAligner.maximumAmbiguity {
                    break
                }
            }
            // The reference is kept from the earliest place still searchable (a lag may fall back by a dropout's
            // worth of search), and dropped before.
            ref.drop(before: start + Int((predictions.min() ?? 0).rounded()) - 4 * w)
            guard heard, let best else { continue }
            soundWindows += 1
            if best.peak.ambiguity > CoarseAligner.maximumAmbiguity { ambiguousWindows += 1 }
            guard best.peak.clarity >= CoarseAligner.minimumClarity,
                best.peak.ambiguity <= CoarseAligner.maximumAmbiguity
            else { continue }
            let lagSamples = Double(best.first) + best.peak.position - Double(start)
            samples.append(LagSample(t: t, lag: lagSamples / rate, clarity: best.peak.clarity, window: k))
            tracked = (lagSamples, k)
        }
    }
}
