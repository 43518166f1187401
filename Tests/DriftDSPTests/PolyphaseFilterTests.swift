import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftDSP

/// The polyphase engine's filter as a frequency response, against the ideal band-limiting filter (1 to 0.9 × Nyquist,
/// 0 from 1.1 × Nyquist), and its output against libsoxr's and the ideal signal's.
@Suite("Polyphase kernel: the response it was designed for, and libsoxr's results on the same signals")
struct PolyphaseFilterTests {
    /// |H(f)| of the interpolation the kernel performs, f in cycles per input frame. Linear interpolation between the
    /// table's rows is linear interpolation of the continuous kernel sampled every 1/L frame, whose transform is
    /// exactly (1/L)·S(f)·sinc²(f/L), S the samples' transform.
    static func response(_ filter: PolyphaseFilter, at frequencies: [Double]) -> [Double] {
        let l = filter.phases
        // Sample m sits at u = m / L: row j, tap i is u = i - lead - j / L. The m fill one run of integers.
        let first = -filter.lead * l - (l - 1)
        var samples = [Double](repeating: 0, count: filter.taps * l)
        for j in 0..<l {
            for i in 0..<filter.taps {
                samples[(i - filter.lead) * l - j - first] = Double(filter.coefficients[j * filter.taps + i])
            }
        }
        // Σ value·e^(-2πi·f·m/L): the angle computed exactly every 256 samples and turned by rotation between
        // (an error of about 10⁻¹³ of the sum, far below the 10⁻⁵ of a stopband 100 dB down).
        let run = 256
        return frequencies.map { f in
            var re = 0.0
            var im = 0.0
            for start in stride(from: 0, to: samples.count, by: run) {
                var rotation = SineRotation(
                    angle: -2 * Double.pi * f * Double(first + start) / Double(l), step: -2 * Double.pi * f / Double(l))
                for k in start..<min(samples.count, start + run) {
                    re += samples[k] * rotation.cosine
                    im += samples[k] * rotation.sine
                    rotation.advance()
                }
            }
            let x = Double.pi * f / Double(l)
            let sinc = x == 0 ? 1 : sin(x) / x
            return (re * re + im * im).squareRoot() / Double(l) * sinc * sinc
        }
    }

    @Test(
        "passband flat to 0.01 dB up to 0.9 × Nyquist, stopband at least 100 dB down from 1.1 × Nyquist (and the phase table's images)",
        arguments: ResampleQuality.allCases, [0.999_869, 1.01, 0.99])
    func response(quality: ResampleQuality, ratio: Double) {
        let filter = PolyphaseFilter.make(quality: quality, ratio: ratio)
        let scale = min(1, ratio)
        let passband = stride(from: 0.0, through: 0.45 * scale, by: 0.45 * scale / 60).map { $0 }
        let stopband =
            stride(from: 0.55 * scale, through: 3.0, by: 0.01).map { $0 }
            + stride(from: Double(filter.phases) - 0.45, through: Double(filter.phases) + 0.45, by: 0.05).map { $0 }
        let pass = Self.response(filter, at: passband).map { 20 * log10($0) }
        let stop = Self.response(filter, at: stopband).map { 20 * log10(max($0, 1e-30)) }
        let ripple = pass.map(abs).max() ?? 0
        let rejection = -(stop.max() ?? 0)
        #expect(ripple <= 0.01, "\(quality) at \(ratio): passband ripple \(ripple) dB")
        #expect(rejection >= 100, "\(quality) at \(ratio): stopband \(rejection) dB down")
        // The design's own figure is reached too (within 3 dB of the Kaiser estimate).
        #expect(
            rejection >= filter.attenuation - 3, "\(quality): \(rejection) dB for a \(filter.attenuation) dB design")
    }

    static let bands: [(ResampleQuality, Double)] = [
        (.fast, 0.3), (.fast, 0.45), (.medium, 0.3), (.medium, 0.4), (.medium, 0.45), (.best, 0.3), (.best, 0.45),
    ]

    @Test(
        "against the ideal signal at -131 ppm, tones up to 0.3, 0.4 and 0.45 of the rate: as clean as libsoxr (within 1 dB), and the two outputs agree",
        arguments: bands)
    func crossCheckedWithSoxr(quality: ResampleQuality, band: Double) throws {
        let length: Int64 = 96_000
        let signal = TestSignal(channelCount: 2, length: length, seed: 12, maxCyclesPerSample: band)
        let target = length * 999_869 / 1_000_000
        let ideal = signal.ideal(target: target, start: 0, count: Int(target))
        func run(_ engine: ResampleEngine) throws -> [Float] {
            let stage = try ExactLengthResampler(
                upstream: SignalSource(signal), targetFrames: target, quality: quality, engine: engine)
            return try drain(stage)
        }
        let polyphase = try run(.polyphase)
        let soxr = try run(.soxr)
        #expect(polyphase.count == Int(target) * 2)
        let own = SignalMeasure.snr(actual: polyphase, ideal: ideal)
        let theirs = SignalMeasure.snr(actual: soxr, ideal: ideal)
        #expect(own >= theirs - 1 || own >= 110, "\(quality) to \(band): polyphase \(own) dB, libsoxr \(theirs) dB")
        #expect(own >= 95, "\(quality) to \(band): \(own) dB")
        let agreement = SignalMeasure.snr(actual: polyphase, ideal: soxr.map(Double.init))
        // Two outputs each within their error of the ideal are within the sum of the errors of each other.
        #expect(
            agreement >= min(own, theirs) - 6.1,
            "\(quality) to \(band): polyphase and libsoxr differ at \(agreement) dB (\(own), \(theirs) to the ideal)")
        print("polyphase \(quality) to \(band): \(own) dB; libsoxr \(theirs) dB; apart \(agreement) dB")
    }
}
