import DriftCore
import Foundation
import Synchronization

/// `ExactLengthResampler`'s output, made on several threads: every core on one long file.
///
/// The output is cut into chunks at exact frame positions; each chunk is converted by a converter of its own, on its
/// own reader of the input, and the chunks are delivered in order. The joins are the one-pass output's: output frame
/// j lies at input position j × N / T (N input frames, T target frames), and a converter started at input frame s
/// puts its output k at s + k × N / T. So each chunk's converter starts at an output frame m where m × N / T is
/// (nearly) a whole input frame s: the best of the three quarters of a chunk before the nominal cut, found by walking
/// m × N mod T, integers only. Its first `preroll` outputs (the filter's left context) are discarded and the chunk
/// begins there, so the cuts fall at odd positions and nothing but the pre-roll is converted twice. How near a whole
/// frame the best start gets depends on the ratio (its continued fraction): exact where N / T reduces to a small
/// fraction; in general about 1 / (the window) frame, so 1–2·10⁻⁶ with default chunks, but 0.03 at 1 ppm. A file is
/// only cut when every start is within `maxPhaseError` (2·10⁻⁶ frame: a join error at least 104 dB under a
/// full-scale tone at any frequency up to half the rate); otherwise `make` says no and the one-pass resampler does
/// the file. (With half a chunk and 10⁻⁶, 35 of 40 drifts drawn at random between ±300 ppm and 10 minutes to 3
/// hours were declined.) The last chunk ends exactly at T as the one-pass resampler does (trim, or hold the last
/// frame, by at most `ExactLengthResampler.maxEndCorrection`).
///
/// Memory stays flat whatever the chunks' sizes: their output goes to the reader in pieces (`ChunkPieces`), the chunk
/// it is reading as fast as it is converted, the chunks after it holding at most `aheadBytes` together (their
/// converters wait beyond that). With the polyphase engine every chunk starts exactly at its nominal output frame
/// (its converter starts at any phase), nothing is converted twice, and any ratio is cut.
///
/// With an `admission`, the first thread always converts and the others only on cores it lends them, one chunk at a
/// time (a worker's idle cores): without one they wait and look again; the output is the same either way.
public final class SegmentedResampler: AudioSource {
    public let channelCount: Int
    public let frameCount: Int64
    public var convertsAhead: Bool { true }

    /// Output frames per chunk, sized by bytes. The polyphase engine starts a chunk anywhere for free, so its chunks
    /// are small: `threads + 1` of them hold at most 8 MiB of float samples (1 MiB each at most, never under 32,768
    /// frames). The other engines discard a pre-roll of 8,192 frames per chunk and need a wide window to find a start
    /// near a whole input frame: about 8 MiB each, of which the reader never holds more than `aheadBytes` at once.
    public static func chunkFrames(channelCount: Int, engine: ResampleEngine = .soxr, threads: Int = 1) -> Int {
        guard engine == .polyphase else { return max(1 << 16, (1 << 21) / channelCount) }
        let bytes = min(1 << 20, (8 << 20) / (threads + 1))
        return max(1 << 15, bytes / (4 * channelCount))
    }

    /// Opens a fresh reader of the input (one per thread).
    public typealias Open = @Sendable () throws -> SeekableAudioSource

    /// Lends a helper thread a core for one chunk (the core is given back when the token is released), or nil.
    public typealias Admission = @Sendable () -> AnyObject?

    /// Chunks in all, and how many of them helper threads converted so far.
    public var chunkCount: Int { shared.chunkCount }
    public var helperChunks: Int { shared.helperChunks }

    private let shared: Shared
    /// The chunk being read, and the piece of it being read from.
    private var chunk = 0
    private var piece: ChunkPieces.Piece?
    private var offset = 0

    /// Bytes of output the chunks after the one being read may hold together: 8 MiB, so that converters seldom wait.
    /// A waiting converter is woken by the reader, and the scheduler then often ran both converters on one core
    /// while the reader's idled: with 4 MiB (and 3 chunks claimed ahead, not 7), 600 s of stereo took 213 ms on 2
    /// cores instead of 204 ms, one core idle for 100 of them; the peak is 5 MiB higher.
    static let aheadBytes = 8 << 20

    /// Chunks a converter may claim past the one being read, beyond one per thread (see `aheadBytes`).
    static let claimAhead = 5

    /// The furthest a chunk's converter may start from the one-pass phase, in input frames.
    public static let maxPhaseError = 2e-6

    /// Output frames discarded at the start of every chunk but the first: the converters' filters reach well within.
    static let preroll: Int64 = 8192

