import Synchronization

/// The recordings' landmarks by hash (`SoundLandmarks`): which recordings may have heard a clip.
///
/// A clip's hashes are looked up (each within the gaps' tolerance), and every recording onset they meet votes once per
/// clip onset for an offset, the recording's frame less the clip's, in bins of a tenth of a second; two neighbouring
/// bins together hold a match whose clocks differ by 0.1 % over 200 s. A recording is named when its best pair of
/// bins holds at least `minimumVotes` and `minimumShare` of the clip's onsets the place overlaps. The index only
/// names; `SoundMatcher` then searches the named recordings exactly as it searches all of them, and every recording
/// where none of them holds a place worth measuring.
///
/// Stored: 8 bytes a landmark (the recording and the frame), grouped by hash, and one offset per hash value (8 MB,
/// whatever the hours): speech-like prints give about 25,000 landmarks a recorded hour, 0.2 MB. A lookup's cost is
/// the landmarks its hashes meet: onset spacings alone are common, so it grows with the hours indexed (measured:
/// 0.44 ms per recorded hour for a 60 s clip, `driftfix-bench soundindex`).
public final class SoundIndex: Sendable {
    /// Votes a recording's best place needs, at least.
    public static let minimumVotes = 5
    /// A clip with fewer hashes than this is not looked up (too little to tell chance from a match).
    public static let minimumHashes = 8
    /// The least share of a clip's onsets (those that hold a hash) that must meet the recording's at one place,
    /// counting only the onsets the place overlaps. Measured on the generated shoot of SoundMatcherTests: 0.20 to 0.39
    /// where a recorder heard the clip whole or most of it, 0.14 for a 10 s overlap at a recorder's start; at most
    /// 0.14 at the best chance place of a recording that never heard it (a 20 s clip). A chance name costs one
    /// recording's search, a missed one an answer: the floor sits below both.
    public static let minimumShare = 0.12
    /// Frames per vote bin: an onset found a frame or two apart stays in its bin or the next, and two neighbouring
    /// bins hold a match whose clocks differ by 0.1 % over 200 s (further apart, its votes spread over more bins).
    static let binFrames = 10

    /// Per hash value h, its landmarks are entries[starts[h] ..< starts[h + 1]].
    private let starts: [UInt32]
    /// Recording index << 32 | frame of the landmark's first onset.
    private let entries: [UInt64]
    /// Each recording's length, frames.
    private let lengths: [Int]
    /// A hash met more often than this is passed over: it votes everywhere and tells nothing (a loop's beat).
    private let crowded: Int
    private let scratch = Mutex<[VoteScratch]>([])

    /// Indexes the recordings' prints (the order is the recordings' indices).
    public init(recordings: [SoundPrint]) {
        let landmarks = recordings.map(SoundLandmarks.init)
        var counts = [UInt32](repeating: 0, count: SoundLandmarks.hashCount + 1)
        for marks in landmarks {
            for h in marks.hashes { counts[Int(h) + 1] += 1 }
        }
        for h in 0..<SoundLandmarks.hashCount { counts[h + 1] += counts[h] }
        var entries = [UInt64](repeating: 0, count: Int(counts[SoundLandmarks.hashCount]))
        var next = counts
        for (r, marks) in landmarks.enumerated() {
            for (h, frame) in zip(marks.hashes, marks.frames) {
                entries[Int(next[Int(h)])] = UInt64(r) << 32 | UInt64(frame)
                next[Int(h)] += 1
            }
        }
        starts = counts
        self.entries = entries
        lengths = recordings.map(\.onsets.count)
        crowded = max(4096, 64 * entries.count / SoundLandmarks.hashCount)
    }

    /// Landmarks indexed.
    public var landmarkCount: Int { entries.count }
    /// What the index holds in memory, bytes.
    public var byteCount: Int { entries.count * 8 + starts.count * 4 + lengths.count * 8 }

    /// What the lookup found for one clip.
    public struct Nomination: Sendable, Equatable {
        /// The recordings that may have heard the clip, by index, most votes first.
        public var recordings: [Int]
        /// Each named recording's votes at its best place.
        public var votes: [Int]
        /// Each named recording's share of the clip's onsets met at its best place.
        public var shares: [Double]
        /// Recording landmarks the clip's hashes met.
        public var met: Int
    }

