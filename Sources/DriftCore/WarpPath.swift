/// The path a wandering clock's repair follows: where each frame of the stream the resampler reads (the recording once
/// its start and end are trimmed or padded and its dropouts refilled) belongs on the output's timeline, by the
/// measured clock.
///
/// The clock's lag is a straight line between the points of its `ClockPath`, so knots at those points (and at each
/// dropout's two sides) make the resampler's straight segments follow it exactly. A knot is a pair of whole frames:
/// each is moved along the path, by less than a quarter of its spacing, to where the output position falls within a
/// hundred-thousandth of a frame of a whole one, so rounding adds no error worth the name. Where the path is straight
/// or gently curved, knots the path's chord between their neighbours passes within `tolerance` of are left out: a step's
/// path needs its kinks only, a warming clock a knot every ten seconds or so.
struct WarpPath {
    /// How far, in output frames, the straight segment between two kept knots may pass from a knot left out: a
    /// microsecond at 48 kHz, ten times below the windows' own scatter.
    static let tolerance = 0.05

    private let clock: ClockPath
    /// Dropouts: recording frame of the gap, seconds lost there, frames re-inserted.
    private let gaps: [(at: Int64, seconds: Double, frames: Int64)]
    private let trim: Int64
    private let pad: Int64
    /// The recording frame where the kept part ends (exclusive).
    private let end: Int64
    /// Silence after the recording's end.
    private let trailing: Int64
    private let rate: Double
    /// Reference time of output frame 0, seconds.
    private let origin: Double

    init(
        clock: ClockPath, dropouts: [ContentMeasurement.Dropout], operations: [RepairOperation], frames: Int64,
        rate: Double, originSeconds: Double
    ) {
        self.clock = clock
        self.rate = rate
        origin = originSeconds
        var (trim, pad, end, trailing): (Int64, Int64, Int64, Int64) = (0, 0, frames, 0)
        var inserted: [Int64: Int64] = [:]
        for operation in operations {
            switch operation {
            case .trimStart(let n): trim = n
            case .padStart(let n): pad = n
            case .trimEnd(let n): end = frames - n
            case .padEnd(let n): trailing = n
            case .insert(let at, let n): inserted[at] = n
            default: break
            }
        }
        (self.trim, self.pad, self.end, self.trailing) = (trim, pad, end, trailing)
        gaps = dropouts.compactMap { dropout in
            let at = Int64((dropout.atSeconds * rate).rounded())
            return inserted[at].map { (at, dropout.missingMs / 1000, $0) }
        }.sorted { $0.at < $1.at }
    }

    /// Where recording frame `frame` belongs on the output's timeline, in (fractional) output frames.
    func output(of frame: Int64) -> Double {
        let t = Double(frame) / rate
        let lost = gaps.reduce(0) { $1.at <= frame ? $0 + $1.seconds : $0 }
        return (t + clock.lagSeconds(at: t) + lost - origin) * rate
    }

    /// The stream frame of recording frame `frame`.
    func stream(of frame: Int64) -> Int64 {
        frame - trim + pad + gaps.reduce(0) { $1.at <= frame ? $0 + $1.frames : $0 }
    }

    var streamFrames: Int64 { stream(of: end) + trailing }

    /// The output's length by the path: where the recording's end belongs, and the silence after it.
    var outputFrames: Int64 {
        let local = output(of: end) - output(of: end - 1)
        return Int64((output(of: end) + Double(trailing) * local).rounded())
    }

    /// The knots from (0, 0) to (`streamFrames`, `target`), as few as follow the path within `tolerance`.
    func knots(target: Int64) -> [WarpKnot] {
        var candidates = [Candidate(knot: WarpKnot(input: 0, output: 0), exact: 0, pinned: true)]
        func add(_ input: Int64, _ output: Double, pinned: Bool) {
            let whole = Int64(output.rounded())
            guard let last = candidates.last?.knot, input > last.input, whole > last.output else { return }
            candidates.append(Candidate(knot: WarpKnot(input: input, output: whole), exact: output, pinned: pinned))
        }
        let first = max(trim, 0)
        // Where the stream's sound begins after padding, and a dropout's two sides: kept whatever the chord says.
        if pad > 0 && trim == 0 { add(pad, output(of: 0), pinned: true) }
        // The clock's points inside the kept part, each moved to a near-whole output frame.
        let points = clock.lag.map { Int64(($0.atSeconds * rate).rounded()) }
        let spacing = points.count > 1 ? points[1] - points[0] : Int64(rate)
        var frames: [Int64] = []
        for (index, frame) in points.enumerated() where frame > first && frame < end {
            frames.append(nearWhole(frame, reach: reach(at: index, of: points, spacing: spacing)))
        }
        var gapIndex = 0
        for frame in frames.sorted() {
            while gapIndex < gaps.count && gaps[gapIndex].at <= frame {
                addGap(gaps[gapIndex]) { add($0, $1, pinned: true) }
                gapIndex += 1
            }
            add(stream(of: frame), output(of: frame), pinned: false)
        }
        while gapIndex < gaps.count {
            if gaps[gapIndex].at > first && gaps[gapIndex].at < end {
                addGap(gaps[gapIndex]) { add($0, $1, pinned: true) }
            }
            gapIndex += 1
        }
        if trailing > 0 { add(stream(of: end), output(of: end), pinned: true) }
        // The last knot is the stream's end at the target.
        let endKnot = WarpKnot(input: streamFrames, output: target)
        while let last = candidates.last?.knot, candidates.count > 1,
            last.input >= endKnot.input || last.output >= endKnot.output
        {
            candidates.removeLast()
        }
        candidates.append(Candidate(knot: endKnot, exact: Double(target), pinned: true))
        return Self.thinned(candidates)
    }

