import CSampleRate
import CSoxr
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftDSP

/// Resamples `signal` to `target` frames and returns the output.
private func resample(
    _ signal: TestSignal, to target: Int64, quality: ResampleQuality = .best, engine: ResampleEngine = .libsamplerate,
    blockFrames: Int = 8192
) throws -> [Float] {
    let stage = try ExactLengthResampler(
        upstream: SignalSource(signal), targetFrames: target, quality: quality, engine: engine, blockFrames: blockFrames
    )
    return try drain(stage, blockFrames: 3001)
}

/// The drift ratios a repair meets: clock drift of a few hundred ppm, NTSC pull-down and pull-up, the 44.1 kHz
/// material labelled 48 kHz (and back), and the ±5...10% edges.
let ratios: [(String, Rational)] = [
    ("-10%", Rational(9, 10)), ("-5%", Rational(95, 100)), ("pull-down 1000/1001", Rational(1000, 1001)),
    ("-131 ppm", Rational(999_869, 1_000_000)), ("+131 ppm", Rational(1_000_131, 1_000_000)),
    ("pull-up 1001/1000", Rational(1001, 1000)), ("+1%", Rational(101, 100)),
    ("44.1k tagged 48k", Rational(48000, 44100)), ("48k tagged 44.1k", Rational(44100, 48000)),
    ("+10%", Rational(11, 10)),
]

/// Every test runs on both engines: each keeps every exactness rule.
let engines = ResampleEngine.allCases

@Suite("Exact-length resampling, on both engines")
struct ExactLengthResamplerTests {
    // Measured here: 137-141 dB at best on every ratio and channel count with libsamplerate, 143-147 dB with libsoxr;
    // the issue asks for 90.
    @Test("exact frame count, lag 0 and SNR above 120 dB at best", arguments: ratios, engines)
    func exactAlignedAndClean(ratio: (String, Rational), engine: ResampleEngine) throws {
        for channels in [1, 2, 6] { try exactAlignedAndClean(ratio: ratio, channels: channels, engine: engine) }
    }

    private func exactAlignedAndClean(ratio: (String, Rational), channels: Int, engine: ResampleEngine) throws {
        let length: Int64 = 48_000  // a 1-second file: the hardest case for ±10%
        let signal = TestSignal(channelCount: channels, length: length, seed: UInt64(channels))
        let target = try #require(ratio.1.multipliedRounded(by: length))
        let output = try resample(signal, to: target, engine: engine)
        #expect(output.count == Int(target) * channels, "frame count for \(ratio.0)")

        let ideal = signal.ideal(target: target, start: 0, count: Int(target))
        let snr = SignalMeasure.snr(actual: output, ideal: ideal)

        #expect(snr > 120, "SNR \(snr) dB for \(ratio.0), \(channels) ch, \(engine)")

        // Lag at the start, middle and end (4096-frame windows): no leading offset, no residual drift.
        let window = 4096
        for (name, start) in [("start", 0), ("middle", Int(target) / 2 - window / 2), ("end", Int(target) - window)] {
            let actual = Array(output[(start * channels)..<((start + window) * channels)])
            let expected = Array(ideal[(start * channels)..<((start + window) * channels)])
            for c in 0..<channels {
                let lag = SignalMeasure.lag(actual: actual, ideal: expected, channels: channels, channel: c)
                #expect(abs(lag) <= 0.5, "lag \(lag) at \(name), channel \(c), \(ratio.0), \(engine)")
            }
        }
    }

