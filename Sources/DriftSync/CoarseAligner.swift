import Foundation

/// Onsets at 100 frames per second: how much louder each 10 ms got than the one before, in log energy.
///
/// Onsets survive what two microphones do differently (gain, colour, noise floor) and are small: 400 bytes per second
/// of audio, which is what lets the first pass search the whole reference for where the recording lies.
struct OnsetEnvelope {
    static let frameRate = 100.0
    private(set) var values: [Float] = []
    private let rate: Double
    private var frameIndex = 0
    private var frameEnd: Int
    private var sampleIndex = 0
    private var energy: Double = 0
    private var count = 0
    private var previous: Double?

    init(analysisRate: Double) {
        rate = analysisRate
        frameEnd = Int((analysisRate / OnsetEnvelope.frameRate).rounded(.down))
    }

    mutating func append(_ samples: UnsafePointer<Float>, count n: Int) {
        for i in 0..<n {
            let v = Double(samples[i])
            energy += v * v
            count += 1
            sampleIndex += 1
            if sampleIndex >= frameEnd { closeFrame() }
        }
    }

    mutating func finish() {
        if count > 0 { closeFrame() }
    }

    private mutating func closeFrame() {
        let level = log(energy / Double(max(count, 1)) + 1e-10)
        values.append(Float(max(0, level - (previous ?? level))))
        previous = level
        energy = 0
        count = 0
        frameIndex += 1
        frameEnd = Int((Double(frameIndex + 1) * rate / OnsetEnvelope.frameRate).rounded(.down))
    }
}

/// Where the recording lies in the reference, to within a few tens of milliseconds: each minute of recording onsets
/// is searched over the whole reference (FFT correlation), and the blocks that found a clear place vote for a line.
struct CoarseAlignment {
    struct Block {
        /// Recording time of the block's start, seconds.
        var start: Double
        /// Lag found (reference time − recording time), seconds.
        var lag: Double
        var clarity: Double
        var ambiguity: Double
    }

    /// Every block searched, clear or not.
    var blocks: [Block]
    /// The blocks on the consensus line (within 2 s of it), in time order.
    var agreeing: [Block]
    /// The consensus line: lag(t) = intercept + slope·t, seconds.
    var intercept: Double
    var slope: Double

    /// The lag to search around at recording time `t`: the nearest agreeing block's, carried along the line's slope.
    func predictedLag(at t: Double) -> Double? {
        guard !agreeing.isEmpty else { return nil }
        var nearest = agreeing[0]
        var distance = Double.infinity
        for block in agreeing {
            let centre = block.start + CoarseAligner.blockSeconds / 2
            if abs(centre - t) < distance {
                distance = abs(centre - t)
                nearest = block
            }
        }
        return nearest.lag + slope * (t - nearest.start - CoarseAligner.blockSeconds / 2)
    }
}

enum CoarseAligner {
    static let blockSeconds = 60.0
    /// A block's peak must stand this far above the rest of its correlation…
    static let minimumClarity = 7.0
    /// …and no other place may come this close to it (a periodic beat offers many).
    static let maximumAmbiguity = 0.8

    /// Blocks searched over the whole reference; the others are searched near the line these agree on, so the cost
    /// grows with the length, not with its square.
    static let globalBlocks = 6
    /// How far from that line a block is searched, onset frames (30 s: beyond any dropout a recorder survives).
    static let localReach = 3000

