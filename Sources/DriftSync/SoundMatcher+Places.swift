import Foundation

extension SoundMatcher {
    /// Each offset's correlation (`r`, an unscaled inverse transform: offset m at m modulo its size), normalised by
    /// both sides' energy over the overlap (prefix sums of squares) and scaled by √(overlap), so a short partial
    /// overlap does not look as significant as a whole clip; 0 where the overlap is too short or silent.
    static func significance(
        _ r: [Float], clip: [Double], recording: [Double], offsets: ClosedRange<Int>, minimumOverlap: Int
    ) -> [Double] {
        let nc = clip.count - 1
        let nr = recording.count - 1
        let size = r.count
        let scale = 1 / Float(size)
        var values = [Double](repeating: 0, count: offsets.count)
        for m in offsets {
            let first = max(0, -m)
            let end = min(nc, nr - m)
            guard end - first >= minimumOverlap else { continue }
            let ec = clip[end] - clip[first]
            let er = recording[end + m] - recording[first + m]
            guard ec > 0, er > 0 else { continue }
            values[m - offsets.lowerBound] =
                Double(r[(m % size + size) % size] * scale) / (ec * er).squareRoot() * Double(end - first).squareRoot()
        }
        return values
    }

    /// The places of `values` that stand out, best first, at most `most`: the highest, and every other peak (beyond
    /// `lobe` of higher ones) that stands at least `floor` above the rest. The rest is what lies outside the lobes of
    /// the highest peaks (up to 16, fewer in a short recording), so a sound heard many times (a loop) does not hide
    /// behind its own repetitions. Each place has its clarity (a z-score against the rest), its ambiguity (the best
    /// value that is not itself a place, relative to it), and how many places there are in all.
    static func places(_ values: [Double], lobe: Int, floor: Double, most: Int) -> [(
        index: Int, clarity: Double, ambiguity: Double, count: Int
    )] {
        guard !values.isEmpty else { return [] }
        let width = 2 * lobe + 1
        let scanned = max(1, min(16, values.count / (4 * width)))
        let (peaks, excluded) = highestPeaks(values, lobe: lobe, count: scanned)
        guard let first = peaks.first, let rest = spread(of: values, outside: excluded) else { return [] }
        let mean = rest.mean
        let deviation = rest.deviation
        // A peak that stands at least `repetition` of the best one's height is a rival: the same sound again (a loop,
        // a chorus, a playback at every take) or a confusion only the measurement can tell from it. A place too.
        let height = values[first] - mean
        func rivals(_ v: Double) -> Bool { height > 0 && v - mean >= Self.repetition * height }
        var places = peaks.filter { $0 == first || (values[$0] - mean) / deviation >= floor || rivals(values[$0]) }
        let more = addRivalRuns(values, lobe: lobe, to: &places, isRival: rivals)
        // Best first (the first peak is the highest of all; of equals, the earlier).
        places = [first] + places.dropFirst().sorted { (values[$0], -$0) > (values[$1], -$1) }
        // The best value beyond the first peak's lobe: the second peak, when the scan found one.
        let secondBest = peaks.count > 1 ? values[peaks[1]] : bestBeyond(first, in: values, lobe: lobe)
        return places.prefix(most).map { index in
            // Ambiguity: the best value beyond this place's own lobe, relative to it (another place included): for
            // a later peak, the first, which lies beyond its lobe and is the highest of all.
            let best = index == first ? secondBest : values[first]
            let height = values[index]
            return (
                index, (height - mean) / deviation,
                height > mean ? max(0, (best - mean) / (height - mean)) : 1, places.count + more
            )
        }
    }

    /// Marks `index` and the values within `lobe` of it in `mask`.
    private static func exclude(_ index: Int, lobe: Int, in mask: inout [Bool]) {
        for i in max(0, index - lobe)...min(mask.count - 1, index + lobe) { mask[i] = true }
    }

