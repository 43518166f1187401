/// The path a wandering clock's repair follows: where each frame of the stream the resampler reads (the recording once
/// its start and end are trimmed or padded and its dropouts refilled) belongs on the output's timeline, by the
/// measured clock.
///
/// The clock's lag is a straight line between the points of its `ClockPath`, so knots at those points (and at each
/// dropout's two sides) make the resampler's straight segments follow it exactly. A knot is a pair of whole frames:
/// each is moved along the path, by less than a quarter of its spacing, to where the output position falls within a
/// hundred-thousandth of a frame of a whole one, so rounding adds no error worth the name.
struct WarpPath {
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

    /// The knots from (0, 0) to (`streamFrames`, `target`).
    func knots(target: Int64) -> [WarpKnot] {
        var knots = [WarpKnot(input: 0, output: 0)]
        func add(_ input: Int64, _ output: Double) {
            let whole = Int64(output.rounded())
            guard let last = knots.last, input > last.input, whole > last.output else { return }
            knots.append(WarpKnot(input: input, output: whole))
        }
        let first = max(trim, 0)
        if pad > 0 && trim == 0 { add(pad, output(of: 0)) }
        // The clock's points inside the kept part, each moved to a near-whole output frame.
        let spacing = clock.lag.count > 1 ? (clock.lag[1].atSeconds - clock.lag[0].atSeconds) * rate : rate
        var frames = clock.lag.map { Int64(($0.atSeconds * rate).rounded()) }.filter { $0 > first && $0 < end }
        frames = frames.map { nearWhole($0, reach: Int64(spacing / 4)) }
        var gapIndex = 0
        for frame in frames.sorted() {
            while gapIndex < gaps.count && gaps[gapIndex].at <= frame {
                addGap(gaps[gapIndex], add: add)
                gapIndex += 1
            }
            add(stream(of: frame), output(of: frame))
        }
        while gapIndex < gaps.count {
            if gaps[gapIndex].at > first && gaps[gapIndex].at < end { addGap(gaps[gapIndex], add: add) }
            gapIndex += 1
        }
        if trailing > 0 { add(stream(of: end), output(of: end)) }
        // The last knot is the stream's end at the target.
        let endKnot = WarpKnot(input: streamFrames, output: target)
        while let last = knots.last, knots.count > 1, last.input >= endKnot.input || last.output >= endKnot.output {
            knots.removeLast()
        }
        knots.append(endKnot)
        return knots
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
        var fraction = here - here.rounded(.down)
        if step > 0 { fraction -= 1 }
        let shift = Int64((-fraction / step).rounded())
        guard abs(shift) <= reach else { return frame }
        let moved = frame + shift
        return moved > trim && moved < end ? moved : frame
    }
}
