import DriftSupport
import Foundation

/// The output of a conversion cut into chunks, on its way from the threads converting them to the one reader: pieces
/// of a fixed size, in chunk order, with the bytes held bounded whatever the chunks' sizes.
///
/// A converter fills pieces of its chunk and hands each over as it fills. The reader takes the chunk it has reached
/// (the head) piece by piece as they come, so a long head (libsoxr's and libsamplerate's chunks) is never held whole;
/// the chunks after it wait, together at most `budget` samples: a converter of a later chunk waits while they hold
/// more. The head's converter waits only while the reader has `headPieces` of its pieces still to take (a slow writer
/// or encoder), never on the later chunks, so the reader always gets on and nothing deadlocks. Pieces the reader is
/// done with are used again.
///
/// Thread-safe: converters on their threads, the reader on its own, sharing one `Guarded` state.
final class ChunkPieces: Sendable {
    /// Samples of one chunk's output, `count` of them valid.
    struct Piece {
        let samples: UnsafeMutablePointer<Float>
        let count: Int
    }

    /// Samples per piece (whole frames).
    let pieceSamples: Int
    let chunkCount: Int
    private let budget: Int
    private let headPieces: Int

    /// What the threads share.
    private struct Shared {
        var queued: [Int: [Piece]] = [:]
        var finished: Set<Int> = []
        var head = 0
        var claimed = 0
        var aheadSamples = 0
        var spare: [UnsafeMutablePointer<Float>] = []
        var allocated = 0
        var peak = 0
        var stopped: (any Error)?
    }

    private let shared = Guarded(Shared())

    /// The most pieces that were allocated at once (tests: the memory bound holds).
    var allocatedPeak: Int { shared.read { $0.peak } }

    /// - Parameters:
    ///   - budget: samples the chunks after the head may hold together (a converter may overshoot it by a piece).
    ///   - headPieces: pieces of the head the reader may have still to take before its converter waits.
    ///   - pieceBytes: 1 MiB: each piece handed over wakes the reader; 256 KiB pieces made twice the context switches
    ///     and 10 % more wall time for 600 s of stereo on 2 cores, for 1-3 MiB less at the peak.
    init(chunkCount: Int, channelCount: Int, pieceBytes: Int = 1 << 20, budget: Int, headPieces: Int = 4) {
        self.chunkCount = chunkCount
        pieceSamples = max(1, pieceBytes / 4 / channelCount) * channelCount
        self.budget = budget
        self.headPieces = headPieces
    }

    deinit {
        shared.withLock { shared in
            for pieces in shared.queued.values { for piece in pieces { piece.samples.deallocate() } }
            for samples in shared.spare { samples.deallocate() }
        }
    }

    // MARK: Converters

    /// The next chunk to convert, once fewer than `ahead` chunks are claimed past the head; nil when every chunk is
    /// claimed or the work stopped.
    func claim(ahead: Int) -> Int? {
        let chunkCount = chunkCount
        let open = { (shared: Shared) in
            shared.stopped != nil || shared.claimed >= chunkCount || shared.claimed < shared.head + ahead
        }
        return shared.when(open) {
            guard $0.stopped == nil, $0.claimed < chunkCount else { return nil }
            $0.claimed += 1
            return $0.claimed - 1
        }
    }

    /// Waits up to `seconds` for news (used by a thread waiting for a core); false when there is nothing left to do.
    func pause(seconds: Double) -> Bool {
        let chunkCount = chunkCount
        let done = { (shared: Shared) in shared.stopped != nil || shared.claimed >= chunkCount }
        return shared.afterChange(unless: done, orUntil: Date(timeIntervalSinceNow: seconds)) { !done($0) }
    }

    /// An empty piece to fill (`pieceSamples` long).
    func piece() -> UnsafeMutablePointer<Float> {
        let pieceSamples = pieceSamples
        return shared.withLock {
            if let samples = $0.spare.popLast() { return samples }
            $0.allocated += 1
            $0.peak = max($0.peak, $0.allocated)
            return UnsafeMutablePointer<Float>.allocate(capacity: pieceSamples)
        }
    }

    /// Hands a filled piece of `chunk` to the reader, then waits while the pieces held are over their bound. Throws
    /// the reason the work stopped (the piece is then released here).
    func hand(_ piece: Piece, chunk: Int) throws {
        try shared.withLock { (shared: inout Shared) throws in
            if let stopped = shared.stopped {
                release(piece.samples, in: &shared)
                throw stopped
            }
            shared.queued[chunk, default: []].append(piece)
            if chunk != shared.head { shared.aheadSamples += piece.count }
        }
        let (headPieces, budget) = (headPieces, budget)
        let over = { (shared: Shared) in
            chunk == shared.head ? shared.queued[chunk, default: []].count > headPieces : shared.aheadSamples > budget
        }
        let room = { (shared: Shared) in shared.stopped != nil || !over(shared) }
        try shared.when(room) { (shared: inout Shared) throws in
            if let stopped = shared.stopped { throw stopped }
        }
    }

    /// Every piece of `chunk` is handed over.
    func finish(chunk: Int) {
        shared.withLock { _ = $0.finished.insert(chunk) }
    }

    /// Stops the work (the first reason stays): waiting converters and the reader wake and throw it.
    func stop(_ error: any Error) {
        shared.withLock { if $0.stopped == nil { $0.stopped = error } }
    }

    var isStopped: Bool { shared.read { $0.stopped != nil } }

    // MARK: The reader

    /// The next piece of `chunk` (chunks in order, each until nil), waiting for it to be converted; nil once the chunk
    /// is done. Reaching a chunk makes it the head.
    func take(chunk: Int) throws -> Piece? {
        shared.withLock { shared in
            guard chunk != shared.head else { return }
            precondition(
                chunk == shared.head + 1 && shared.finished.contains(shared.head),
                "chunks are read in order, each to its end")
            shared.finished.remove(shared.head)
            shared.queued[shared.head] = nil
            shared.head = chunk
            shared.aheadSamples -= shared.queued[chunk, default: []].reduce(0) { $0 + $1.count }
        }
        let news = { (shared: Shared) in
            shared.stopped != nil || !shared.queued[chunk, default: []].isEmpty || shared.finished.contains(chunk)
        }
        return try shared.when(news) { (shared: inout Shared) throws -> Piece? in
            if let stopped = shared.stopped { throw stopped }
            guard var pieces = shared.queued[chunk], !pieces.isEmpty else { return nil }
            let piece = pieces.removeFirst()
            shared.queued[chunk] = pieces
            return piece
        }
    }

    /// Gives back a piece the reader is done with.
    func recycle(_ samples: UnsafeMutablePointer<Float>) {
        shared.withLock { release(samples, in: &$0) }
    }

    private func release(_ samples: UnsafeMutablePointer<Float>, in shared: inout Shared) {
        // Spares beyond what the bound can hold at once would only be memory never used again.
        if shared.spare.count < budget / pieceSamples + headPieces + 2 {
            shared.spare.append(samples)
        } else {
            samples.deallocate()
            shared.allocated -= 1
        }
    }
}
