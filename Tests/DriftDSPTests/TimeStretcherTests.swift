import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftDSP

private func stretch(_ samples: [Float], channels: Int, to target: Int64, rate: Int = 48_000) throws -> [Float] {
    try Stretcher.wsola.run(samples, channels: channels, to: target, rate: rate)
}

/// The worst lag (ms at 48 kHz) between the output's envelope and the ideal one — the input's envelope at
/// k / α, the linear time map — over consecutive 400 ms windows: the lag maximising the Pearson correlation,
/// refined by a parabola. Both envelopes are measured the same way (RMS over 5 ms), so the unstretched input
/// reads 0 and a delayed copy reads its delay.
func worstTimingError(_ output: [Float], signal: EnvelopeSignal, target: Int64) -> Double {
    let alpha = Double(target) / Double(signal.length)
    let step = 24  // 0.5 ms
    let measured = EnvelopeSignal.measuredEnvelope(output, channels: signal.channelCount, window: 240, step: step)
    let original = EnvelopeSignal.measuredEnvelope(
        signal.recording(), channels: signal.channelCount, window: 240, step: step)
    let ideal = (0..<measured.count).map { k -> Double in
        let position = Double(k) / alpha
        let i = Int(position)
        guard i + 1 < original.count else { return original.last ?? 0 }
        return original[i] + (original[i + 1] - original[i]) * (position - Double(i))
    }
    let window = 800  // 400 ms
    let maxLag = 20  // ±10 ms
    var worst = 0.0
    var start = maxLag
    while start + window + maxLag < measured.count {
        let reference = Array(ideal[start..<(start + window)])
        func pearson(_ lag: Int) -> Double {
            let candidate = Array(measured[(start + lag)..<(start + lag + window)])
            let (ma, mb) = (reference.reduce(0, +) / Double(window), candidate.reduce(0, +) / Double(window))
            var (sab, saa, sbb) = (0.0, 0.0, 0.0)
            for i in 0..<window {
                let (a, b) = (reference[i] - ma, candidate[i] - mb)
                sab += a * b
                saa += a * a
                sbb += b * b
            }
            return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
        }
        let values = (-maxLag...maxLag).map(pearson)
        if let best = values.indices.max(by: { values[$0] < values[$1] }), best > 0, best < values.count - 1,
            values[best] > 0.5
        {
            let (a, b, c) = (values[best - 1], values[best], values[best + 1])
            let lag = Double(best - maxLag) + 0.5 * (a - c) / (a - 2 * b + c)
            worst = max(worst, abs(lag) * Double(step) / 48.0)
        }
        start += window / 2
    }
    return worst
}

let stretchRatios: [Rational] = [
    Rational(1, 2), Rational(3, 4), Rational(97, 100), Rational(999, 1000), Rational(999_869, 1_000_000),
    Rational(1_000_131, 1_000_000),
    Rational(103, 100), Rational(5, 4), Rational(3, 2), Rational(2, 1),
]

@Suite("Pitch-preserving time-stretch (WSOLA)")
struct TimeStretcherTests {
    @Test("the timing measure itself reads 0 on the unstretched input and the shift of a delayed copy")
    func timingMeasure() {
        let signal = EnvelopeSignal(length: 96_000, channelCount: 1, seed: 31)
        let input = signal.recording()
        #expect(worstTimingError(input, signal: signal, target: signal.length) < 0.1)
        let delayed = [Float](repeating: 0, count: 144) + input.dropLast(144)  // 3 ms late
        let error = worstTimingError(Array(delayed), signal: signal, target: signal.length)
        #expect(abs(error - 3) < 0.2, "a 3 ms delay reads \(error) ms")
    }

    @Test(
        "no clicks: no step larger than the signal's own",
        arguments: [Rational(1, 2), Rational(97, 100), Rational(2, 1)])
    func noClicks(ratio: Rational) throws {
        let signal = TestSignal(channelCount: 2, length: 96_000, seed: 12, tonesPerChannel: 3, maxCyclesPerSample: 0.02)
        let input = signal.recording(start: 0, count: 96_000)
        let target = try #require(ratio.multipliedRounded(by: signal.length))
        let output = try stretch(input, channels: 2, to: target)
        for c in 0..<2 {
            let own = SignalMeasure.maxStep(input, channels: 2, channel: c)
            let found = SignalMeasure.maxStep(output, channels: 2, channel: c)
            #expect(found <= own * 1.05, "channel \(c): step \(found) against the input's \(own)")
        }
    }
}
