import ArgumentParser
import DriftCore
import DriftDSP
import DriftFixtures
import Foundation

/// Each resampling engine at each quality, measured: its SNR against the analytic multi-tone ideal with tones up to
/// 0.30, 0.40 and 0.45 of the rate, and its converter's own speed in memory on one core. Prints one JSON object
/// (scripts/bench.sh's `converters` section keeps it as bench-results/converters.json; the docs' converter table is
/// generated from it).
///
/// The ideal is the signal sampled at k × length / target (`TestSignal.ideal`), computed with no project DSP, and
/// float output is compared before any quantisation: what is measured is the converter, not a file format.
struct ConverterQuality: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "converters",
        abstract: "SNR against the ideal and in-memory speed of every engine at every quality (JSON).")

    @Option(help: "Seconds of the multi-tone signal each SNR is measured on (48 kHz stereo).")
    var seconds: Int = 20
    @Option(help: "Seconds converted in memory for each speed (the median of three runs).")
    var speedSeconds: Int = 60
    @Option(help: "Output length / input length.")
    var ratio: String = "0.999869"

    static let engines: [ResampleEngine] = [.polyphase, .soxr, .libsamplerate]
    static let bands: [Double] = [0.30, 0.40, 0.45]

    struct Measurement: Encodable {
        let engine: String
        let quality: String
        /// Highest tone as a fraction of the rate → SNR in dB.
        let snr: [String: Double]
        /// Seconds of audio converted per second on one core, median of three.
        let realtime: Double
    }

    struct Results: Encodable {
        let seconds: Int
        let speedSeconds: Int
        let ratio: String
        let channels: Int
        let measurements: [Measurement]
    }

    func run() throws {
        let factor = try Rational(parsing: ratio)
        let length = Int64(seconds) * 48_000
        guard let target = factor.multipliedRounded(by: length) else { throw ValidationError("bad ratio \(ratio)") }
        // One signal and one ideal per band, shared by every engine and quality.
        let signals = Self.bands.map {
            TestSignal(channelCount: 2, length: length, seed: 12, maxCyclesPerSample: $0)
        }
        let ideals = signals.map { $0.ideal(target: target, start: 0, count: Int(target)) }
        let speedInput = TestSignal(channelCount: 2, length: Int64(speedSeconds) * 48_000, seed: 13)
            .recording(start: 0, count: speedSeconds * 48_000)
        var measurements: [Measurement] = []
        for engine in Self.engines {
            for quality in ResampleQuality.allCases {
                var snr: [String: Double] = [:]
                for (index, band) in Self.bands.enumerated() {
                    let output = try convert(SignalSource(signals[index]), to: target, quality: quality, engine: engine)
                    snr[String(format: "%.2f", band)] = SignalMeasure.snr(actual: output, ideal: ideals[index])
                }
                let runs = try (0..<3).map { _ in
                    try speed(speedInput, seconds: speedSeconds, factor: factor, quality: quality, engine: engine)
                }
                measurements.append(
                    Measurement(
                        engine: engine.rawValue, quality: quality.rawValue, snr: snr,
                        realtime: runs.sorted()[1]))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let results = Results(
            seconds: seconds, speedSeconds: speedSeconds, ratio: ratio, channels: 2, measurements: measurements)
        print(String(decoding: try encoder.encode(results), as: UTF8.self))
    }

    private func convert(_ source: SignalSource, to target: Int64, quality: ResampleQuality, engine: ResampleEngine)
        throws -> [Float]
    {
        let stage = try ExactLengthResampler(upstream: source, targetFrames: target, quality: quality, engine: engine)
        let channels = source.channelCount
        var output = [Float](repeating: 0, count: Int(target) * channels)
        var produced = 0
        try output.withUnsafeMutableBufferPointer { all in
            guard let base = all.baseAddress else { return }
            while produced < Int(target) {
                let n = try stage.read(into: base + produced * channels, frames: min(8192, Int(target) - produced))
                if n == 0 { break }
                produced += n
            }
        }
        guard produced == Int(target) else {
            throw ValidationError("\(engine.rawValue) \(quality.rawValue): \(produced) frames for \(target)")
        }
        return output
    }

    /// Seconds of audio per wall second: the converter alone on samples already in memory.
    private func speed(
        _ samples: [Float], seconds: Int, factor: Rational, quality: ResampleQuality, engine: ResampleEngine
    ) throws -> Double {
        let frames = Int64(samples.count / 2)
        let target = factor.multipliedRounded(by: frames) ?? frames
        let stage = try ExactLengthResampler(
            upstream: MemoryAudioSource(samples, channels: 2), targetFrames: target, quality: quality, engine: engine)
        let block = 8192
        var out = [Float](repeating: 0, count: block * 2)
        let start = ContinuousClock.now
        try out.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            while try stage.read(into: base, frames: block) > 0 {}
        }
        return Double(seconds) / (ContinuousClock.now - start).seconds
    }
}
