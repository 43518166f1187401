import DriftFixtures
import Foundation
import Testing

@testable import DriftDSP

/// The pieces between converting threads and the reader, with no DSP: chunks of random sizes, each sample its own
/// running number, so the reader can tell that nothing was lost, repeated or reordered.
@Suite("Chunk pieces: converters hand over, the reader takes in order, the bytes held stay bounded")
struct ChunkPiecesTests {
    /// Converts `sizes` (samples per chunk) on `threads` threads, each sample numbered by its place in the output;
    /// the reader takes them slowly when `slowReader`. Returns what the reader read, and the pieces' peak.
    static func run(sizes: [Int], threads: Int, budget: Int, slowReader: Bool, failAt: Int? = nil) throws -> (
        read: [Float], peak: Int
    ) {
        let pieces = ChunkPieces(chunkCount: sizes.count, channelCount: 1, pieceBytes: 4 * 1000, budget: budget)
        let offsets = sizes.reduce(into: [0]) { $0.append($0.last! + $1) }
        let group = DispatchGroup()
        for _ in 0..<threads {
            DispatchQueue.global().async(group: group) {
                while let chunk = pieces.claim(ahead: threads + 1) {
                    if chunk == failAt {
                        pieces.stop(CocoaError(.fileReadCorruptFile))
                        return
                    }
                    var written = 0
                    do {
                        while written < sizes[chunk] {
                            let samples = pieces.piece()
                            let count = min(pieces.pieceSamples, sizes[chunk] - written)
                            for i in 0..<count { samples[i] = Float(offsets[chunk] + written + i) }
                            written += count
                            try pieces.hand(ChunkPieces.Piece(samples: samples, count: count), chunk: chunk)
                        }
                        pieces.finish(chunk: chunk)
                    } catch {
                        return
                    }
                }
            }
        }
        var read: [Float] = []
        defer {
            pieces.stop(CancellationError())
            group.wait()
        }
        for chunk in 0..<sizes.count {
            while let piece = try pieces.take(chunk: chunk) {
                read.append(contentsOf: UnsafeBufferPointer(start: piece.samples, count: piece.count))
                pieces.recycle(piece.samples)
                if slowReader { usleep(200) }
            }
        }
        return (read, pieces.allocatedPeak)
    }

    @Test("every sample once and in order, and never more pieces than the bound allows", arguments: [false, true])
    func bounded(slowReader: Bool) throws {
        var random = SplitMix64(seed: slowReader ? 7 : 11)
        let sizes = (0..<40).map { _ in Int(random.next() % 30_000) + (random.next() % 5 == 0 ? 0 : 1) }
        for threads in [1, 2, 4] {
            let (read, peak) = try Self.run(sizes: sizes, threads: threads, budget: 5_000, slowReader: slowReader)
            #expect(read.count == sizes.reduce(0, +))
            #expect(read.enumerated().allSatisfy { Float($0.offset) == $0.element }, "\(threads) threads")
            // Ahead: the budget's 5 pieces plus one each converter may overshoot by; the head's 4 waiting plus the
            // one being filled; the one the reader holds.
            let bound = 5 + threads + 4 + 1 + 1 + threads
            #expect(peak <= bound, "\(threads) threads: \(peak) pieces at once, bound \(bound)")
        }
    }

    @Test("a converter that fails stops the reader with its error, and every thread ends")
    func failure() {
        #expect(throws: CocoaError.self) {
            _ = try Self.run(
                sizes: Array(repeating: 20_000, count: 12), threads: 2, budget: 5_000, slowReader: false, failAt: 5)
        }
    }
}
