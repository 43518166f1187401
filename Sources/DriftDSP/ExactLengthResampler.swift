import DriftCore

/// A processing stage that resamples its upstream to exactly `frameCount` frames.
///
/// The ratio is target frames / input frames, computed from the two integers, so output frame k corresponds to
/// input position k × input / target with no leading delay (libsamplerate's sinc converters and libsoxr compensate
/// their own transport delay) and no drift left at the end. The converter is flushed at the end of input; its flushed total
/// is within a frame or two of the target (usually ceil, sometimes one more or one less), so the last few frames
/// are trimmed, or padded by holding the last frame. A larger miss is an error, never padded over.
public final class ExactLengthResampler: AudioSource {
    /// The most frames the end correction may add or drop.
    public static let maxEndCorrection: Int64 = 16

    public let channelCount: Int
    public let frameCount: Int64
    /// Output length / input length.
    public let ratio: Double

    private let upstream: AudioSource
    private let converter: any StreamConverter
    /// The converter, where it reads the upstream itself (polyphase, from a source that reads into planes).
    private var planar: PolyphaseResampler? {
        upstream.readsPlanes ? converter as? PolyphaseResampler : nil
    }
    private let blockFrames: Int
    private let input: UnsafeMutablePointer<Float>
    private var inputStart = 0
    private var inputAvailable = 0
    private var upstreamEnded = false
    private var drained = false
    private var produced: Int64 = 0
    private var lastFrame: [Float]

    /// Resamples `upstream` to `targetFrames` frames with `engine`'s converter of `quality`.
    public init(
        upstream: AudioSource, targetFrames: Int64, quality: ResampleQuality, engine: ResampleEngine = .default,
        blockFrames: Int = 8192
    ) throws(DSPError) {
        precondition(upstream.frameCount > 0 && targetFrames > 0, "resampling needs frames in and out")
        self.upstream = upstream
        self.channelCount = upstream.channelCount
        self.frameCount = targetFrames
        self.ratio = Double(targetFrames) / Double(upstream.frameCount)
        self.blockFrames = blockFrames
        switch engine.running(ratio: ratio) {
        case .polyphase:
            converter = try PolyphaseResampler(
                filter: PolyphaseFilter.make(quality: quality, ratio: ratio), channelCount: upstream.channelCount,
                inputFrames: upstream.frameCount, outputFrames: targetFrames)
        case .libsamplerate:
            converter = try Resampler(quality: quality, channelCount: upstream.channelCount, ratio: ratio)
        case .soxr:
            converter = try SoxrResampler(
                quality: quality, channelCount: upstream.channelCount,
                inputFrames: upstream.frameCount, outputFrames: targetFrames)
        }
        self.input = .allocate(capacity: blockFrames * upstream.channelCount)
        self.lastFrame = Array(repeating: 0, count: upstream.channelCount)
    }

    /// Resamples `upstream` to `targetFrames` frames along `knots` (a wandering clock's path: input frame to output
    /// frame, the ratio constant between two knots), with the polyphase kernel at `quality` (it alone follows a path
    /// exactly, joining its segments on whole input frames).
    public init(
        upstream: AudioSource, targetFrames: Int64, quality: ResampleQuality, along knots: [WarpKnot],
        blockFrames: Int = 8192
    ) throws(DSPError) {
        precondition(upstream.frameCount > 0 && targetFrames > 0, "resampling needs frames in and out")
        guard knots.last == WarpKnot(input: upstream.frameCount, output: targetFrames) else {
            throw .converter(
                "the warp's path ends at \(knots.last.map { "\($0.input):\($0.output)" } ?? "nothing"), not at the stream's \(upstream.frameCount) frames and the target's \(targetFrames)"
            )
        }
        self.upstream = upstream
        self.channelCount = upstream.channelCount
        self.frameCount = targetFrames
        self.ratio = Double(targetFrames) / Double(upstream.frameCount)
        self.blockFrames = blockFrames
        converter = try PolyphaseResampler(
            filter: PolyphaseFilter.make(quality: quality, ratio: ratio), channelCount: upstream.channelCount,
            knots: knots)
        self.input = .allocate(capacity: blockFrames * upstream.channelCount)
        self.lastFrame = Array(repeating: 0, count: upstream.channelCount)
    }

    deinit {
        input.deallocate()
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let wanted = Int(min(Int64(frames), frameCount - produced))
        guard wanted > 0 else { return 0 }
        var written = 0
        while written < wanted && !drained {
            written += try convert(into: buffer + written * channelCount, capacity: wanted - written)
        }
        if written < wanted {
            try pad(buffer, from: written, to: wanted)
            written = wanted
        }
        produced += Int64(written)
        for c in 0..<channelCount { lastFrame[c] = buffer[(written - 1) * channelCount + c] }
        if produced == frameCount { try checkExcess() }
        return written
    }

    /// One converter call, refilling the input block from upstream when it is used up; a polyphase converter reads
    /// a source of integer PCM itself, straight into its planes.
    private func convert(into output: UnsafeMutablePointer<Float>, capacity: Int) throws -> Int {
        if let polyphase = planar {
            let (read, generated) = try polyphase.process(
                reading: upstream, scratch: input, scratchFrames: blockFrames, output: output, outputFrames: capacity)
            if read == 0 && generated == 0 { drained = true }
            return generated
        }
        if inputAvailable == 0 && !upstreamEnded {
            inputStart = 0
            inputAvailable = try upstream.read(into: input, frames: blockFrames)
            upstreamEnded = inputAvailable == 0
        }
        let (used, generated) = try converter.process(
            input: input + inputStart * channelCount, inputFrames: inputAvailable, output: output,
            outputFrames: capacity, endOfInput: upstreamEnded)
        inputStart += used
        inputAvailable -= used
        if used == 0 && generated == 0 {
            guard upstreamEnded && inputAvailable == 0 else { throw DSPError.converter("converter stalled") }
            drained = true
        }
        return generated
    }

    /// The converter ran dry a few frames short: hold the last frame (a jump to silence would click).
    private func pad(_ buffer: UnsafeMutablePointer<Float>, from start: Int, to end: Int) throws(DSPError) {
        let shortfall = frameCount - (produced + Int64(start))
        guard shortfall <= ExactLengthResampler.maxEndCorrection else {
            throw .lengthMismatch(target: frameCount, produced: produced + Int64(start))
        }
        for frame in start..<end {
            for c in 0..<channelCount {
                buffer[frame * channelCount + c] = start > 0 ? buffer[(start - 1) * channelCount + c] : lastFrame[c]
            }
        }
    }

    /// The target is reached: drain what the converter still holds to prove only a few frames are trimmed.
    private func checkExcess() throws {
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 64 * channelCount)
        defer { scratch.deallocate() }
        var excess: Int64 = 0
        while !drained && excess <= ExactLengthResampler.maxEndCorrection {
            excess += Int64(try convert(into: scratch, capacity: 64))
        }
        guard excess <= ExactLengthResampler.maxEndCorrection else {
            throw DSPError.lengthMismatch(target: frameCount, produced: frameCount + excess)
        }
    }
}