    /// A knot on the way: the whole frames it names, where the path puts its input exactly, and whether it must stay.
    struct Candidate {
        var knot: WarpKnot
        var exact: Double
        var pinned: Bool
    }

    /// How far the clock's point `index` may move along the path without cutting a corner: a quarter of the spacing
    /// where the path runs straight through it, less where its slope changes there (a rate step's kink stays put).
    private func reach(at index: Int, of points: [Int64], spacing: Int64) -> Int64 {
        guard index > 0, index + 1 < points.count else { return 0 }
        let (a, b, c) = (points[index - 1], points[index], points[index + 1])
        guard b > a, c > b else { return 0 }
        let before = (output(of: b) - output(of: a)) / Double(b - a)
        let after = (output(of: c) - output(of: b)) / Double(c - b)
        let bend = abs(after - before)
        let quarter = spacing / 4
        guard bend > 0 else { return quarter }
        return min(quarter, Int64(min(Self.tolerance / bend, Double(quarter))))
    }

    /// The candidates' knots without those the straight segment between their kept neighbours passes within
    /// `tolerance` of the path at: each segment runs from the last kept knot as far as every knot it skips stays that
    /// close to where the path puts it.
    static func thinned(_ candidates: [Candidate]) -> [WarpKnot] {
        guard candidates.count > 2 else { return candidates.map(\.knot) }
        // A kept knot rounded off the path (a kink, the output's end) keeps the nearest knot on the path on either
        // side, so its rounding reaches only the next few seconds, not a whole straight stretch.
        var candidates = candidates
        let first = thinnedIndices(candidates)
        func onPath(_ index: Int) -> Bool {
            abs(Double(candidates[index].knot.output) - candidates[index].exact) <= tolerance
        }
        for position in first.indices.dropFirst() where !onPath(first[position]) {
            let index = first[position]
            let after = position + 1 < first.count ? first[position + 1] : index + 1
            if let left = (first[position - 1] + 1..<index).last(where: onPath) { candidates[left].pinned = true }
            if let right = (index + 1..<after).first(where: onPath) { candidates[right].pinned = true }
        }
        return thinnedIndices(candidates).map { candidates[$0].knot }
    }

    /// The indices `thinned` keeps, by the candidates' chords alone.
    private static func thinnedIndices(_ candidates: [Candidate]) -> [Int] {
        guard candidates.count > 2 else { return Array(candidates.indices) }
        var kept = [0]
        var anchor = 0
        var index = 1
        while index < candidates.count - 1 {
            let next = index + 1
            let (a, b) = (candidates[anchor], candidates[next])
            // The chord between where the path puts the two ends: the whole frames' own rounding (under half a frame,
            // where a kink cannot move) is there with every knot or without.
            let fits =
                !candidates[index].pinned
                && candidates[(anchor + 1)...index].allSatisfy { skipped in
                    let along = Double(skipped.knot.input - a.knot.input) / Double(b.knot.input - a.knot.input)
                    return abs(a.exact + along * (b.exact - a.exact) - skipped.exact) <= tolerance
                }
            if !fits {
                kept.append(index)
                anchor = index
            }
            index = next
        }
        kept.append(candidates.count - 1)
        return kept
    }

    /// A dropout's two sides: the last frame before the gap where it was, and the first after the sound put back.
    private func addGap(_ gap: (at: Int64, seconds: Double, frames: Int64), add: (Int64, Double) -> Void) {
        let after = stream(of: gap.at)
        add(after - gap.frames, output(of: gap.at) - gap.seconds * rate)
        add(after, output(of: gap.at))
    }

    /// A frame within `reach` of `frame` whose output position lies nearest a whole frame: along the path the
    /// fraction moves by the rate's difference from 1 per frame, so the frame is computed, not searched for.
    private func nearWhole(_ frame: Int64, reach: Int64) -> Int64 {
        let here = output(of: frame)
        let step = output(of: frame + 1) - here - 1
        guard abs(step) > 1e-12 else { return frame }
        // The whole frame below or above, whichever lies nearer along the path.
        let fraction = here - here.rounded(.down)
        let shifts = [-fraction / step, (1 - fraction) / step].map { Int64($0.rounded()) }
        guard let shift = shifts.min(by: { abs($0) < abs($1) }), abs(shift) <= reach else { return frame }
        let moved = frame + shift
        return moved > trim && moved < end ? moved : frame
    }
}
