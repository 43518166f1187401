internal import CFFmpeg
import DriftAudio
import DriftCore
import DriftSupport
import Foundation

/// What a replaced stream is encoded by: one encoder, or several in parallel (`SegmentedAudioEncoder`).
protocol StreamEncoder: AnyObject {
    var channelCount: Int { get }
    var sampleRate: Int { get }
    /// The timestamp the caller's first sample gets (after any lead-in).
    var firstSample: Int64 { get }
    /// Encodes `frames` interleaved frames; `emit` receives finished packets in stream order (timestamps in samples).
    func encode(
        _ samples: UnsafePointer<Float>, frames: Int,
        emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void) throws(AudioError)
    /// Encodes what is left and drains.
    func finish(emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void) throws(AudioError)
}

extension AudioEncoder: StreamEncoder {}

/// One stream encoded in segments on several threads, for codecs whose packets decode on their own once the
/// decoder has the previous one (AAC: each packet is an MDCT frame overlapping its neighbours; no bit reservoir
/// across packets). Segment k holds the packets whose time falls in [k·S, (k+1)·S) samples of the stream; its
/// encoder starts `preroll` samples before (so the first kept packet's overlap and the psychoacoustic state have the
/// sound they would have had in one pass), runs `postroll` samples past the end, and is drained; the packets outside
/// the segment are dropped. Packets are handed on in stream order, so the muxer sees one stream with the one-pass
/// timestamps and count: the decoded length is the one-pass length. At a join the two frames that overlap come from
/// two encoders that heard the same sound; tests measure the joins against the ideal and against the sound's own steps.
/// Its threads share only the finished segments' packets, through a `Guarded` dictionary; the rest is the caller's.
final class SegmentedAudioEncoder: StreamEncoder {
    /// Samples per segment by default: 2880 AAC frames, 61.44 s at 48 kHz. Each segment's encoder also hears the
    /// 256 frames before it (5.5 s at 48 kHz): FFmpeg's AAC encoder steers its rate by a quality factor that settles
    /// over seconds, so a shorter lead-in leaves each segment's start coarser than one pass (measured on steady
    /// tones: 3-8 dB lower SNR against the ideal near the joins with 8 frames, within 3 dB with 256 at the same bit
    /// rate). The encoding costs 9 % more work in all, spread over the threads.
    static let segmentFrames: Int64 = 2880 * 1024

    /// Makes an encoder whose first sample has this timestamp (the same codec and settings as the first).
    typealias Make = @Sendable (Int64) throws(AudioError) -> AudioEncoder

    let channelCount: Int
    let sampleRate: Int
    let firstSample: Int64
    /// Samples per segment, pre-roll and post-roll: whole codec frames.
    let segmentFrames: Int64
    let preroll: Int64
    let postroll: Int64

    private let make: Make
    private let base: Int64
    private let threads: Int
    /// Samples not yet handed to a segment's encoder that a later segment still needs, from `pendingStart` on.
    private var pending: [Float] = []
    private var pendingStart: Int64 = 0
    private var received: Int64 = 0
    private var dispatched = 0
    /// Segments handed to encoders so far (all of them, once finished).
    var segmentCount: Int { dispatched }
    private var emitted = 0
    /// Each encoded segment's packets (or why it failed) by segment, until handed on.
    private let finished = Guarded<[Int: Result<[UnsafeMutablePointer<AVPacket>], AudioError>]>([:])

    /// - Parameters:
    ///   - first: the encoder that gave the stream its parameters, whose first sample (a lead-in's, if any) has
    ///     timestamp `firstTimestamp`. Segment 0 gets an encoder of its own from `make`, like every other (the same
    ///     codec, settings and timestamp, so the same packets; opening one costs well under a millisecond), so no
    ///     encoder ever crosses from the caller's thread to a segment's.
    ///   - make: an encoder like `first` starting at another timestamp.
    init(
        first: AudioEncoder, firstTimestamp: Int64, make: @escaping Make, threads: Int,
        segmentFrames: Int64 = SegmentedAudioEncoder.segmentFrames, preroll: Int64 = 256 * 1024,
        postroll: Int64 = 4 * 1024
    ) {
        precondition(
            first.frameSize > 0 && segmentFrames % Int64(first.frameSize) == 0 && preroll % Int64(first.frameSize) == 0)
        channelCount = first.channelCount
        sampleRate = first.sampleRate
        firstSample = first.firstSample
        base = firstTimestamp
        self.make = make
        self.threads = max(1, threads)
        self.segmentFrames = segmentFrames
        self.preroll = preroll
        self.postroll = postroll
    }

