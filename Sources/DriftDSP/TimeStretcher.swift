import DriftCore
import Foundation

/// A pitch-preserving time-stretcher (WSOLA: waveform-similarity overlap-add) that delivers exactly
/// `frameCount` frames from its upstream, in constant memory.
///
/// Output frame centres sit every `hop` frames; the input centre for output frame m is exactly
/// round(m × hop × input / target), computed in integers, so the time map is linear from start to end and
/// nothing accumulates. Around each nominal centre the stretcher searches ±`tolerance` frames for the segment
/// that best continues the previous one (normalised cross-correlation on the sum of all channels, so every
/// channel is spliced at the same point), and overlap-adds it with a periodic Hann window, whose 50%-overlapped
/// copies sum to exactly 1. The residual timing error is bounded by the tolerance.
public final class TimeStretcher: AudioSource {
    /// The stretcher's geometry, in frames.
    public struct Parameters: Sendable, Equatable {
        /// Analysis/synthesis window length (even).
        public var frameLength: Int
        /// Largest shift from the nominal position allowed when searching for the best splice.
        public var tolerance: Int

        /// The geometry for a stretch by `ratio` (output / input length) at `sampleRate`.
        ///
        /// Within one window the audio plays at its original speed, so a window's content sits up to
        /// hop × |1 − 1/ratio| away from the linear time map; the overlap-add of two windows averages that to well
        /// under a tenth of it, plus the splice tolerance. Long windows splice less often and sound cleaner
        /// (measured: round-trip log-spectral distance falls from 4.4 dB at 30 ms to 3.5 dB at 80 ms for a 3%
        /// stretch), so the window is as long as that displacement allows: 80 ms near 1×, down to 40 ms at 0.5×.
        /// The ±1.5 ms search keeps every splice within 1.5 ms of the time map.
        public static func `default`(sampleRate: Int, ratio: Double = 1) -> Parameters {
            let displacement = abs(1 - 1 / ratio)
            let hopSeconds = min(0.040, max(0.020, displacement > 0 ? 0.010 / displacement : 0.040))
            let length = max(64, Int((Double(sampleRate) * 2 * hopSeconds).rounded()) & ~1)
            return Parameters(frameLength: length, tolerance: min(length / 2 - 1, max(1, sampleRate * 3 / 2000)))
        }

        public init(frameLength: Int, tolerance: Int) {
            precondition(frameLength >= 4 && frameLength % 2 == 0, "frame length must be even")
            precondition(tolerance >= 0 && tolerance < frameLength / 2)
            self.frameLength = frameLength
            self.tolerance = tolerance
        }
    }

    /// The stretch ratios (output length / input length) the stretcher accepts.
    public static let ratioRange = 0.5...2.0

    public let channelCount: Int
    public let frameCount: Int64

    private let inputFrames: Int64
    private let hop: Int
    private let length: Int
    private let tolerance: Int
    private let window: UnsafeMutablePointer<Float>

    // The zero-extended input with its mono sum, which the similarity search reads.
    private let input: StretchInput
    private var keepFrom: Int64  // input before this is no longer needed

    private let output: OverlapAddOutput

    private var frameIndex: Int64 = 0
    private var previousCentre: Int64 = 0
    private let record: Record?

    /// Where a stretch put its input, window by window, as it ran (the shifts of its splices): markers follow it.
    /// Four bytes per window (windows are 20 to 40 ms apart), so a ten-hour stretch keeps under 8 MiB.
    public final class Record {
        fileprivate var shifts: [Int32] = []
        var geometry: (hop: Int, input: Int64, output: Int64)?

        public init() {}

        /// The stretch's time map, once it has run.
        public var map: StretchTimeMap? {
            geometry.map { StretchTimeMap(hop: $0.hop, inputFrames: $0.input, outputFrames: $0.output, shifts: shifts) }
        }
    }

