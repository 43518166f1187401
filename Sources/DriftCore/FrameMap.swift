/// Where each moment of a recording lands in its repaired copy: the part kept (a trim), reversed or not, the silence
/// put before it, the sound re-inserted at dropouts and the one length change, in the order a repair applies them.
/// Markers, loops and sync points written in the recording move by it, so they stay on the sound they marked.
///
/// Positions are boundaries between frames, 0...frames: a marker at 48000 marks the start of frame 48000. The length
/// change is linear (output frame k is input position k × stream / output, as resampling and the stretcher's time map
/// make it), so a boundary maps to the nearest output boundary, within half a frame. Pure integer arithmetic.
public struct FrameMap: Sendable, Equatable {
    /// Sound re-inserted where the recorder lost it: `frames` new frames before stream position `at`.
    public struct Insert: Sendable, Equatable {
        public var at: Int64
        public var frames: Int64

        public init(at: Int64, frames: Int64) {
            self.at = at
            self.frames = frames
        }
    }

    /// Where a recording's position lay, and so how it was placed.
    public enum Placement: Sendable, Equatable {
        /// In the part kept: mapped exactly.
        case kept
        /// At the join of a re-inserted dropout: placed after the fill, with the sound that followed the loss.
        case atFill
        /// Before or after the part kept (a trimmed start or end): at the nearest end of the output.
        case trimmed
    }

    public let inputFrames: Int64
    /// The input frames the output is made from.
    public let kept: Range<Int64>
    public let reversed: Bool
    /// Silence put before the kept part.
    public let leadingFrames: Int64
    /// Re-inserted sound, in positions of the stream after the trim and the silence, in order.
    public let inserts: [Insert]
    /// Frames of the stream the length change reads (silence, kept part, inserts and any trailing silence).
    public let streamFrames: Int64
    public let outputFrames: Int64
    /// Where a stretch of the stream really put its sound (known once it ran); nil: the linear map.
    public var stretch: StretchTimeMap?
    /// The path a wandering clock's repair follows (stream frame to output frame, a straight line between knots); nil:
    /// one straight line.
    public var warp: [WarpKnot]?

    public init(
        inputFrames: Int64, kept: Range<Int64>, reversed: Bool = false, leadingFrames: Int64 = 0,
        inserts: [Insert] = [], streamFrames: Int64, outputFrames: Int64
    ) {
        precondition(kept.lowerBound >= 0 && kept.upperBound <= inputFrames, "kept part outside the input")
        precondition(streamFrames >= 0 && outputFrames >= 0, "negative length")
        self.inputFrames = inputFrames
        self.kept = kept
        self.reversed = reversed
        self.leadingFrames = leadingFrames
        self.inserts = inserts
        self.streamFrames = streamFrames
        self.outputFrames = outputFrames
    }

    /// The map of a file copied as it is.
    public static func identity(frames: Int64) -> FrameMap {
        FrameMap(inputFrames: frames, kept: 0..<frames, streamFrames: frames, outputFrames: frames)
    }

    /// The output position of input position `position` (0...inputFrames), and how it was placed.
    public func map(_ position: Int64) -> (position: Int64, placement: Placement) {
        var placement = Placement.kept
        var inside = position
        if position < kept.lowerBound || position > kept.upperBound {
            placement = .trimmed
            inside = min(max(position, kept.lowerBound), kept.upperBound)
        }
        var stream = (reversed ? kept.upperBound - inside : inside - kept.lowerBound) + leadingFrames
        var shift: Int64 = 0
        for insert in inserts where stream >= insert.at {
            if stream == insert.at && placement == .kept { placement = .atFill }
            shift += insert.frames
        }
        stream += shift
        return (scaled(stream), placement)
    }

    /// The output length of `length` input frames from `position` (a region's or a loop's length).
    public func mapLength(from position: Int64, length: Int64) -> Int64 {
        let start = map(position).position
        let end = map(position + length).position
        return reversed ? start - end : end - start
    }

