/// A print's landmarks: its strongest onsets, and each onset with three of the few that follow it hashed by the
/// spacing of the four (Wang's constellation pairs, in one dimension and four points).
///
/// Onsets are what a close and a distant microphone agree on; when they happen is all a print keeps of them here, so a
/// hash is the three gaps between four onsets, in steps of `step` frames. A clock off by 0.5 % moves a gap of
/// 2.5 s by 1.25 frames, and an onset found a frame early or late in one file moves two gaps by one: the query
/// looks each gap up within ±`tolerance` frames, which spans two or three steps. Four onsets, not three: a hash of
/// two gaps has too few values to tell a thousand hours apart, and how loud each onset was is what the microphones
/// disagree on most.
///
/// Which onsets: the local peaks (the highest within ±`peakReach` frames, above `floor`), of which at most
/// `perWindow` within any ±`windowReach` frames (the strongest): 2 to 4 a second in speech, fewer in quiet. The
/// selection depends only on the print around each onset, never on where a file starts, so a clip and the
/// recording that heard it pick the same onsets (bar their first and last half second).
public struct SoundLandmarks: Sendable {
    /// Frames per step of a gap in a hash.
    static let step = 2
    /// The longest gap between the first and last onset of a hash, frames.
    static let span = 250
    /// Onsets after each one that its hashes are drawn from (three of them at a time).
    static let fanOut = 4
    static let peakReach = 4
    static let windowReach = 50
    static let perWindow = 4
    /// An onset step below this (in the print's units: 0.2 nats, about 1.7 dB) is not a landmark.
    static let floor: UInt8 = 8
    /// How far a gap may move between two files, frames.
    static let tolerance = 2
    /// Distinct values of one gap's step.
    static let steps = span / step + 1
    /// The hashes, each with the frame of its first onset, in the order of those frames.
    public let hashes: [UInt32]
    public let frames: [UInt32]

    public init(_ print: SoundPrint) {
        let peaks = Self.peaks(print.onsets)
        var hashes: [UInt32] = []
        var frames: [UInt32] = []
        hashes.reserveCapacity(peaks.count * 4)
        frames.reserveCapacity(peaks.count * 4)
        Self.quads(peaks) { anchor, gaps in
            hashes.append(Self.hash(gaps.0 / Self.step, gaps.1 / Self.step, gaps.2 / Self.step))
            frames.append(UInt32(anchor))
        }
        self.hashes = hashes
        self.frames = frames
    }

    static func hash(_ a: Int, _ b: Int, _ c: Int) -> UInt32 {
        UInt32((a * steps + b) * steps + c)
    }

    /// Every hash a gap triple may have had in another file (each gap within ±`tolerance` frames), once each.
    static func neighbours(_ gaps: (Int, Int, Int), into out: inout [UInt32]) {
        out.removeAll(keepingCapacity: true)
        func range(_ gap: Int) -> ClosedRange<Int> {
            max(0, gap - tolerance) / step...min(span, gap + tolerance) / step
        }
        for a in range(gaps.0) {
            for b in range(gaps.1) {
                for c in range(gaps.2) { out.append(hash(a, b, c)) }
            }
        }
    }

    /// Each onset with three of the next `fanOut` within `span` of it: its frame and the three gaps.
    static func quads(_ peaks: [Int], _ body: (Int, (Int, Int, Int)) -> Void) {
        for i in peaks.indices {
            let anchor = peaks[i]
            var following = 0
            while following < fanOut, i + 1 + following < peaks.count,
                peaks[i + 1 + following] - anchor <= span
            {
                following += 1
            }
            guard following >= 3 else { continue }
            for (a, b, c) in combinations where c <= following {
                let (ta, tb, tc) = (peaks[i + a], peaks[i + b], peaks[i + c])
                body(anchor, (ta - anchor, tb - ta, tc - tb))
            }
        }
    }

    /// Three of the next `fanOut` onsets, in order.
    private static let combinations = [(1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)]

    /// The landmark onsets' frames, in order.
    static func peaks(_ onsets: [UInt8]) -> [Int] {
        let n = onsets.count
        var local: [Int] = []
        onsets.withUnsafeBufferPointer { x in
            var k = 0
            while k < n {
                let v = x[k]
                if v >= floor {
                    var isPeak = true
                    // The first of equal values within reach is the peak.
                    var j = max(0, k - peakReach)
                    while j < k, isPeak {
                        if x[j] >= v { isPeak = false }
                        j += 1
                    }
                    j = k + 1
                    while j <= min(n - 1, k + peakReach), isPeak {
                        if x[j] > v { isPeak = false }
                        j += 1
                    }
                    if isPeak {
                        local.append(k)
                        k += peakReach + 1
                        continue
                    }
                }
                k += 1
            }
        }
        // At most `perWindow` stronger ones within ±windowReach: the strongest of a busy stretch.
        var kept: [Int] = []
        kept.reserveCapacity(local.count)
        var low = 0
        for (i, k) in local.enumerated() {
            while local[low] < k - windowReach { low += 1 }
            var stronger = 0
            var j = low
            while j < local.count, local[j] <= k + windowReach, stronger < perWindow {
                let other = local[j]
                if j != i, onsets[other] > onsets[k] || (onsets[other] == onsets[k] && other < k) { stronger += 1 }
                j += 1
            }
            if stronger < perWindow { kept.append(k) }
        }
        return kept
    }
}
