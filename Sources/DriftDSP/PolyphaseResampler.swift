internal import CPolyphase
import DriftCore

/// The polyphase engine: drift repair's own converter (`PolyphaseFilter`, the vector kernel in CPolyphase).
///
/// Output frame k lies at input position k × N / T exactly (N input frames, T target frames): the position is kept as
/// a whole frame and a remainder over T, in integers, and only the phase within a frame becomes a float. So there is
/// no leading delay, no drift at the end, and exactly T frames come out (the input is taken as zeros beyond its
/// ends). A converter may start at any output frame m: it then reads from `inputStart(m)` and makes frames m, m + 1,
/// ... exactly as the one-pass converter makes them (each frame depends only on its window and its phase), so chunks
/// converted apart join without a seam at any ratio.
///
/// Along a warp (a wandering clock's path), the ratio changes at each knot: output frame k between two knots lies on
/// the straight line between them, each segment's position kept exactly as above, and a segment ends on a whole input
/// frame, so the next starts from it with nothing carried over and no seam.
///
/// One converter per stream; not thread-safe.
final class PolyphaseResampler: StreamConverter {
    /// The kernel's loops, narrowest first; the wider loops write the 8-lane loop's output bit for bit.
    enum Loop: Int32, Comparable {
        case portable = 0
        case eightLanes = 1
        case sixteenLanes = 2

        /// The widest this CPU runs (`DRIFTFIX_NO_AVX512` stops at eight lanes).
        static var widest: Loop { Loop(rawValue: driftfix_polyphase_widest()) ?? .portable }

        static func < (a: Loop, b: Loop) -> Bool { a.rawValue < b.rawValue }
    }

    let channelCount: Int
    /// The widest loop this converter may run (tests narrow it), and the one its last block ran.
    var loop = Loop.sixteenLanes
    private(set) var ran: Loop?
    private let filter: PolyphaseFilter
    private var step: driftfix_polyphase_step
    /// The steps after the current segment's, with the output frame at which each begins, in order.
    private var nextSteps: [(output: Int64, step: driftfix_polyphase_step)] = []
    /// The output frame at which the current segment ends.
    private var segmentEnd: Int64
    private let target: Int64
    /// Output frames still to make.
    private var remaining: Int64
    /// The next output's first tap (absolute input frame) and its remainder over T.
    private var first: Int64
    private var remainder: UInt64
    /// Planar history: `filled` frames per channel, the first being absolute input frame `base`.
    private let capacity: Int
    private let planes: [UnsafeMutablePointer<Float>]
    private var base: Int64
    private var filled = 0
    private var ended = false
    /// Input frames the stream must bring (from where it starts to the input's end), and how many it brought.
    private let start: Int64
    private let expected: Int64
    private var received: Int64 = 0

