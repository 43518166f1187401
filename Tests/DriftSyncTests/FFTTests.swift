import Foundation
import Testing

@testable import DriftSync

/// The FFT against a direct DFT computed in double precision, forward and inverse, at every size the measurement uses.
@Suite struct FFTTests {
    @Test(arguments: [8, 16, 64, 1024, 4096])
    func matchesTheDirectTransform(size: Int) {
        let buffers = SpectrumBuffers(size: size)
        var random = SystemRandomNumberGenerator()
        let x = (0..<size).map { _ in
            (Double.random(in: -1...1, using: &random), Double.random(in: -1...1, using: &random))
        }
        for inverse in [false, true] {
            for i in 0..<size {
                buffers.re[i] = Float(x[i].0)
                buffers.im[i] = Float(x[i].1)
            }
            buffers.transform(inverse: inverse)
            let sign = inverse ? 1.0 : -1.0
            var worst = 0.0
            for k in 0..<size {
                var (sr, si) = (0.0, 0.0)
                for j in 0..<size {
                    let angle = sign * 2 * Double.pi * Double(j * k % size) / Double(size)
                    sr += x[j].0 * cos(angle) - x[j].1 * sin(angle)
                    si += x[j].0 * sin(angle) + x[j].1 * cos(angle)
                }
                worst = max(worst, abs(sr - Double(buffers.re[k])), abs(si - Double(buffers.im[k])))
            }
            // Float rounding grows with log2(size); the values themselves reach √size.
            #expect(
                worst < 1e-5 * Double(size).squareRoot() * Double(size.trailingZeroBitCount),
                "size \(size) inverse \(inverse): \(worst)")
        }
    }
}