    /// Stream position to output position: through the stretch where one ran, then (or else) the linear map to the
    /// output's length, rounded to the nearest (halves up), exactly.
    private func scaled(_ stream: Int64) -> Int64 {
        if let warp, let last = warp.last, last.input == streamFrames, last.output == outputFrames {
            return Self.along(warp, stream)
        }
        var (position, frames) = (stream, streamFrames)
        if let stretch, stretch.inputFrames == streamFrames {
            (position, frames) = (stretch.output(of: stream), stretch.outputFrames)
        }
        guard frames > 0, frames != outputFrames else { return min(position, outputFrames) }
        let numerator = 2 * Int128(position) * Int128(outputFrames) + Int128(frames)
        let result = numerator / (2 * Int128(frames))
        return Int64(min(result, Int128(outputFrames)))
    }
}

extension FrameMap {
    /// `position` along the knots' path: on the straight line between the two knots around it, rounded to the
    /// nearest frame (halves up), exactly.
    static func along(_ knots: [WarpKnot], _ position: Int64) -> Int64 {
        guard let first = knots.first, let last = knots.last else { return position }
        if position <= first.input { return first.output }
        if position >= last.input { return last.output }
        var low = 0
        var high = knots.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if knots[middle].input <= position { low = middle } else { high = middle }
        }
        let (a, b) = (knots[low], knots[high])
        let numerator = 2 * Int128(position - a.input) * Int128(b.output - a.output) + Int128(b.input - a.input)
        return a.output + Int64(numerator / (2 * Int128(b.input - a.input)))
    }
}

/// Where a time-stretch really put its input. WSOLA lays windows `hop` frames apart in the output; window m plays the
/// input around its centre, the linear map's nominal centre round(m × hop × input / output) moved by the splice's
/// shift (a few milliseconds at most). Within a window the sound plays at its own speed, so an input position's sound
/// is where the window whose centre is nearest to it puts it: that is where a marker on it must go.
public struct StretchTimeMap: Sendable, Equatable {
    public let hop: Int
    public let inputFrames: Int64
    public let outputFrames: Int64
    /// Each window's shift from its nominal centre, in frames, in output order; empty where every window sat on its
    /// nominal centre (a phase vocoder's): the straight line.
    public let shifts: [Int32]

    public init(hop: Int, inputFrames: Int64, outputFrames: Int64, shifts: [Int32]) {
        precondition(hop > 0 && inputFrames > 0 && outputFrames > 0, "an empty stretch")
        self.hop = hop
        self.inputFrames = inputFrames
        self.outputFrames = outputFrames
        self.shifts = shifts
    }

    /// The input centre of window `index` on the linear map, exactly.
    public func nominalCentre(_ index: Int64) -> Int64 {
        let numerator = Int128(index) * Int128(hop) * Int128(inputFrames)
        return Int64((2 * numerator + Int128(outputFrames)) / (2 * Int128(outputFrames)))
    }

    /// The output position of input position `position`: in the window whose centre is nearest, at its distance from
    /// that centre.
    public func output(of position: Int64) -> Int64 {
        guard !shifts.isEmpty else {
            let scaled = (2 * Int128(position) * Int128(outputFrames) + Int128(inputFrames)) / (2 * Int128(inputFrames))
            return min(max(0, Int64(scaled)), outputFrames)
        }
        let guess = Int64((Double(position) * Double(outputFrames) / Double(inputFrames) / Double(hop)).rounded())
        var best: (distance: Int64, output: Int64)?
        let last = Int64(shifts.count - 1)
        for index in min(max(0, guess - 3), last)...max(0, min(last, guess + 3)) {
            let centre = nominalCentre(index) + Int64(shifts[Int(index)])
            let distance = abs(position - centre)
            if distance < best?.distance ?? .max { best = (distance, index * Int64(hop) + position - centre) }
        }
        return min(max(0, best?.output ?? 0), outputFrames)
    }
}