    static func align(recording: [Float], reference: [Float]) -> CoarseAlignment {
        let blockFrames = Int(blockSeconds * OnsetEnvelope.frameRate)
        let r = normalised(recording)
        let f = normalised(reference)
        guard r.count >= 100, f.count >= 100 else {
            return CoarseAlignment(blocks: [], agreeing: [], intercept: 0, slope: 0)
        }
        let block = min(blockFrames, r.count)
        var starts = Array(stride(from: 0, to: r.count, by: block))
        // A short tail joins the block before it.
        if starts.count > 1, r.count - starts[starts.count - 1] < block / 3 { starts.removeLast() }
        func range(_ index: Int) -> Range<Int> {
            starts[index]..<(index == starts.count - 1 ? r.count : starts[index] + block)
        }

        // 1. A few blocks, spread over the recording, searched over the whole reference.
        let chosen = Set(
            (0..<min(globalBlocks, starts.count)).map { k in
                starts.count <= globalBlocks ? k : (k * (starts.count - 1)) / (globalBlocks - 1)
            })
        let whole = Correlation(reference: f, segment: 0..<f.count)
        var blocks: [CoarseAlignment.Block] = []
        for index in chosen.sorted() {
            let part = range(index)
            // Positions d (where the block starts in the reference) with at least half the block overlapping.
            if let found = whole.place(r[part], candidates: (-part.count / 2)...(f.count - part.count / 2)) {
                blocks.append(found)
            }
        }
        let first = consensus(blocks)
        guard !first.agreeing.isEmpty, starts.count > chosen.count else { return first }

        // 2. Every other block, near that line.
        for index in 0..<starts.count where !chosen.contains(index) {
            let part = range(index)
            let predicted =
                Int(
                    ((first.predictedLag(at: Double(part.lowerBound) / OnsetEnvelope.frameRate + blockSeconds / 2)
                        ?? first.intercept) * OnsetEnvelope.frameRate).rounded()) + part.lowerBound
            let lowest = max(-part.count / 2, predicted - localReach)
            let highest = min(f.count - part.count / 2, predicted + localReach)
            guard highest > lowest + 10 else { continue }
            let segment = max(0, lowest)..<min(f.count, highest + part.count)
            if let found = Correlation(reference: f, segment: segment).place(r[part], candidates: lowest...highest) {
                blocks.append(found)
            }
        }
        blocks.sort { $0.start < $1.start }
        return consensus(blocks)
    }

    /// One reference segment's spectrum, against which blocks of recording onsets are placed.
    struct Correlation {
        let segment: Range<Int>
        let spectrum: SpectrumBuffers
        let yRe: [Float], yIm: [Float]
        let referenceCount: Int

        init(reference f: [Float], segment: Range<Int>) {
            self.segment = segment
            referenceCount = f.count
            var size = 1
            while size < segment.count + CoarseAligner.maximumBlock { size <<= 1 }
            spectrum = SpectrumBuffers(size: size)
            for i in 0..<size {
                spectrum.re[i] = i < segment.count ? f[segment.lowerBound + i] : 0
                spectrum.im[i] = 0
            }
            spectrum.transform()
            yRe = Array(UnsafeBufferPointer(start: spectrum.re, count: size))
            yIm = Array(UnsafeBufferPointer(start: spectrum.im, count: size))
        }

        /// The best start of `x` in the reference among `candidates` (reference frames), as a block.
        func place(_ x: ArraySlice<Float>, candidates: ClosedRange<Int>) -> CoarseAlignment.Block? {
            let size = spectrum.fft.size
            let (re, im) = (spectrum.re, spectrum.im)
            var i = 0
            for v in x {
                re[i] = v
                im[i] = 0
                i += 1
            }
            for k in i..<size {
                re[k] = 0
                im[k] = 0
            }
            spectrum.fft.transform(re, im)
            for k in 0..<size {
                // conj(X)·Y
                let (xr, xi, yr, yi) = (re[k], im[k], yRe[k], yIm[k])
                re[k] = xr * yr + xi * yi
                im[k] = xr * yi - xi * yr
            }
            spectrum.fft.transform(re, im, inverse: true)
            // re[m] is the correlation with the block starting at segment frame m (circular for negative m).
            var values: [Float] = []
            values.reserveCapacity(candidates.count)
            for d in candidates {
                let m = d - segment.lowerBound
                values.append(re[(m % size + size) % size])
            }
            guard values.count > 10 else { return nil }
            let peak = values.withUnsafeMutableBufferPointer { WindowCorrelator.peak($0.baseAddress!, count: $0.count) }
            let d = Double(candidates.lowerBound) + peak.position
            let start = Double(x.startIndex)
            return CoarseAlignment.Block(
                start: start / OnsetEnvelope.frameRate, lag: (d - start) / OnsetEnvelope.frameRate,
                clarity: peak.clarity, ambiguity: peak.ambiguity)
        }
    }

    /// The longest block: a minute and a third (a short tail joins the block before it).
    static let maximumBlock = Int(blockSeconds * OnsetEnvelope.frameRate * 4 / 3) + 1