    /// A segmented resampler for this file, or nil where its ratio allows no chunk start near enough the one-pass
    /// phase (see the type's comment), or the output is shorter than two chunks.
    ///
    /// - Parameters:
    ///   - range: the input frames to resample (a trim), within what `open` reads.
    ///   - chunkFrames: output frames per chunk (default: about 8 MiB of float samples).
    ///   - admission: when given, threads beyond the first convert a chunk only on a core it lends.
    public static func make(
        open: @escaping Open, range: Range<Int64>, channelCount: Int, targetFrames: Int64,
        quality: ResampleQuality, engine: ResampleEngine, threads: Int,
        chunkFrames: Int? = nil, admission: Admission? = nil
    ) -> SegmentedResampler? {
        precondition(!range.isEmpty && targetFrames > 0 && threads > 0 && (chunkFrames ?? 1 << 16) >= 1 << 15)
        let n = Int64(range.count)
        let running = engine.running(ratio: Double(targetFrames) / Double(n))
        let chunk = Int64(
            chunkFrames ?? Self.chunkFrames(channelCount: channelCount, engine: running, threads: threads))
        if running == .polyphase {
            // The polyphase converter starts at any output frame exactly: equal chunks, nothing converted twice.
            guard targetFrames > chunk else { return nil }
            let filter = PolyphaseFilter.make(quality: quality, ratio: Double(targetFrames) / Double(n))
            let starts = stride(from: Int64(0), to: targetFrames, by: Int(chunk)).map { output in
                Start(
                    output: output,
                    input: PolyphaseResampler.inputStart(
                        filter: filter, inputFrames: n, outputFrames: targetFrames, startOutput: output),
                    begins: output)
            }
            return SegmentedResampler(
                shared: Shared(
                    open: open, range: range, channelCount: channelCount, target: targetFrames, quality: quality,
                    engine: running, starts: starts, threads: threads, admission: admission))
        }
        guard targetFrames > preroll + chunk else { return nil }
        // Chunk j ≥ 1 begins within [j·chunk − 3/4·chunk + preroll, j·chunk + preroll), before the end: every chunk
        // holds between a quarter and 1¾ chunks.
        let count = Int((targetFrames - preroll - 1) / chunk) + 1
        var starts: [Start] = [Start(output: 0, input: 0, begins: 0)]
        for index in 1..<count {
            let found = start(
                before: Int64(index) * chunk - 1, inputFrames: n, targetFrames: targetFrames,
                search: chunk * 3 / 4)
            guard found.error <= maxPhaseError else { return nil }
            starts.append(Start(output: found.output, input: found.input, begins: found.output + preroll))
        }
        return SegmentedResampler(
            shared: Shared(
                open: open, range: range, channelCount: channelCount, target: targetFrames,
                quality: quality, engine: running, starts: starts, threads: threads,
                admission: admission))
    }

    private init(shared: Shared) {
        self.shared = shared
        channelCount = shared.channelCount
        frameCount = shared.target
        shared.start()
    }

    /// Where a chunk's converter starts (output frame, input frame) and where the chunk itself begins.
    struct Start {
        var output: Int64
        var input: Int64
        var begins: Int64
    }

    deinit {
        if let piece { shared.pieces.recycle(piece.samples) }
        shared.pieces.stop(CancellationError())
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let next = try view(frames: frames, scratch: buffer)
        guard let base = next.baseAddress, base != buffer else { return next.count / channelCount }
        buffer.update(from: base, count: next.count)
        return next.count / channelCount
    }

    /// The rest of the piece being read, up to `frames` frames, in place: the converters' output is written once.
    public func view(frames: Int, scratch: UnsafeMutablePointer<Float>) throws -> UnsafeMutableBufferPointer<Float> {
        while piece == nil || offset == piece?.count {
            if let done = piece {
                shared.pieces.recycle(done.samples)
                piece = nil
            }
            guard chunk < shared.chunkCount else { return UnsafeMutableBufferPointer(start: scratch, count: 0) }
            if let next = try shared.pieces.take(chunk: chunk) {
                piece = next
                offset = 0
            } else {
                chunk += 1
            }
        }
        guard let piece else { return UnsafeMutableBufferPointer(start: scratch, count: 0) }
        let count = min(frames * channelCount, piece.count - offset)
        defer { offset += count }
        return UnsafeMutableBufferPointer(start: piece.samples + offset, count: count)
    }

    /// The output frame where a chunk's converter starts and the input frame it starts reading: the candidate nearest
    /// to a whole input frame among `search` output frames ending at `latest`. Nil phase error means exact.
    static func start(
        before latest: Int64, inputFrames n: Int64, targetFrames t: Int64,
        search: Int64
    ) -> (output: Int64, input: Int64, error: Double) {
        let first = max(0, latest - search + 1)
        // m × N mod T for m = first, then stepped by N mod T: no overflow however long the file.
        let product = first.multipliedFullWidth(by: n)
        var remainder = t.dividingFullWidth(product).remainder
        let step = n % t
        var best = (output: first, distance: Int64.max, up: false)
        var m = first
        while m <= latest {
            let distance = min(remainder, t - remainder)
            if distance < best.distance { best = (m, distance, remainder * 2 >= t) }
            if distance == 0 { break }
            remainder += step
            if remainder >= t { remainder -= t }
            m += 1
        }
        let whole = t.dividingFullWidth(best.output.multipliedFullWidth(by: n)).quotient
        return (best.output, whole + (best.up && best.distance != 0 ? 1 : 0), Double(best.distance) / Double(t))
    }