    /// Stretches `upstream` to `targetFrames` frames; `record`, when given, keeps where each window's sound came from.
    public init(upstream: AudioSource, targetFrames: Int64, parameters: Parameters, record: Record? = nil)
        throws(DSPError)
    {
        self.record = record
        let ratio = Double(targetFrames) / Double(upstream.frameCount)
        guard upstream.frameCount > 0, targetFrames > 0, TimeStretcher.ratioRange.contains(ratio) else {
            throw .invalidStretch(ratio)
        }
        self.channelCount = upstream.channelCount
        self.frameCount = targetFrames
        self.inputFrames = upstream.frameCount
        self.length = parameters.frameLength
        self.hop = parameters.frameLength / 2
        self.tolerance = parameters.tolerance
        window = .allocate(capacity: length)
        for i in 0..<length {
            window[i] = Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(length)))
        }
        // Room for the previous segment, the search span and the new frame at the largest input step (2 hops),
        // plus one upstream block.
        // The input is zero-extended on both sides; start with the leading zeros in the window.
        input = StretchInput(
            upstream: upstream, capacity: 6 * hop + 4 * tolerance + 8192, leadingZeros: hop + tolerance, keepsMix: true)
        keepFrom = -Int64(hop + tolerance)
        output = OverlapAddOutput(
            length: length, channelCount: upstream.channelCount, frameCount: targetFrames, start: -Int64(hop))
    }

    deinit {
        window.deallocate()
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        try output.read(into: buffer, frames: frames) { try synthesiseNextFrame() }
    }

    /// Adds output frame `frameIndex` and makes the next `hop` output frames final.
    private func synthesiseNextFrame() throws {
        output.retire()
        let nominal = nominalCentre(frameIndex)
        try input.fill(through: nominal + Int64(hop + tolerance)) { input.drop(before: keepFrom) }
        let centre = frameIndex == 0 ? nominal : nominal + Int64(bestShift(nominal: nominal))
        overlapAdd(centre: centre)
        if let record {
            record.shifts.append(Int32(clamping: centre - nominal))
            record.geometry = (hop, inputFrames, frameCount)
        }
        previousCentre = centre
        frameIndex += 1
        // The first half of this frame is now final: nothing added later reaches before its centre.
        output.finalise(hop)
        // The next frame needs this centre (its reference) and its own search span.
        keepFrom = min(centre, nominalCentre(frameIndex) - Int64(hop + tolerance))
    }

    /// The input centre of output frame `index`: round(index × hop × input / target), exact.
    private func nominalCentre(_ index: Int64) -> Int64 {
        let numerator = Int128(index) * Int128(hop) * Int128(inputFrames)
        let denominator = Int128(frameCount)
        return Int64((2 * numerator + denominator) / (2 * denominator))
    }

    /// The shift in ±tolerance whose segment best continues the previous frame (mono sum, normalised).
    private func bestShift(nominal: Int64) -> Int {
        guard tolerance > 0 else { return 0 }
        // What the previous frame would play next: its input right after its centre.
        let reference = input.mix + Int(previousCentre - input.start)
        // Candidates: the hop frames before centre nominal + shift.
        let first = input.mix + Int(nominal - Int64(hop) - Int64(tolerance) - input.start)
        var energy: Float = 0
        for i in 0..<hop { energy += first[i] * first[i] }
        var bestScore = -Float.infinity
        var best = 0
        for k in 0...(2 * tolerance) {
            let candidate = first + k
            var dot: Float = 0
            for i in 0..<hop { dot += reference[i] * candidate[i] }
            let score = energy > 1e-20 ? dot / energy.squareRoot() : 0
            // Prefer the shift closest to nominal on ties (silence): keeps the time map centred.
            if score > bestScore || (score == bestScore && abs(k - tolerance) < abs(best - tolerance)) {
                bestScore = score
                best = k
            }
            if k < 2 * tolerance {
                energy += candidate[hop] * candidate[hop] - candidate[0] * candidate[0]
                if energy < 0 { energy = 0 }
            }
        }
        return best - tolerance
    }

    /// Adds the windowed input frame around `centre` into the accumulator (all channels).
    private func overlapAdd(centre: Int64) {
        let source = input.samples + Int(centre - Int64(hop) - input.start) * channelCount
        let channels = channelCount
        let sum = output.samples
        for i in 0..<length {
            let w = window[i]
            let from = source + i * channels
            let to = sum + i * channels
            for c in 0..<channels { to[c] += w * from[c] }
        }
    }
}
