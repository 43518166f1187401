import DriftFixtures
import Foundation
import Testing

/// The fixture every resampling test measures against: its block evaluation (tones turned by rotation between
/// phases computed exactly) is held to the signal's definition, one sine per tone and sample.
@Suite("The test signal: block evaluation agrees with its definition")
struct TestSignalTests {
    @Test(
        "recording and ideal within 10⁻¹² of the sines, at the start, after hours, across rotation runs and ends; the same in any block",
        arguments: [(Int64(100_000), Int64(100_013)), (Int64(48_000 * 3600 * 3), Int64(48_000 * 3600 * 3 - 1_414_711))])
    func blockEvaluation(length: Int64, target: Int64) {
        let signal = TestSignal(channelCount: 2, length: length, seed: 3, tonesPerChannel: 12, maxCyclesPerSample: 0.45)
        let count = 3 * TestSignal.rotationRun + 17
        for start in [Int64(0), length / 2 + 7, length - Int64(count)] {
            let recorded = signal.recording(start: start, count: count)
            for i in 0..<count {
                for c in 0..<2 {
                    let direct = signal.value(channel: c, whole: start + Int64(i), fraction: 0)
                    // The same float, or its neighbour where the sum lies within 10⁻¹² of a rounding boundary.
                    #expect(abs(Double(recorded[i * 2 + c]) - direct) <= Double(Float(direct).ulp))
                }
            }
            // A frame is the same float in whatever block it is asked for (readers cut their blocks anywhere).
            let shifted = signal.recording(start: start + 101, count: count - 101)
            #expect(Array(recorded[(101 * 2)...]) == shifted, "at \(start)")
            let idealStart = start * target / length
            let ideal = signal.ideal(target: target, start: idealStart, count: count)
            var worst = 0.0
            for i in 0..<count {
                let numerator = Int128(idealStart + Int64(i)) * Int128(length)
                let whole = Int64(numerator / Int128(target))
                let fraction = Double(numerator % Int128(target)) / Double(target)
                for c in 0..<2 {
                    worst = max(
                        worst, abs(ideal[i * 2 + c] - signal.value(channel: c, whole: whole, fraction: fraction)))
                }
            }
            #expect(worst < 1e-12, "at \(start): \(worst)")
            let idealShifted = signal.ideal(target: target, start: idealStart + 300, count: count - 300)
            #expect(Array(ideal[(300 * 2)...]) == idealShifted, "at \(start)")
        }
    }

    @Test("a tone's phase after hours is exact: small positions agree with the plain product, and phases add")
    func phaseAfterHours() {
        var random = SplitMix64(seed: 5)
        for _ in 0..<200 {
            let cycles = 40.0 / 48_000 + 0.45 * random.nextUnit()
            let small = Int64(random.next() % 1_000_000)
            let plain = cycles * Double(small)
            #expect(abs(TestSignal.fractionalCycles(cycles, small) - (plain - plain.rounded(.down))) < 1e-9)
            // Ten hours apart and back: frac(c·(a + b)) = frac(frac(c·a) + frac(c·b)), to a double's rounding.
            let (a, b) = (Int64(random.next() % 2_000_000_000), Int64(random.next() % 2_000_000_000))
            let sum = TestSignal.fractionalCycles(cycles, a) + TestSignal.fractionalCycles(cycles, b)
            let whole = TestSignal.fractionalCycles(cycles, a + b)
            let apart = abs(whole - (sum - sum.rounded(.down)))
            #expect(min(apart, 1 - apart) < 1e-15, "\(cycles) \(a) \(b)")
        }
    }
}