    @Test("block size does not change the output: state carries across blocks, no clicks at joins", arguments: engines)
    func blockJoinsAreSeamless(engine: ResampleEngine) throws {
        let signal = TestSignal(channelCount: 2, length: 40_000, seed: 7)
        let target: Int64 = 40_005
        let large = try resample(signal, to: target, engine: engine, blockFrames: 8192)
        let tiny = try resample(signal, to: target, engine: engine, blockFrames: 97)
        let ideal = signal.ideal(target: target, start: 0, count: Int(target))
        #expect(tiny.count == large.count)
        #expect(SignalMeasure.snr(actual: tiny, ideal: ideal) > 90)
        let worst = zip(tiny, large).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-6, "largest difference between 97-frame and 8192-frame blocks: \(worst)")
    }

    @Test(
        "the extreme ratios the converters round differently still give the exact count",
        arguments: [Rational(1, 2), Rational(2, 1), Rational(1, 3), Rational(256, 100)], engines)
    func extremeRatios(ratio: Rational, engine: ResampleEngine) throws {
        for length: Int64 in [1, 2, 3, 999, 1000, 4801] {
            let signal = TestSignal(channelCount: 1, length: length, seed: 3, fadeFrames: 1)
            let target = max(1, try #require(ratio.multipliedRounded(by: length)))
            let output = try resample(signal, to: target, quality: .fast, engine: engine)
            #expect(output.count == Int(target), "\(length) frames × \(ratio), \(engine)")
        }
    }

    @Test("each quality on in-band content", arguments: ResampleQuality.allCases, engines)
    func qualities(quality: ResampleQuality, engine: ResampleEngine) throws {
        let signal = TestSignal(channelCount: 2, length: 96_000, seed: 11, maxCyclesPerSample: 0.3)
        let target: Int64 = 96_013
        let output = try resample(signal, to: target, quality: quality, engine: engine)
        let snr = SignalMeasure.snr(actual: output, ideal: signal.ideal(target: target, start: 0, count: Int(target)))
        // Measured here: best ≈ 123 dB, medium ≈ 117 dB, fast ≈ 96 dB on tones up to 0.3 × the rate.

        let floor: Double = quality == .fast ? 85 : 100
        #expect(snr > floor, "\(engine) \(quality): \(snr) dB")
    }

    /// (quality, highest tone as a fraction of the rate, what soxr must reach): at least libsamplerate's SNR less
    /// 1 dB, or a floor where libsamplerate's best passband is flatter than any soxr recipe.
    static let soxrMatches: [(ResampleQuality, Double, Double?)] = [
        (.fast, 0.3, nil), (.fast, 0.4, nil), (.fast, 0.45, nil), (.medium, 0.3, nil), (.medium, 0.4, nil),
        (.medium, 0.45, nil), (.best, 0.3, nil), (.best, 0.4, 115),
    ]

    @Test(
        "each soxr quality against libsamplerate's of the same name, on tones up to 0.3, 0.4 and 0.45 of the rate",
        arguments: soxrMatches)
    func soxrMatchesItsName(quality: ResampleQuality, band: Double, floor: Double?) throws {
        let length: Int64 = 96_000
        let signal = TestSignal(channelCount: 2, length: length, seed: 12, maxCyclesPerSample: band)
        let target = length * 999_869 / 1_000_000
        let ideal = signal.ideal(target: target, start: 0, count: Int(target))
        let reference = SignalMeasure.snr(
            actual: try resample(signal, to: target, quality: quality, engine: .libsamplerate), ideal: ideal)
        let soxr = SignalMeasure.snr(
            actual: try resample(signal, to: target, quality: quality, engine: .soxr), ideal: ideal)
        let needed = floor ?? reference - 1
        #expect(soxr >= needed, "\(quality) up to \(band): soxr \(soxr) dB, libsamplerate \(reference) dB")
    }

    @Test(
        "1 ppm over a 3-hour stream: exact count and no drift at the end",
        .enabled(if: SuiteTier.full, "full tier: 518 M frames on each engine"), arguments: engines)
    func onePPMOverThreeHours(engine: ResampleEngine) throws {
        let length: Int64 = 3 * 3600 * 48_000
        let signal = TestSignal(channelCount: 1, length: length, seed: 5, tonesPerChannel: 3)
        let target = try #require(Rational(1_000_001, 1_000_000).multipliedRounded(by: length))
        #expect(target == length + 518)
        let stage = try ExactLengthResampler(
            upstream: SignalSource(signal), targetFrames: target, quality: .fast, engine: engine, blockFrames: 65_536)
        // Stream through, keeping only windows at the start, middle and end.
        let window = 8192
        let marks: [Int64] = [0, target / 2, target - Int64(window)]
        var windows: [Int64: [Float]] = [:]
        let block = 65_536
        var buffer = [Float](repeating: 0, count: block)
        var position: Int64 = 0
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try stage.read(into: $0.baseAddress!, frames: block) }
            if n == 0 { break }
            for mark in marks where mark < position + Int64(n) && mark + Int64(window) > position {
                let from = max(mark, position)
                let to = min(mark + Int64(window), position + Int64(n))
                windows[mark, default: []] += buffer[Int(from - position)..<Int(to - position)]
            }
            position += Int64(n)
        }
        #expect(position == target)
        for mark in marks {
            let actual = try #require(windows[mark])
            let ideal = signal.ideal(target: target, start: mark, count: window)
            let snr = SignalMeasure.snr(actual: actual, ideal: ideal)
            let lag = SignalMeasure.lag(actual: actual, ideal: ideal, channels: 1)

            // Measured: 102 dB (libsamplerate fast), 131 dB (soxr fast), and lags within ±3.3e-5 frames in all three
            // windows on both engines.
            #expect(snr > 95, "\(engine), window at \(mark): SNR \(snr) dB")
            #expect(abs(lag) <= 0.01, "\(engine), window at \(mark): lag \(lag) frames")
        }
    }

    @Test("a source that ends early is an error, never padded over", arguments: engines)
    func shortSourceIsAnError(engine: ResampleEngine) throws {
        let samples = [Float](repeating: 0.1, count: 10_000)
        // Declares 20,000 frames but holds 10,000: the converter runs dry thousands of frames short.
        let source = MemoryAudioSource(samples, channels: 1, declaredFrames: 20_000)
        let stage = try ExactLengthResampler(upstream: source, targetFrames: 20_020, quality: .fast, engine: engine)
        #expect(throws: DSPError.self) { _ = try drain(stage) }
    }

    @Test("quality names map to libsamplerate's converters and libsoxr's recipes")
    func converterConstants() {
        #expect(ResampleQuality.best.converterType == Int32(SRC_SINC_BEST_QUALITY))
        #expect(ResampleQuality.medium.converterType == Int32(SRC_SINC_MEDIUM_QUALITY))
        #expect(ResampleQuality.fast.converterType == Int32(SRC_SINC_FASTEST))
        #expect(ResampleQuality.best.soxrRecipe == UInt(SOXR_VHQ) && ResampleQuality.best.soxrPassband == 0.99)
        #expect(ResampleQuality.medium.soxrRecipe == UInt(SOXR_28_BITQ) && ResampleQuality.medium.soxrPassband == 0.97)
        #expect(ResampleQuality.fast.soxrRecipe == UInt(SOXR_HQ) && ResampleQuality.fast.soxrPassband == 0.90)
    }
}