    /// The recordings that may have heard `clip`; nil where the clip has too few landmarks to tell (it is then
    /// searched for everywhere).
    public func nominate(_ clip: SoundPrint) -> Nomination? {
        let peaks = SoundLandmarks.peaks(clip.onsets)
        var quads: [(anchor: Int, gaps: (Int, Int, Int))] = []
        SoundLandmarks.quads(peaks) { quads.append(($0, $1)) }
        guard quads.count >= Self.minimumHashes else { return nil }
        let clipFrames = clip.onsets.count
        let width = Self.binFrames
        // Each recording's bins: offsets −clipFrames … length, and one spare for the pair.
        var bases = [Int](repeating: 0, count: lengths.count + 1)
        for (r, length) in lengths.enumerated() {
            bases[r + 1] = bases[r] + (length + clipFrames) / width + 2
        }
        var votes = scratch.withLock { $0.popLast() } ?? VoteScratch()
        votes.prepare(bins: bases[lengths.count] + 1)
        defer {
            votes.clear()
            scratch.withLock { [votes] in $0.append(votes) }
        }
        var met = 0
        var hashes: [UInt32] = []
        // An onset of the clip votes once for each recording onset its hashes met: two onsets that coincide by chance
        // meet through up to 16 pairs of hashes, and would otherwise count as many.
        var anchorMet: [UInt64] = []
        var anchors = 0
        entries.withUnsafeBufferPointer { entries in
            starts.withUnsafeBufferPointer { starts in
                var q = 0
                while q < quads.count {
                    let anchor = quads[q].anchor
                    anchors += 1
                    anchorMet.removeAll(keepingCapacity: true)
                    while q < quads.count, quads[q].anchor == anchor {
                        SoundLandmarks.neighbours(quads[q].gaps, into: &hashes)
                        for h in hashes {
                            let low = Int(starts[Int(h)])
                            let high = Int(starts[Int(h) + 1])
                            guard high - low <= crowded else { continue }
                            met += high - low
                            anchorMet.append(contentsOf: entries[low..<high])
                        }
                        q += 1
                    }
                    anchorMet.sort()
                    var previous = UInt64.max
                    for entry in anchorMet where entry != previous {
                        previous = entry
                        let r = Int(entry >> 32)
                        let offset = Int(entry & 0xFFFF_FFFF) - anchor + clipFrames
                        votes.add(bases[r] + offset / width, recording: r)
                    }
                }
            }
        }
        return nomination(votes, anchors: anchors, met: met, clipFrames: clipFrames, bins: bases)
    }

    /// The recordings whose best pair of bins passes: at least `minimumVotes`, and at least `minimumShare` of the
    /// clip's onsets that hold a hash, counting only those the place overlaps (a clip that runs past a recording's
    /// start or end is heard for part of its length; the search of every recording finds it down to an overlap of
    /// `SoundMatcher.minimumOverlapSeconds`).
    private func nomination(_ votes: VoteScratch, anchors: Int, met: Int, clipFrames: Int, bins: [Int]) -> Nomination {
        let width = Self.binFrames
        let least = min(clipFrames, Int(SoundMatcher.minimumOverlapSeconds) * SoundPrint.frameRate)
        var best: [Int: (votes: Int, share: Double)] = [:]
        for (bin, r) in votes.touched {
            let pair = Int(votes.counts[bin]) + Int(votes.counts[bin + 1])
            guard pair >= Self.minimumVotes else { continue }
            // The overlap at the pair's offsets (the larger of the two bins').
            let offset = (bin - bins[r]) * width - clipFrames
            let overlap = max(
                Self.overlap(offset, clipFrames, lengths[r]),
                Self.overlap(offset + 2 * width - 1, clipFrames, lengths[r]))
            guard overlap >= least - width else { continue }
            let share = Double(pair) / (Double(anchors) * Double(min(overlap + width, clipFrames)) / Double(clipFrames))
            if share > best[r]?.share ?? 0 { best[r] = (pair, share) }
        }
        let named = best.filter { $0.value.share >= Self.minimumShare }
            .sorted { ($0.value.share, $1.key) > ($1.value.share, $0.key) }
        return Nomination(
            recordings: named.map(\.key), votes: named.map(\.value.votes), shares: named.map(\.value.share), met: met)
    }

    /// Frames of a clip placed at `offset` in a recording of `length` frames that the recording holds.
    private static func overlap(_ offset: Int, _ clipFrames: Int, _ length: Int) -> Int {
        max(0, min(clipFrames, length - offset) - max(0, -offset))
    }
}

/// One lookup's vote counts, kept for the next lookup (cleared where touched: a thousand hours hold 3.6 million bins).
private struct VoteScratch: Sendable {
    var counts: [UInt16] = []
    var touched: [(bin: Int, recording: Int)] = []

    mutating func prepare(bins: Int) {
        if counts.count < bins { counts = [UInt16](repeating: 0, count: bins) }
    }

    mutating func add(_ bin: Int, recording: Int) {
        if counts[bin] == 0 { touched.append((bin, recording)) }
        if counts[bin] < UInt16.max { counts[bin] += 1 }
    }

    mutating func clear() {
        for (bin, _) in touched { counts[bin] = 0 }
        touched.removeAll(keepingCapacity: true)
    }
}
