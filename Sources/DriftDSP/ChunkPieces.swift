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
/// Thread-safe: converters on their threads, the reader on its own.
final class ChunkPieces: @unchecked Sendable {  // guarded by `condition`
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

    private let condition = NSCondition()
    private var queued: [Int: [Piece]] = [:]
    private var finished: Set<Int> = []
    private var head = 0
    private var claimed = 0
    private var aheadSamples = 0
    private var spare: [UnsafeMutablePointer<Float>] = []
    private var allocated = 0
    private var stopped: (any Error)?

    /// The most pieces that were allocated at once (tests: the memory bound holds).
    var allocatedPeak: Int { condition.withLock { peak } }
    private var peak = 0

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
        for pieces in queued.values { for piece in pieces { piece.samples.deallocate() } }
        for samples in spare { samples.deallocate() }
    }

    // MARK: Converters

    /// The next chunk to convert, once fewer than `ahead` chunks are claimed past the head; nil when every chunk is
    /// claimed or the work stopped.
    func claim(ahead: Int) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while stopped == nil && claimed < chunkCount && claimed >= head + ahead { condition.wait() }
        guard stopped == nil, claimed < chunkCount else { return nil }
        claimed += 1
        return claimed - 1
    }

    /// Waits up to `seconds` for news (used by a thread waiting for a core); false when there is nothing left to do.
    func pause(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard stopped == nil, claimed < chunkCount else { return false }
        _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        return stopped == nil && claimed < chunkCount
    }

    /// An empty piece to fill (`pieceSamples` long).
    func piece() -> UnsafeMutablePointer<Float> {
        condition.withLock {
            if let samples = spare.popLast() { return samples }
            allocated += 1
            peak = max(peak, allocated)
            return UnsafeMutablePointer<Float>.allocate(capacity: pieceSamples)
        }
    }

    /// Hands a filled piece of `chunk` to the reader, then waits while the pieces held are over their bound. Throws
    /// the reason the work stopped (the piece is then released here).
    func hand(_ piece: Piece, chunk: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        if let stopped {
            release(piece.samples)
            throw stopped
        }
        queued[chunk, default: []].append(piece)
        if chunk != head { aheadSamples += piece.count }
        condition.broadcast()
        while stopped == nil
            && (chunk == head ? queued[chunk, default: []].count > headPieces : aheadSamples > budget)
        {
            condition.wait()
        }
        if let stopped { throw stopped }
    }

    /// Every piece of `chunk` is handed over.
    func finish(chunk: Int) {
        condition.withLock { _ = finished.insert(chunk) }
        condition.broadcast()
    }

    /// Stops the work (the first reason stays): waiting converters and the reader wake and throw it.
    func stop(_ error: any Error) {
        condition.withLock { if stopped == nil { stopped = error } }
        condition.broadcast()
    }

    var isStopped: Bool { condition.withLock { stopped != nil } }

    // MARK: The reader

    /// The next piece of `chunk` (chunks in order, each until nil), waiting for it to be converted; nil once the chunk
    /// is done. Reaching a chunk makes it the head.
    func take(chunk: Int) throws -> Piece? {
        condition.lock()
        defer { condition.unlock() }
        if chunk != head {
            precondition(chunk == head + 1 && finished.contains(head), "chunks are read in order, each to its end")
            finished.remove(head)
            queued[head] = nil
            head = chunk
            aheadSamples -= queued[chunk, default: []].reduce(0) { $0 + $1.count }
            condition.broadcast()
        }
        while stopped == nil && queued[chunk, default: []].isEmpty && !finished.contains(chunk) { condition.wait() }
        if let stopped { throw stopped }
        guard var pieces = queued[chunk], !pieces.isEmpty else { return nil }
        let piece = pieces.removeFirst()
        queued[chunk] = pieces
        condition.broadcast()
        return piece
    }

    /// Gives back a piece the reader is done with.
    func recycle(_ samples: UnsafeMutablePointer<Float>) {
        condition.withLock { release(samples) }
    }

    private func release(_ samples: UnsafeMutablePointer<Float>) {
        // Spares beyond what the bound can hold at once would only be memory never used again.
        if spare.count < budget / pieceSamples + headPieces + 2 {
            spare.append(samples)
        } else {
            samples.deallocate()
            allocated -= 1
        }
    }
}