    /// Up to `count` peaks of `values`, highest first, and the mask of their lobes: each peak is the highest value
    /// outside the lobes of the earlier ones (the first of equals), and above zero.
    private static func highestPeaks(_ values: [Double], lobe: Int, count scanned: Int) -> (
        peaks: [Int], excluded: [Bool]
    ) {
        var excluded = [Bool](repeating: false, count: values.count)
        // Kept per block of `lobe` values, each block's highest not excluded: a peak costs a look at the blocks, and
        // a new lobe touches at most four of them.
        let block = max(1, lobe)
        func highest(inBlock b: Int) -> Int {
            var best = -1
            for i in (b * block)..<min(values.count, (b + 1) * block) where !excluded[i] {
                if best < 0 || values[i] > values[best] { best = i }
            }
            return best
        }
        var blocks = (0..<((values.count + block - 1) / block)).map(highest(inBlock:))
        var peaks: [Int] = []
        while peaks.count < scanned {
            var best = -1
            for candidate in blocks where candidate >= 0 && (best < 0 || values[candidate] > values[best]) {
                best = candidate
            }
            guard best >= 0, values[best] > 0 else { break }
            peaks.append(best)
            exclude(best, lobe: lobe, in: &excluded)
            for b in (max(0, best - lobe) / block)...(min(values.count - 1, best + lobe) / block) {
                blocks[b] = highest(inBlock: b)
            }
        }
        return (peaks, excluded)
    }

    /// The mean and standard deviation of the values not excluded (the rest); nil where fewer than two are left.
    private static func spread(of values: [Double], outside excluded: [Bool]) -> (mean: Double, deviation: Double)? {
        var sum = 0.0
        var squares = 0.0
        var counted = 0.0
        for i in values.indices where !excluded[i] {
            sum += values[i]
            squares += values[i] * values[i]
            counted += 1
        }
        guard counted > 1 else { return nil }
        let mean = sum / counted
        return (mean, max((squares / counted - mean * mean).squareRoot(), 1e-12))
    }

    /// Rivals beyond the peaks scanned (a short recording scans one): each run of such heights outside the lobes of
    /// `places` is one more, and where its highest value is a peak of its own (not the shoulder of a place's lobe) it
    /// is added to `places`, so that a sound heard twice close by is measured at both places, never at the first
    /// alone. Returns how many runs were not added.
    private static func addRivalRuns(
        _ values: [Double], lobe: Int, to places: inout [Int], isRival rivals: (Double) -> Bool
    ) -> Int {
        var outside = [Bool](repeating: false, count: values.count)
        for index in places { exclude(index, lobe: lobe, in: &outside) }
        var more = 0
        var run = -1
        func close() {
            guard run >= 0 else { return }
            let isPeak =
                (run == 0 || values[run - 1] <= values[run])
                && (run == values.count - 1 || values[run + 1] <= values[run])
            if isPeak { places.append(run) } else { more += 1 }
            run = -1
        }
        for i in values.indices {
            if !outside[i], rivals(values[i]) {
                if run < 0 || values[i] > values[run] { run = i }
            } else {
                close()
            }
        }
        close()
        return more
    }

    /// The best value beyond the lobe of `index`.
    private static func bestBeyond(_ index: Int, in values: [Double], lobe: Int) -> Double {
        var own = [Bool](repeating: false, count: values.count)
        exclude(index, lobe: lobe, in: &own)
        return values.indices.lazy.filter { !own[$0] }.map { values[$0] }.max() ?? -Double.infinity
    }

    /// Whether `places` (best first) are a sound heard again and again: the best as clear as a place must be, but with
    /// a rival as high as itself.
    static func repeats(
        _ places: [(index: Int, clarity: Double, ambiguity: Double, count: Int)], floor: Double,
        sharplyClear: Bool = false
    ) -> Bool {
        guard let best = places.first else { return false }
        return (best.clarity >= floor || sharplyClear) && places.count > 1
    }

    /// The highest of `values` (skipping zeros left for offsets not searched), how far it stands above the others
    /// beyond `lobe` either side (z-score), and the best of those relative to it.
    static func peak(_ values: [Double], lobe: Int) -> (index: Int, clarity: Double, ambiguity: Double)? {
        guard !values.isEmpty else { return nil }
        var best = 0
        for i in values.indices where values[i] > values[best] { best = i }
        var sum = 0.0
        var squares = 0.0
        var counted = 0.0
        var second = -Double.infinity
        for i in values.indices where abs(i - best) > lobe {
            let v = values[i]
            sum += v
            squares += v * v
            counted += 1
            second = max(second, v)
        }
        let height = values[best]
        guard counted > 1, height > 0 else { return nil }
        let mean = sum / counted
        let deviation = max((squares / counted - mean * mean).squareRoot(), 1e-12)
        return (best, (height - mean) / deviation, height > mean ? max(0, (second - mean) / (height - mean)) : 1)
    }
}