    /// The line most clear blocks agree on (Theil–Sen: the median of pairwise slopes), and the blocks near it.
    static func consensus(_ blocks: [CoarseAlignment.Block]) -> CoarseAlignment {
        let clear = blocks.filter { $0.clarity >= minimumClarity && $0.ambiguity <= maximumAmbiguity }
        guard !clear.isEmpty else { return CoarseAlignment(blocks: blocks, agreeing: [], intercept: 0, slope: 0) }
        var slopes: [Double] = []
        for i in clear.indices {
            for j in clear.indices where j > i && clear[j].start != clear[i].start {
                let s = (clear[j].lag - clear[i].lag) / (clear[j].start - clear[i].start)
                if abs(s) < 0.01 { slopes.append(s) }
            }
        }
        let slope = median(slopes) ?? 0
        let intercept = median(clear.map { $0.lag - slope * $0.start }) ?? clear[0].lag
        let agreeing = clear.filter { abs($0.lag - (intercept + slope * $0.start)) <= 2 }
        return CoarseAlignment(blocks: blocks, agreeing: agreeing, intercept: intercept, slope: slope)
    }

    /// Drifts tried when the onsets find no line as they are, ppm: a minute of onsets smears by 60 ms per 1000 ppm, so
    /// beyond about 2000 ppm a block no longer matches unless it is first stretched by about the right amount.
    static let sweepPPM: [Double] = [1500, -1500, 3000, -3000, 4500, -4500, 6000, -6000]
    /// Blocks each sweep step places: enough to agree on a line, few enough that a wrong pairing costs little.
    static let sweepBlocks = 3

    /// The recording's drift found by stretching its onsets by each of `sweepPPM` until they find a line, ppm; nil
    /// when none does. Only a hypothesis: the windows then measure the drift properly on a timeline warped by it.
    static func driftBySweeping(recording: [Float], reference: [Float]) -> Double? {
        let r = normalised(recording)
        let f = normalised(reference)
        let block = Int(blockSeconds * OnsetEnvelope.frameRate)
        guard r.count >= 2 * 100, f.count >= 100 else { return nil }
        let whole = Correlation(reference: f, segment: 0..<f.count)
        for ppm in sweepPPM {
            let stretch = 1 + ppm * 1e-6
            // Warped onset k is the recording's at k·stretch (linear interpolation).
            let count = Int(Double(r.count) / stretch)
            var warped = [Float](repeating: 0, count: count)
            for k in 0..<count {
                let x = Double(k) * stretch
                let i = Int(x)
                let frac = Float(x - Double(i))
                warped[k] = i + 1 < r.count ? r[i] * (1 - frac) + r[i + 1] * frac : r[min(i, r.count - 1)]
            }
            let length = min(block, count)
            let starts = stride(
                from: 0, to: max(1, count - length + 1), by: max(1, (count - length) / max(1, sweepBlocks - 1)))
            var blocks: [CoarseAlignment.Block] = []
            for start in starts.prefix(sweepBlocks) {
                let part = start..<min(count, start + length)
                if let found = whole.place(warped[part], candidates: (-part.count / 2)...(f.count - part.count / 2)) {
                    blocks.append(found)
                }
            }
            let line = consensus(blocks)
            if line.agreeing.count >= min(2, blocks.count) && !line.agreeing.isEmpty {
                return (stretch / (1 + line.slope) - 1) * 1e6
            }
        }
        return nil
    }

    /// Whether onsets repeat: their normalised autocorrelation is high at some period from 0.3 s to 5 s and again at
    /// twice that period, over the first minute (a loop, a steady groove; speech rhythm does not come back).
    static func repeats(_ onsets: [Float]) -> Bool {
        let x = normalised(Array(onsets.prefix(Int(blockSeconds * OnsetEnvelope.frameRate))))
        let n = x.count
        guard n > 200 else { return false }
        let energy = x.reduce(Float(0)) { $0 + $1 * $1 }
        guard energy > 0 else { return false }
        func r(_ lag: Int) -> Float {
            var sum: Float = 0
            for i in 0..<(n - lag) { sum += x[i] * x[i + lag] }
            return sum / energy * Float(n) / Float(n - lag)
        }
        for lag in 30...min(500, n / 4) where r(lag) > 0.6 {
            if r(2 * lag) > 0.5 { return true }
        }
        return false
    }

    static func normalised(_ x: [Float]) -> [Float] {
        guard !x.isEmpty else { return x }
        let mean = x.reduce(0, +) / Float(x.count)
        let variance = x.reduce(Float(0)) { $0 + ($1 - mean) * ($1 - mean) } / Float(x.count)
        let scale = variance > 0 ? 1 / variance.squareRoot() : 0
        return x.map { ($0 - mean) * scale }
    }
}

func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