    /// A converter thread's input block, and its pre-roll block where the engine has one, kept across its chunks:
    /// blocks this large come from mmap, and allocating them per chunk cost 9,000 page faults for 600 s of stereo.
    /// 1 MiB of input floats for every thread together, between 8,192 and 32,768 frames a thread (8,192 made 3,800
    /// read calls for 600 s of stereo on 2 threads; 32,768, 1,200).
    private final class Buffers {
        let frames: Int
        let input: UnsafeMutablePointer<Float>
        private let channelCount: Int
        private var preroll: UnsafeMutablePointer<Float>?

        init(channelCount: Int, threads: Int) {
            frames = min(32768, max(8192, (1 << 20) / (4 * channelCount * threads)))
            self.channelCount = channelCount
            input = .allocate(capacity: frames * channelCount)
        }

        /// Room for `frames` frames of pre-roll output, made at first use (the polyphase engine has none).
        func scratch() -> UnsafeMutablePointer<Float> {
            if let preroll { return preroll }
            let made = UnsafeMutablePointer<Float>.allocate(capacity: frames * channelCount)
            preroll = made
            return made
        }

        deinit {
            input.deallocate()
            preroll?.deallocate()
        }
    }

    /// What the reading side and the converting threads share: the chunks' starts and the pieces of their output.
    private final class Shared: Sendable {
        let open: Open
        let range: Range<Int64>
        let channelCount: Int
        let target: Int64
        let quality: ResampleQuality
        let engine: ResampleEngine
        let starts: [Start]
        let threads: Int
        let admission: Admission?
        let pieces: ChunkPieces
        var chunkCount: Int { starts.count }
        var helperChunks: Int { helped.load(ordering: .relaxed) }
        private let helped = Atomic<Int>(0)

        init(
            open: @escaping Open, range: Range<Int64>, channelCount: Int, target: Int64, quality: ResampleQuality,
            engine: ResampleEngine, starts: [Start], threads: Int, admission: Admission?
        ) {
            self.open = open
            self.range = range
            self.channelCount = channelCount
            self.target = target
            self.quality = quality
            self.engine = engine
            self.starts = starts
            self.threads = threads
            self.admission = admission
            pieces = ChunkPieces(
                chunkCount: starts.count, channelCount: channelCount, budget: SegmentedResampler.aheadBytes / 4)
        }

        func start() {
            for index in 0..<min(threads, chunkCount) {
                let thread = Thread { [self] in work(helper: index > 0) }
                thread.stackSize = 1 << 20
                thread.start()
            }
        }

        private func work(helper: Bool) {
            let reader: SeekableAudioSource
            do {
                reader = try open()
            } catch {
                pieces.stop(error)
                return
            }
            let buffers = Buffers(channelCount: channelCount, threads: threads)
            while true {
                // A helper with an admission converts only on a lent core; without one it looks again shortly.
                var lent: AnyObject?
                if helper, let admission {
                    lent = admission()
                    if lent == nil {
                        guard pieces.pause(seconds: 0.25) else { return }
                        continue
                    }
                }
                // No more than `threads + claimAhead` chunks from the reader's: later ones would only wait.
                guard let index = pieces.claim(ahead: threads + SegmentedResampler.claimAhead) else { return }
                do {
                    try withExtendedLifetime(lent) { try convert(index, reader: reader, buffers: buffers) }
                    if helper { helped.add(1, ordering: .relaxed) }
                } catch {
                    pieces.stop(error)
                    return
                }
            }
        }

