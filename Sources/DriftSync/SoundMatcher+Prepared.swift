import Foundation

extension SoundMatcher {
    /// A print pooled and high-passed, with prefix sums of its squares.
    struct Prepared: Sendable {
        let coarse: [Float]
        /// energy[k] = Σ coarse[0..<k]².
        let energy: [Double]
        /// The full-rate onsets, high-passed the same way, and the prefix sums of their squares.
        let fine: [Float]
        let fineEnergy: [Double]
        /// The pitch classes by class, frame by frame: each frame's levels less their mean (its loudness), each class
        /// high-passed in time; and the prefix sums of each frame's squares over the classes.
        let chroma: [[Float]]
        let chromaEnergy: [Double]
        var chromaFrames: Int { chromaEnergy.count - 1 }

        init(_ print: SoundPrint) {
            coarse = Prepared.highPassed(
                print.pooled(by: SoundMatcher.pooling).map { $0.squareRoot() },
                reach: 2 * SoundPrint.frameRate / SoundMatcher.pooling)
            energy = Prepared.prefixSquares(coarse)
            fine = Prepared.highPassed(print.onsets.map { Float($0).squareRoot() }, reach: 2 * SoundPrint.frameRate)
            fineEnergy = Prepared.prefixSquares(fine)
            let levels = print.chromaLevels().map { frame -> [Float] in
                let mean = frame.reduce(0, +) / Float(frame.count)
                return frame.map { $0 - mean }
            }
            chroma = (0..<ChromaEnvelope.classes).map { c in
                Prepared.highPassed(levels.map { $0[c] }, reach: 2 * ChromaEnvelope.frameRate)
            }
            var sums = [Double](repeating: 0, count: levels.count + 1)
            for k in levels.indices {
                var frame = 0.0
                for c in 0..<ChromaEnvelope.classes { frame += Double(chroma[c][k] * chroma[c][k]) }
                sums[k + 1] = sums[k] + frame
            }
            chromaEnergy = sums
        }

        /// sums[k] = Σ x[0..<k]².
        static func prefixSquares(_ x: [Float]) -> [Double] {
            var sums = [Double](repeating: 0, count: x.count + 1)
            for (i, v) in x.enumerated() { sums[i + 1] = sums[i] + Double(v * v) }
            return sums
        }

        /// `x` less its moving average over ±`reach` values.
        static func highPassed(_ x: [Float], reach: Int) -> [Float] {
            guard !x.isEmpty else { return x }
            var prefix = [Double](repeating: 0, count: x.count + 1)
            for (i, v) in x.enumerated() { prefix[i + 1] = prefix[i] + Double(v) }
            return x.indices.map { i in
                let low = max(0, i - reach)
                let high = min(x.count, i + reach + 1)
                return x[i] - Float((prefix[high] - prefix[low]) / Double(high - low))
            }
        }
    }
}
