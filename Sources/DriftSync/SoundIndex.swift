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
/// Stored: 8 bytes a landmark (a check of its hash, the recording, the frame), grouped in about one bucket per
/// landmark (4 bytes each): speech-like prints give about 25,000 landmarks a recorded hour, 0.3 MB. A lookup's cost
/// is the buckets it reads (flat) and the landmarks its hashes meet: onset spacings are common, so those grow with
/// the hours indexed (measured with `driftfix-bench soundindex` for a 60 s clip: 55,000 at 10 h, 5.4 million at
/// 1,000 h). Votes are gathered and sorted by place, not counted in place: the places of a thousand hours do not
/// fit a cache, and counting in place was two thirds of a lookup.
///
/// Hashes of five onsets (four gaps) met a tenth as many landmarks and looked a clip up in a sixth of the time at
/// 1,000 hours, but the microphones agree on five onsets in a row less often than on four: on the playback shoot of
/// the end-to-end tests the index then missed a take that heard a clip, and the answer changed. An answer is worth
/// more than the milliseconds.
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

    /// A landmark: the low `checkBits` of its hash's mix (the bucket holds its top bits), the recording, and the frame
    /// of its first onset, in one word, so that a probe reads one array where the landmarks are.
    static let frameBits = 28
    static let recordingBits = 24
    static let checkBits = 64 - frameBits - recordingBits
    /// The recordings and the frames one index holds: 16 million recordings, 745 hours each.
    public static let recordingCapacity = 1 << recordingBits
    public static let frameCapacity = 1 << frameBits

    /// Per bucket b, its landmarks are entries[starts[b] ..< starts[b + 1]].
    private let starts: [UInt32]
    private let entries: [UInt64]
    /// log2 of the buckets: about one per landmark, so a bucket holds one other hash's landmarks on average.
    private let bits: Int
    /// Each recording's length, frames.
    private let lengths: [Int]
    /// A hash met more often than this is passed over: it votes everywhere and tells nothing (a loop's beat).
    private let crowded: Int
    private let scratch = Mutex<[VoteTally]>([])
    /// Landmarks a lookup may meet (`lookupBudgetPerHour`).
    let lookupBudget: Int
    /// False where a recording or a length is past the capacity: the index cannot name every recording that holds a
    /// clip, and the matcher searches them all.
    public let isComplete: Bool

    /// Indexes the recordings' prints (the order is the recordings' indices).
    public convenience init(recordings: [SoundPrint]) {
        self.init(recordings: recordings, budgetPerHour: Self.lookupBudgetPerHour)
    }

    init(recordings: [SoundPrint], budgetPerHour: Int) {
        isComplete =
            recordings.count <= Self.recordingCapacity && recordings.allSatisfy { $0.onsets.count < Self.frameCapacity }
        let landmarks = isComplete ? recordings.map(SoundLandmarks.init) : []
        let total = landmarks.reduce(0) { $0 + $1.hashes.count }
        let bits = Self.bucketBits(landmarks: total)
        let buckets = 1 << bits
        var counts = [UInt32](repeating: 0, count: buckets + 1)
        for marks in landmarks {
            for h in marks.hashes { counts[Self.bucket(h, bits: bits) + 1] += 1 }
        }
        for b in 0..<buckets { counts[b + 1] += counts[b] }
        var entries = [UInt64](repeating: 0, count: Int(counts[buckets]))
        var next = counts
        for (r, marks) in landmarks.enumerated() {
            for (h, frame) in zip(marks.hashes, marks.frames) {
                let b = Self.bucket(h, bits: bits)
                entries[Int(next[b])] = Self.check(h) | UInt64(r) << Self.frameBits | UInt64(frame)
                next[b] += 1
            }
        }
        starts = counts
        self.entries = entries
        self.bits = bits
        lengths = recordings.map(\.onsets.count)
        // At least 25 hours' worth (a million landmarks, about 26 ms): below that a lookup costs milliseconds either
        // way, and a short clip's buckets in a small index are mostly other hashes'.
        lookupBudget = budgetPerHour * max(25, lengths.reduce(0, +) / (3600 * SoundPrint.frameRate))
        crowded = max(4096, 64 * entries.count / buckets)
    }

    static func bucketBits(landmarks: Int) -> Int {
        var bits = 12
        while bits < 30, 1 << bits < landmarks { bits += 1 }
        return bits
    }

    /// A hash mixed (Fibonacci hashing spreads neighbouring hashes): its top bits are its bucket, its low ones its check.
    @inline(__always) private static func mix(_ hash: UInt32) -> UInt64 { UInt64(hash) &* 0x9E37_79B9_7F4A_7C15 }

    @inline(__always) static func bucket(_ hash: UInt32, bits: Int) -> Int { Int(mix(hash) >> UInt64(64 - bits)) }

    /// The check in its place in an entry.
    @inline(__always) static func check(_ hash: UInt32) -> UInt64 {
        (mix(hash) & (1 << UInt64(checkBits) - 1)) << UInt64(frameBits + recordingBits)
    }

    /// Landmarks a lookup may meet (the buckets it reads hold twice as many: about one other hash's a bucket) before
    /// it gives up and the clip is searched for in every recording: about what that search costs. Measured: a
    /// landmark met costs about 26 ns (5.4 million in 140 ms, `driftfix-bench soundindex`); searching every recording
    /// about 1.2 ms per recorded hour (`driftfix-bench soundmatch --exhaustive-search`), so 40,000 a recorded hour.
    /// Speech meets about 5,000 a recorded hour; onsets at random every few frames met 9 times that, and the index
    /// made the search slower than searching everything.
    static let lookupBudgetPerHour = 40_000

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
        var votes = scratch.withLock { $0.popLast() } ?? VoteTally()
        votes.reset()
        defer { scratch.withLock { [votes] in $0.append(votes) } }
        var met = 0
        var anchors = 0
        var probes = ProbeScratch()
        let checkMask = UInt64.max << UInt64(Self.frameBits + Self.recordingBits)
        let frameMask = UInt64(1 << Self.frameBits - 1)
        let recordingMask = UInt64(1 << Self.recordingBits - 1)
        // Every bucket the clip's hashes read, first: their reads do not wait on each other, so the memory serves
        // several at once, and their sizes bound what the votes will cost before any is cast. Sound whose onsets'
        // spacings are common (dense and even) would meet so many landmarks that the lookup would cost more than
        // searching every recording: it is searched for everywhere.
        var bound = 0
        starts.withUnsafeBufferPointer { starts in
            var q = 0
            while q < quads.count {
                let anchor = quads[q].anchor
                anchors += 1
                while q < quads.count, quads[q].anchor == anchor {
                    SoundLandmarks.neighbours(quads[q].gaps, into: &probes.hashes)
                    for h in probes.hashes {
                        let b = Self.bucket(h, bits: bits)
                        let (low, high) = (starts[b], starts[b + 1])
                        guard Int(high - low) <= crowded else { continue }
                        bound += Int(high - low)
                        probes.ranges.append((low, high, Self.check(h), anchor, anchors))
                    }
                    q += 1
                }
            }
        }
        guard bound <= 2 * lookupBudget else { return nil }
        entries.withUnsafeBufferPointer { entries in
            for (low, high, check, anchor, voter) in probes.ranges {
                for e in Int(low)..<Int(high) {
                    let entry = entries[e]
                    guard entry & checkMask == check else { continue }
                    met += 1
                    let r = Int((entry >> UInt64(Self.frameBits)) & recordingMask)
                    let offset = Int(entry & frameMask) - anchor + clipFrames
                    votes.add(place: bases[r] + offset / width, voter: voter)
                }
            }
        }
        // An onset of the clip counts once at each place: two onsets that coincide by chance meet through up to 16
        // pairs of hashes, and would otherwise count as many.
        votes.tally(placeBits: Int.bitWidth - (bases[lengths.count] + 1).leadingZeroBitCount)
        return nomination(votes, anchors: anchors, met: met, clipFrames: clipFrames, bins: bases)
    }

    /// The recordings whose best pair of bins passes: at least `minimumVotes`, and at least `minimumShare` of the
    /// clip's onsets that hold a hash, counting only those the place overlaps (a clip that runs past a recording's
    /// start or end is heard for part of its length; the search of every recording finds it down to an overlap of
    /// `SoundMatcher.minimumOverlapSeconds`).
    private func nomination(_ votes: VoteTally, anchors: Int, met: Int, clipFrames: Int, bins: [Int]) -> Nomination {
        let width = Self.binFrames
        let least = min(clipFrames, Int(SoundMatcher.minimumOverlapSeconds) * SoundPrint.frameRate)
        var best: [Int: (votes: Int, share: Double)] = [:]
        let places = votes.places
        let counts = votes.counts
        var r = 0
        for (i, bin) in places.enumerated() {
            let next = i + 1 < places.count && places[i + 1] == bin + 1 ? counts[i + 1] : 0
            let pair = counts[i] + next
            guard pair >= Self.minimumVotes else { continue }
            while bins[r + 1] <= bin { r += 1 }
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

/// A clip's probes: the hashes of one of its quads, and every bucket range to read with the check it wants, the
/// onset it is for and that onset's ordinal.
private struct ProbeScratch {
    var hashes: [UInt32] = []
    var ranges: [(low: UInt32, high: UInt32, check: UInt64, anchor: Int, voter: Int)] = []
}