        /// Output frames [this chunk's start, the next chunk's start) exactly as the one-pass converter makes them,
        /// handed to `pieces` as they fill.
        private func convert(_ index: Int, reader: SeekableAudioSource, buffers: Buffers) throws {
            let n = Int64(range.count)
            let begin = starts[index]
            let from = begin.begins
            let to = index + 1 == chunkCount ? target : starts[index + 1].begins
            try reader.seek(toFrame: range.lowerBound + begin.input)
            let source = Window(reader, frames: n - begin.input)
            let converter = try makeConverter(startOutput: begin.output)
            var output = ChunkOutput(pieces: pieces, chunk: index, channelCount: channelCount)
            defer { output.release() }
            let wanted: Int
            if from == begin.output, let polyphase = converter as? PolyphaseResampler, source.readsPlanes {
                wanted = try pull(polyphase, from: source, into: &output, wanted: Int(to - from), buffers: buffers)
            } else {
                wanted = try push(
                    converter, from: source, into: &output, wanted: Int(to - from), skip: from - begin.output,
                    buffers: buffers)
            }
            if wanted > 0 {
                // The end of the file, a few frames short: hold the last frame, as the one-pass resampler does.
                guard to == target, Int64(wanted) <= ExactLengthResampler.maxEndCorrection,
                    output.frames > 0 || from > 0
                else {
                    throw DSPError.lengthMismatch(target: target, produced: from + Int64(output.frames))
                }
                try output.hold(wanted)
            }
            try output.finish()
        }

        /// The chunk's outputs from a converter given the input interleaved, a block at a time, after the first
        /// `skip` outputs (the pre-roll) made into scratch. Returns the outputs still wanted when the input ran out.
        private func push(
            _ converter: any StreamConverter, from source: AudioSource, into output: inout ChunkOutput, wanted: Int,
            skip: Int64, buffers: Buffers
        ) throws -> Int {
            var wanted = wanted
            var skip = skip
            let block = buffers.frames
            let input = buffers.input
            var start = 0
            var available = 0
            var ended = false
            while wanted > 0 {
                if available == 0 && !ended {
                    start = 0
                    available = try source.read(into: input, frames: block)
                    ended = available == 0
                }
                // The pre-roll goes to scratch; the chunk itself straight into its piece.
                let room = skip > 0 ? Int(min(Int64(block), skip)) : min(block, wanted, output.room)
                let (used, generated) = try converter.process(
                    input: input + start * channelCount, inputFrames: available,
                    output: skip > 0 ? buffers.scratch() : output.next, outputFrames: room, endOfInput: ended)
                start += used
                available -= used
                if used == 0 && generated == 0 {
                    guard ended && available == 0 else { throw DSPError.converter("converter stalled") }
                    break
                }
                if skip > 0 {
                    skip -= Int64(generated)
                    continue
                }
                try output.wrote(generated)
                wanted -= generated
            }
            return wanted
        }

        /// The chunk's outputs from a polyphase converter that reads its input itself, straight into its planes
        /// (integer PCM decoded there: no interleaved copy to part). Returns the outputs still wanted when the input
        /// ran out (the end of a file a few frames short).
        private func pull(
            _ converter: PolyphaseResampler, from source: AudioSource, into output: inout ChunkOutput, wanted: Int,
            buffers: Buffers
        ) throws -> Int {
            var wanted = wanted
            while wanted > 0 {
                let room = min(wanted, output.room)
                let (read, generated) = try converter.process(
                    reading: source, scratch: buffers.input, scratchFrames: buffers.frames, output: output.next,
                    outputFrames: room)
                if read == 0 && generated == 0 { break }  // the input has ended and made every output it reaches
                try output.wrote(generated)
                wanted -= generated
            }
            return wanted
        }

        private func makeConverter(startOutput: Int64) throws -> any StreamConverter {
            let n = Int64(range.count)
            switch engine {
            case .polyphase:
                return try PolyphaseResampler(
                    filter: PolyphaseFilter.make(quality: quality, ratio: Double(target) / Double(n)),
                    channelCount: channelCount, inputFrames: n, outputFrames: target, startOutput: startOutput)
            case .libsamplerate:
                return try Resampler(quality: quality, channelCount: channelCount, ratio: Double(target) / Double(n))
            case .soxr:
                return try SoxrResampler(
                    quality: quality, channelCount: channelCount, inputFrames: n, outputFrames: target)
            }
        }
    }

    /// At most `frames` frames of a reader, from where it stands.
    private final class Window: AudioSource {
        let upstream: AudioSource
        var left: Int64
        var channelCount: Int { upstream.channelCount }
        let frameCount: Int64

        init(_ upstream: AudioSource, frames: Int64) {
            self.upstream = upstream
            left = frames
            frameCount = frames
        }

        func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
            try take(frames) { try upstream.read(into: buffer, frames: $0) }
        }

        var readsPlanes: Bool { upstream.readsPlanes }

        func read(
            planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frames: Int,
            scratch: UnsafeMutablePointer<Float>
        ) throws -> Int {
            try take(frames) { try upstream.read(planes: planes, offset: offset, frames: $0, scratch: scratch) }
        }

        /// Up to `frames` frames of what is left, read by `read` (given how many it may read).
        private func take(_ frames: Int, _ read: (Int) throws -> Int) throws -> Int {
            guard left > 0 else { return 0 }
            let got = try read(Int(min(Int64(frames), left)))
            left -= Int64(got)
            return got
        }
    }
}