    /// A converter for `inputFrames` → `outputFrames` interleaved float frames, starting at output frame
    /// `startOutput`; its input must begin at `inputStart(...)` of that frame.
    init(
        filter: PolyphaseFilter, channelCount: Int, inputFrames: Int64, outputFrames: Int64, startOutput: Int64 = 0,
        blockFrames: Int = 4096
    ) throws(DSPError) {
        let ratio = Double(outputFrames) / Double(inputFrames)
        guard PolyphaseFilter.ratios.contains(ratio) else { throw .invalidRatio(ratio) }
        self.filter = filter
        self.channelCount = channelCount
        target = outputFrames
        step = driftfix_polyphase_step(
            whole: UInt64(inputFrames / outputFrames), fraction: UInt64(inputFrames % outputFrames),
            target: UInt64(outputFrames))
        remaining = outputFrames - startOutput
        segmentEnd = outputFrames
        let position = startOutput.multipliedFullWidth(by: inputFrames)
        let (whole, rest) = outputFrames.dividingFullWidth(position)
        first = whole - Int64(filter.lead)
        remainder = UInt64(rest)
        capacity = blockFrames + filter.taps
        planes = (0..<channelCount).map { _ in
            let plane = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames + filter.taps)
            plane.initialize(repeating: 0, count: blockFrames + filter.taps)
            return plane
        }
        // Frames before the input's start are zeros: they are in the planes already.
        base = first
        filled = Int(max(0, -first))
        start = max(0, first)
        expected = inputFrames - start
    }

    /// A converter along `knots` (input frame to output frame; from (0, 0) to the whole input and output), each
    /// segment's ratio within the kernel's.
    convenience init(filter: PolyphaseFilter, channelCount: Int, knots: [WarpKnot], blockFrames: Int = 4096)
        throws(DSPError)
    {
        guard let last = knots.last, WarpKnot.isPath(knots, frames: last.output) else {
            throw .converter("a warp's path must run from its start to its end, both sides increasing")
        }
        var steps: [(output: Int64, step: driftfix_polyphase_step)] = []
        for (a, b) in zip(knots, knots.dropFirst()) {
            let (input, output) = (b.input - a.input, b.output - a.output)
            let ratio = Double(output) / Double(input)
            guard PolyphaseFilter.ratios.contains(ratio) else { throw .invalidRatio(ratio) }
            steps.append(
                (
                    a.output,
                    driftfix_polyphase_step(
                        whole: UInt64(input / output), fraction: UInt64(input % output), target: UInt64(output))
                ))
        }
        try self.init(
            filter: filter, channelCount: channelCount, inputFrames: last.input, outputFrames: last.output,
            blockFrames: blockFrames)
        step = steps[0].step
        nextSteps = Array(steps.dropFirst())
        segmentEnd = nextSteps.first?.output ?? last.output
    }

    deinit {
        for plane in planes { plane.deallocate() }
    }

    /// The input frame a converter starting at output `startOutput` reads first.
    static func inputStart(filter: PolyphaseFilter, inputFrames: Int64, outputFrames: Int64, startOutput: Int64)
        -> Int64
    {
        let (whole, _) = outputFrames.dividingFullWidth(startOutput.multipliedFullWidth(by: inputFrames))
        return max(0, whole - Int64(filter.lead))
    }

    func process(
        input: UnsafePointer<Float>?, inputFrames: Int, output: UnsafeMutablePointer<Float>, outputFrames: Int,
        endOfInput: Bool
    ) throws(DSPError) -> (used: Int, generated: Int) {
        guard remaining > 0 else { return (inputFrames, 0) }  // every frame made: the rest of the input is past T
        compact()
        let used = min(inputFrames, capacity - filled)
        if used > 0, let input {
            planes.withUnsafeBufferPointer { pointers in
                pointers.withMemoryRebound(to: UnsafeMutablePointer<Float>?.self) { mutable in
                    driftfix_polyphase_deinterleave(
                        input, Int32(used), Int32(channelCount), mutable.baseAddress, Int32(filled))
                }
            }
            filled += used
            received += Int64(used)
        }
        let generated = try convert(
            endOfInput: endOfInput && used == inputFrames, output: output, outputFrames: outputFrames)
        return (used, generated)
    }

    /// As `process(input:…)`, the input read by the converter itself, straight into its planes: as many frames as
    /// they have room for (`AudioSource.read(planes:…)`: a reader of integer PCM decodes each channel into its plane,
    /// with no interleaved copy to part). `scratch` (room for `scratchFrames` frames, which bounds a read) is lent
    /// to sources that read interleaved. The end of the input is the source's: a read that brings nothing.
    func process(
        reading source: AudioSource, scratch: UnsafeMutablePointer<Float>, scratchFrames: Int,
        output: UnsafeMutablePointer<Float>, outputFrames: Int
    ) throws -> (read: Int, generated: Int) {
        guard remaining > 0 else { return (0, 0) }
        compact()
        var read = 0
        var atEnd = ended
        if !ended && filled < capacity {
            read = try planes.withUnsafeBufferPointer { pointers in
                guard let first = pointers.baseAddress else { return 0 }
                return try source.read(
                    planes: first, offset: filled, frames: min(capacity - filled, scratchFrames), scratch: scratch)
            }
            filled += read
            received += Int64(read)
            atEnd = read == 0
        }
        return (read, try convert(endOfInput: atEnd, output: output, outputFrames: outputFrames))
    }

    /// Makes what outputs the planes' frames reach (up to `outputFrames`); with `endOfInput`, the input has ended
    /// (every frame of it is in the planes) and zeros follow it.
    private func convert(endOfInput: Bool, output: UnsafeMutablePointer<Float>, outputFrames: Int) throws(DSPError)
        -> Int
    {
        guard remaining > 0 else { return 0 }
        if endOfInput && !ended {
            ended = true
            // A stream that ends early would be padded with silence: an error, never papered over.
            guard received >= expected else {
                throw .lengthMismatch(
                    target: target, produced: (start + received) * target / (start + expected))
            }
        }
        // Past the input's end the planes hold zeros: as far as the next outputs need, within the capacity.
        let taps = Int64(filter.taps)
        if ended {
            let needed = min(Int64(capacity), first - base + taps + Int64(outputFrames) * Int64(step.whole + 1))
            if needed > Int64(filled) {
                for plane in planes { (plane + filled).update(repeating: 0, count: Int(needed) - filled) }
                filled = Int(needed)
            }
        }
        // How many outputs the buffered frames reach: output k's last tap, first + (remainder + k·N) / T + taps - 1,
        // must lie inside the planes; so k·N < (room + 1)·T - remainder, with room = filled - taps - (first - base).
        let room = Int64(filled) - taps - (first - base)
        // Within the current segment: its step holds up to its end.
        let limit = Int(min(Int64(outputFrames), remaining, segmentEnd - (target - remaining)))
        var count = 0
        if room >= 0 {
            let n = Int128(step.whole) * Int128(step.target) + Int128(step.fraction)
            let reach = (Int128(room) + 1) * Int128(step.target) - Int128(remainder)
            count = Int(min(Int128(limit), (reach + n - 1) / n))
        }
        if count > 0 {
            var position = driftfix_polyphase_position(index: first - base, remainder: remainder)
            planes.withUnsafeBufferPointer { pointers in
                pointers.withMemoryRebound(to: UnsafePointer<Float>?.self) { constant in
                    filter.coefficients.withUnsafeBufferPointer { coefficients in
                        filter.differences.withUnsafeBufferPointer { differences in
                            ran = Loop(
                                rawValue: driftfix_polyphase_run_loop(
                                    loop.rawValue, coefficients.baseAddress, differences.baseAddress,
                                    Int32(filter.taps), Int32(filter.phases), constant.baseAddress,
                                    Int32(channelCount), &position, step, Int32(count), output))
                        }
                    }
                }
            }
            first = base + position.index
            remainder = position.remainder
            remaining -= Int64(count)
        }
        // A segment ends on a whole input frame (remainder 0): the next one's step starts there.
        if target - remaining == segmentEnd, let next = nextSteps.first {
            precondition(remainder == 0, "a warp segment ended between input frames")
            step = next.step
            nextSteps.removeFirst()
            segmentEnd = nextSteps.first?.output ?? target
            if count < outputFrames, remaining > 0 {
                return count
                    + (try convert(
                        endOfInput: endOfInput, output: output + count * channelCount,
                        outputFrames: outputFrames - count))
            }
        }
        return count
    }

    /// Drops the frames no later output reads, making room at the end of the planes.
    private func compact() {
        let drop = Int(min(Int64(filled), max(0, first - base)))
        guard drop > 0, drop >= capacity / 2 || filled == capacity else { return }
        for plane in planes { plane.update(from: plane + drop, count: filled - drop) }
        filled -= drop
        base += Int64(drop)
    }
}
