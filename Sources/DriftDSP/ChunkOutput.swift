/// A chunk's output as it is written: the piece being filled, handed over whenever it is full.
struct ChunkOutput {
    let pieces: ChunkPieces
    let chunk: Int
    let channelCount: Int
    private var samples: UnsafeMutablePointer<Float>?
    private var filled = 0
    /// Frames written in all, and the last of them (held at the end of a file a few frames short).
    private(set) var frames = 0
    private var last: [Float]

    init(pieces: ChunkPieces, chunk: Int, channelCount: Int) {
        self.pieces = pieces
        self.chunk = chunk
        self.channelCount = channelCount
        last = [Float](repeating: 0, count: channelCount)
    }

    /// Where the next frames go, and how many fit there.
    var next: UnsafeMutablePointer<Float> {
        mutating get {
            let piece = samples ?? pieces.piece()
            samples = piece
            return piece + filled
        }
    }
    var room: Int { (pieces.pieceSamples - filled) / channelCount }

    /// `count` frames were written at `next`.
    mutating func wrote(_ count: Int) throws {
        guard count > 0, let piece = samples else { return }
        filled += count * channelCount
        frames += count
        let end = piece + filled - channelCount
        for c in 0..<channelCount { last[c] = end[c] }
        if filled == pieces.pieceSamples { try hand() }
    }

    /// Repeats the last frame (silence if none) `count` times.
    mutating func hold(_ count: Int) throws {
        for _ in 0..<count {
            let at = next
            for c in 0..<channelCount { at[c] = last[c] }
            try wrote(1)
        }
    }

    mutating func finish() throws {
        if filled > 0 { try hand() }
        pieces.finish(chunk: chunk)
    }

    /// Gives back a piece never handed over (the work stopped).
    mutating func release() {
        if let piece = samples { pieces.recycle(piece) }
        samples = nil
    }

    private mutating func hand() throws {
        guard let piece = samples else { return }
        samples = nil
        let count = filled
        filled = 0
        try pieces.hand(ChunkPieces.Piece(samples: piece, count: count), chunk: chunk)
    }
}