    deinit {
        finished.withLock { finished in
            for case .success(let packets) in finished.values {
                for packet in packets {
                    var doomed: UnsafeMutablePointer<AVPacket>? = packet
                    driftfix_av_packet_free(&doomed)
                }
            }
        }
    }

    func encode(
        _ samples: UnsafePointer<Float>, frames: Int,
        emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void
    ) throws(AudioError) {
        pending.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * channelCount))
        received += Int64(frames)
        // A segment goes out once its post-roll is here.
        while received >= Int64(dispatched + 1) * segmentFrames + postroll {
            let index = dispatched
            let from = max(0, Int64(index) * segmentFrames - preroll)
            let to = Int64(index + 1) * segmentFrames + postroll
            dispatch(index, samples: slice(from, to), start: from, last: false)
            // What the next segment needs begins at its pre-roll.
            let keep = max(0, Int64(index + 1) * segmentFrames - preroll)
            pending.removeFirst(Int(keep - pendingStart) * channelCount)
            pendingStart = keep
            // At most `threads` segments in flight: each holds its samples (25 MB for 61 s of stereo).
            try emitReady(waiting: dispatched - emitted >= threads, emit: emit)
        }
        try emitReady(waiting: false, emit: emit)
    }

    func finish(emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void) throws(AudioError) {
        let index = dispatched
        let from = max(0, Int64(index) * segmentFrames - preroll)
        dispatch(index, samples: slice(from, received), start: from, last: true)
        pending = []
        while emitted < dispatched { try emitReady(waiting: true, emit: emit) }
    }

    private func slice(_ from: Int64, _ to: Int64) -> [Float] {
        Array(pending[Int(from - pendingStart) * channelCount..<Int(to - pendingStart) * channelCount])
    }

    /// Encodes segment `index` (its samples begin at stream sample `start`) on a thread of its own.
    private func dispatch(_ index: Int, samples: [Float], start: Int64, last: Bool) {
        dispatched += 1
        let lower = index == 0 ? Int64.min : base + Int64(index) * segmentFrames
        let upper = last ? Int64.max : base + Int64(index + 1) * segmentFrames
        let (make, channelCount, finished) = (make, channelCount, finished)
        let timestamp = base + start
        let job = Thread {
            let result: Result<[UnsafeMutablePointer<AVPacket>], AudioError>
            do throws(AudioError) {
                let coder = try make(timestamp)
                var kept: [UnsafeMutablePointer<AVPacket>] = []
                let keep = { (packet: UnsafeMutablePointer<AVPacket>) throws(AudioError) in
                    let time = packet.pointee.pts
                    guard time >= lower && time < upper else { return }
                    guard let copy = driftfix_av_packet_clone(packet) else {
                        throw AudioError(path: "", cause: .writeFailed("out of memory"))
                    }
                    kept.append(copy)
                }
                try samples.withUnsafeBufferPointer { buffer throws(AudioError) in
                    try coder.encode(buffer.baseAddress!, frames: buffer.count / channelCount, emit: keep)
                }
                try coder.finish(emit: keep)
                result = .success(kept)
            } catch {
                result = .failure(error)
            }
            finished.withLock { $0[index] = result }
        }
        job.stackSize = 1 << 20
        job.start()
    }

    /// Hands on the packets of the segments that are done, in order; `waiting`: waits for the next one first.
    private func emitReady(waiting: Bool, emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void)
        throws(AudioError)
    {
        var wait = waiting
        while emitted < dispatched {
            let (next, waiting) = (emitted, wait)
            let ready = { (finished: [Int: Result<[UnsafeMutablePointer<AVPacket>], AudioError>]) in
                !waiting || finished[next] != nil
            }
            let done = finished.when(ready) { $0.removeValue(forKey: next) }
            guard let done else { return }
            wait = false
            emitted += 1
            switch done {
            case .failure(let error): throw error
            case .success(let packets):
                var failure: AudioError?
                for packet in packets {
                    if failure == nil {
                        do throws(AudioError) { try emit(packet) } catch { failure = error }
                    }
                    var doomed: UnsafeMutablePointer<AVPacket>? = packet
                    driftfix_av_packet_free(&doomed)
                }
                if let failure { throw failure }
            }
        }
    }
}
