import Foundation

/// How well a clip's sound fits a recording at one measured place, second by second: the normalised correlation of
/// each second of the clip with the recording's sound where the measurement put it (its offset, its drift), no lag
/// searched. Two places that hear the same sound fit alike everywhere; a place that also heard what only it could (a
/// slate, a voice, the room's own noise the clip heard too) fits better in those seconds, and the paired difference
/// over the whole clip says whether it does beyond the measurement's own scatter.
public enum PlaceFit {
    /// At most this many one-second windows are compared (spread over a longer clip).
    static let mostWindows = 600

    /// The fit of each second of `clip` (the reference) with `recording` (a span of it), whose sound at span time
    /// `startSeconds` is the clip's first moment and runs at `driftPPM` against it; seconds where either is silent
    /// are left out (nil). With `searchSeconds`, the start is first moved to where the whole clip fits best within
    /// that reach (a place only the prints found, to 10 ms or so).
    ///
    /// - Throws: what reading either file throws, naming it.
    public static func windows(
        recording: MeasuredInput, clip: MeasuredInput, startSeconds: Double, driftPPM: Double,
        searchSeconds: Double = 0
    ) throws -> [Double?] {
        let clipStream = AnalysisStream(try clip.open(), sampleRate: clip.sampleRate)
        let rate = clipStream.rate
        // Both sides band-passed alike (300 Hz to 3 kHz): a camera's own filters turn the bass's phase (music's bass
        // then correlates negatively at no lag) and below 300 Hz little tells two places apart.
        let clipSamples = bandPassed(try readAll(clipStream), rate: rate)
        let warp = driftPPM * 1e-6
        // Recording sample k (read on the clip's timeline) lies at span time k·(1 + d) / rate.
        let recordingStream = AnalysisStream(
            try recording.open(), sampleRate: recording.sampleRate, convertTo: rate, warp: warp)
        let recordingSamples = bandPassed(try readAll(recordingStream), rate: rate)
        var shift = startSeconds * rate / (1 + warp)
        if searchSeconds > 0 {
            shift = Double(
                bestLag(
                    clipSamples, in: recordingSamples, around: Int(shift.rounded()), reach: Int(searchSeconds * rate)))
        }
        let window = Int(rate)
        let count = clipSamples.count / window
        let step = max(1, count / mostWindows)
        var fits: [Double?] = []
        for w in stride(from: 0, to: count, by: step) {
            let first = w * window
            let offset = Int((Double(first) + shift).rounded())
            guard offset >= 0, offset + window <= recordingSamples.count else {
                fits.append(nil)
                continue
            }
            var dot = 0.0
            var ec = 0.0
            var er = 0.0
            for i in 0..<window {
                let c = Double(clipSamples[first + i])
                let r = Double(recordingSamples[offset + i])
                dot += c * r
                ec += c * c
                er += r * r
            }
            // −60 dBFS: silence on either side says nothing.
            let quiet = 1e-6 * Double(window)
            fits.append(ec > quiet && er > quiet ? dot / (ec * er).squareRoot() : nil)
        }
        return fits
    }

    /// Whether fit `a` is better than fit `b`: a second of the clip fits `a` clearly (at least `distinct`) and `b`
    /// not at all (within `absent` of nothing), a sound only `a` heard too, while no second does the reverse and `a`
    /// fits no worse overall; or `a` fits better throughout, the mean of the paired differences at least `margin` and
    /// `t` standard errors (over at least three seconds both heard). A sound the recording alone heard (a cough by its
    /// microphone) lowers one place's fit without the other's falling to nothing, so it decides nothing.
    public static func isBetter(
        _ a: [Double?], than b: [Double?], margin: Double = 0.02, t: Double = 4, distinct: Double = 0.3,
        absent: Double = 0.1
    ) -> Bool {
        let pairs = zip(a, b).compactMap { x, y in x.flatMap { x in y.map { (x, $0) } } }
        guard pairs.count >= 3 else { return false }
        let differences = pairs.map { $0.0 - $0.1 }
        let n = Double(differences.count)
        let mean = differences.reduce(0, +) / n
        let onlyA = pairs.contains { $0.0 >= distinct && abs($0.1) <= absent }
        let onlyB = pairs.contains { $0.1 >= distinct && abs($0.0) <= absent }
        if onlyA && !onlyB && mean >= -0.01 { return true }
        let variance = differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        let error = (variance / n).squareRoot()
        return !onlyB && mean >= margin && mean >= t * error
    }

    /// The mean fit over the seconds that have one.
    public static func mean(_ fits: [Double?]) -> Double? {
        let known = fits.compactMap { $0 }
        return known.isEmpty ? nil : known.reduce(0, +) / Double(known.count)
    }

    /// The offset within ±`reach` of `guess` where `clip` correlates best with `recording` over its whole length (FFT
    /// correlation).
    static func bestLag(_ clip: [Float], in recording: [Float], around guess: Int, reach: Int) -> Int {
        let span = 2 * reach + clip.count
        var size = 8
        while size < span + clip.count { size <<= 1 }
        let lowest = guess - reach
        let values = FFT.of(size: size).crossCorrelation(
            clip, with: recording, from: lowest, window: span, count: 2 * reach + 1)
        var best = 0
        for d in values.indices where values[d] > values[best] { best = d }
        return lowest + best
    }

    /// `x` through a 300 Hz high-pass and a 3 kHz low-pass (second-order sections, run forward then backward: no
    /// phase of their own).
    static func bandPassed(_ x: [Float], rate: Double) -> [Float] {
        func section(_ x: [Float], high: Bool, hz: Double) -> [Float] {
            let w = 2 * Double.pi * hz / rate
            let alpha = sin(w) / (2 * 0.7071)
            let a0 = 1 + alpha
            let c = cos(w)
            let b = high ? [(1 + c) / 2, -(1 + c), (1 + c) / 2] : [(1 - c) / 2, 1 - c, (1 - c) / 2]
            let (b0, b1, b2, a1, a2) = (b[0] / a0, b[1] / a0, b[2] / a0, -2 * c / a0, (1 - alpha) / a0)
            var out = [Float](repeating: 0, count: x.count)
            var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
            for i in x.indices {
                let v = Double(x[i])
                let y = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                (x2, x1, y2, y1) = (x1, v, y1, y)
                out[i] = Float(y)
            }
            return out
        }
        var y = section(x, high: true, hz: 300)
        y = section(y, high: false, hz: min(3000, rate * 0.4))
        y.reverse()
        y = section(y, high: true, hz: 300)
        y = section(y, high: false, hz: min(3000, rate * 0.4))
        y.reverse()
        return y
    }

    private static func readAll(_ stream: AnalysisStream) throws -> [Float] {
        var all: [Float] = []
        let capacity = 65536
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        while true {
            let got = try stream.read(into: buffer, count: capacity)
            if got == 0 { break }
            all.append(contentsOf: UnsafeBufferPointer(start: buffer, count: got))
        }
        return all
    }
}
