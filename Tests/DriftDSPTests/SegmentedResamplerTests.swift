import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftDSP

/// The test signal as a file would give it: any frame, in any order (one per converting thread).
private final class SeekableSignal: SeekableAudioSource {
    let signal: TestSignal
    var position: Int64 = 0
    var channelCount: Int { signal.channelCount }
    var frameCount: Int64 { signal.length }
    /// Whether it reads into planes itself (as a reader of integer PCM does), never through the scratch.
    let readsPlanes: Bool

    init(_ signal: TestSignal, planes: Bool = false) {
        self.signal = signal
        readsPlanes = planes
    }

    func read(
        planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frames: Int,
        scratch: UnsafeMutablePointer<Float>
    ) throws -> Int {
        precondition(readsPlanes, "an interleaved source reads planes through the default")
        let count = Int(min(Int64(frames), frameCount - position))
        guard count > 0 else { return 0 }
        let samples = signal.recording(start: position, count: count)
        for frame in 0..<count {
            for channel in 0..<channelCount {
                planes[channel][offset + frame] = samples[frame * channelCount + channel]
            }
        }
        position += Int64(count)
        return count
    }

    func seek(toFrame frame: Int64) throws { position = frame }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let count = Int(min(Int64(frames), frameCount - position))
        guard count > 0 else { return 0 }
        let samples = signal.recording(start: position, count: count)
        buffer.update(from: samples, count: samples.count)
        position += Int64(count)
        return count
    }
}

/// The one-pass output and the segmented one, and the largest difference between them.
private func compare(
    _ signal: TestSignal, target: Int64, engine: ResampleEngine, quality: ResampleQuality, threads: Int,
    chunkFrames: Int?
) throws -> (segmented: [Float], worst: Float, worstFrame: Int)? {
    guard
        let segmented = SegmentedResampler.make(
            open: { SeekableSignal(signal) }, range: 0..<signal.length,
            channelCount: signal.channelCount, targetFrames: target, quality: quality,
            engine: engine, threads: threads, chunkFrames: chunkFrames)
    else { return nil }
    let split = try drain(segmented, blockFrames: 5003)
    let onePass = try drain(
        try ExactLengthResampler(
            upstream: SeekableSignal(signal), targetFrames: target, quality: quality,
            engine: engine), blockFrames: 4096)
    guard split.count == onePass.count else { return (split, .infinity, -1) }
    var worst: Float = 0
    var frame = 0
    for i in 0..<split.count where abs(split[i] - onePass[i]) > worst {
        worst = abs(split[i] - onePass[i])
        frame = i / signal.channelCount
    }
    return (split, worst, frame)
}

@Suite("Segmented resampling: one file on several threads, joined as one pass makes it")
struct SegmentedResamplerTests {
    @Test(
        "ratios that reduce to small fractions, cut at odd positions into chunks of 65537 on 3 threads: the exact length, the one-pass output at every frame (joins included) within float rounding, the ideal's SNR; 1, 2 and 6 channels",
        .enabled(if: SuiteTier.full, "full tier: 36 resamples at best quality, each against the ideal"),
        arguments: [
            ("pull-up 1001/1000", Int64(400_000), Int64(400_400)), ("+10%", 400_000, 440_000),
            ("44.1k to 48k", 441_000, 480_000), ("pull-down 1000/1001", 400_400, 400_000),
        ], ResampleEngine.allCases)
    func exactPhases(ratio: (String, Int64, Int64), engine: ResampleEngine) throws {
        for channels in [1, 2, 6] {
            let signal = TestSignal(channelCount: channels, length: ratio.1, seed: UInt64(channels + 40))
            let result = try #require(
                try compare(
                    signal, target: ratio.2, engine: engine, quality: .best, threads: 3,
                    chunkFrames: 65_537), "\(ratio.0): not cut")
            #expect(result.segmented.count == Int(ratio.2) * channels, "\(ratio.0), \(channels) ch")
            #expect(
                result.worst < 1e-6,
                "\(ratio.0), \(channels) ch, \(engine): \(result.worst) at frame \(result.worstFrame)")
            let ideal = signal.ideal(target: ratio.2, start: 0, count: Int(ratio.2))
            #expect(
                SignalMeasure.snr(actual: result.segmented, ideal: ideal) > 120, "\(ratio.0), \(channels) ch, \(engine)"
            )
        }
    }

    @Test(
        "polyphase chunks that read their input straight into the converter's planes: bit for bit the chunks that read it interleaved, the exact length, the ideal's SNR; 1, 2 and 6 channels, drift and pull-down, odd chunks",
        arguments: [("-131 ppm", Int64(1_000_003), Int64(1_000_003 - 131)), ("pull-down 1000/1001", 400_400, 400_000)])
    func planarReads(ratio: (String, Int64, Int64)) throws {
        for channels in [1, 2, 6] {
            let signal = TestSignal(channelCount: channels, length: ratio.1, seed: UInt64(channels + 70))
            func run(planes: Bool) throws -> [Float] {
                let segmented = SegmentedResampler.make(
                    open: { SeekableSignal(signal, planes: planes) }, range: 0..<signal.length,
                    channelCount: channels, targetFrames: ratio.2, quality: .medium, engine: .polyphase,
                    threads: 3, chunkFrames: 40_009)
                return try drain(try #require(segmented, "\(ratio.0): not cut"), blockFrames: 5003)
            }
            let planar = try run(planes: true)
            let interleaved = try run(planes: false)
            #expect(planar.count == Int(ratio.2) * channels, "\(ratio.0), \(channels) ch")
            #expect(planar == interleaved, "\(ratio.0), \(channels) ch")
            let ideal = signal.ideal(target: ratio.2, start: 0, count: Int(ratio.2))
            #expect(SignalMeasure.snr(actual: planar, ideal: ideal) > 110, "\(ratio.0), \(channels) ch")
        }
    }

    @Test(
        "one pass reading its input straight into the converter's planes (a file, a trim of it, a wandering clock's warp): bit for bit the pass that reads it interleaved; 1, 2 and 6 channels"
    )
    func onePassPlanarReads() throws {
        for channels in [1, 2, 6] {
            let length: Int64 = 300_007
            let signal = TestSignal(channelCount: channels, length: length, seed: UInt64(channels + 90))
            let knots = [
                WarpKnot(input: 0, output: 0), WarpKnot(input: 100_000, output: 99_990),
                WarpKnot(input: length, output: length - 41),
            ]
            func run(planes: Bool, _ make: (SeekableSignal) throws -> AudioSource) throws -> [Float] {
                try drain(try make(SeekableSignal(signal, planes: planes)), blockFrames: 3001)
            }
            let cases: [(String, (SeekableSignal) throws -> AudioSource)] = [
                (
                    "-131 ppm",
                    {
                        try ExactLengthResampler(
                            upstream: $0, targetFrames: length - 39, quality: .medium, engine: .polyphase)
                    }
                ),
                (
                    "+10 %",
                    {
                        try ExactLengthResampler(
                            upstream: $0, targetFrames: length * 11 / 10, quality: .fast, engine: .polyphase)
                    }
                ),
                (
                    "a trim",
                    {
                        try ExactLengthResampler(
                            upstream: TrimmedSource($0, range: 1_234..<250_000), targetFrames: 248_700, quality: .best,
                            engine: .polyphase)
                    }
                ),
                (
                    "a warp",
                    {
                        try ExactLengthResampler(
                            upstream: $0, targetFrames: length - 41, quality: .medium, along: knots)
                    }
                ),
            ]
            for (name, make) in cases {
                let planar = try run(planes: true, make)
                let interleaved = try run(planes: false, make)
                #expect(!planar.isEmpty && planar == interleaved, "\(name), \(channels) ch")
            }
        }
    }

    @Test(
        "clock drift of -131 ppm over 2.6 M frames in default chunks on 2 threads: the one-pass output within 10⁻⁵ at every frame, the ideal's SNR around every join",
        arguments: ResampleEngine.allCases)
    func clockDrift(engine: ResampleEngine) throws {
        let length: Int64 = 2_600_017
        let target = length - 341  // -131 ppm
        let signal = TestSignal(channelCount: 2, length: length, seed: 9, tonesPerChannel: 6)
        let result = try #require(
            try compare(signal, target: target, engine: engine, quality: .medium, threads: 2, chunkFrames: nil))
        #expect(result.segmented.count == Int(target) * 2)
        #expect(result.worst < 1e-5, "\(engine): \(result.worst) at frame \(result.worstFrame)")
        // Around each join (chunks of 2^20 frames for stereo, begun up to three quarters of a chunk earlier): the ideal.
        for cut in [1, 2] {
            let join = SegmentedResampler.start(
                before: Int64(cut << 20) - 1, inputFrames: length, targetFrames: target,
                search: 3 << 18)
            let window = 1 << 18
            let start = Int(join.output + 8192) - window / 2
            let ideal = signal.ideal(target: target, start: Int64(start), count: window)
            let actual = Array(result.segmented[(start * 2)..<((start + window) * 2)])
            #expect(SignalMeasure.snr(actual: actual, ideal: ideal) > 100, "around cut \(cut), \(engine)")
        }
    }

    @Test(
        "a ratio whose chunks cannot start near the one-pass phase (1 ppm with default chunks) is not cut: the one pass does it"
    )
    func declines() {
        let signal = TestSignal(channelCount: 2, length: 172_812_345, seed: 1, tonesPerChannel: 1)
        #expect(
            SegmentedResampler.make(
                open: { SeekableSignal(signal) }, range: 0..<signal.length, channelCount: 2,
                targetFrames: 172_812_345 - 173, quality: .medium, engine: .soxr, threads: 2) == nil)
        #expect(
            SegmentedResampler.make(
                open: { SeekableSignal(signal) }, range: 0..<1000, channelCount: 2,
                targetFrames: 1001, quality: .medium, engine: .soxr, threads: 2) == nil, "too short")
    }

    @Test(
        "a chunk's start: the output frame whose input position is nearest a whole frame (against a brute-force search of the window) and its distance (in exact decimal arithmetic), for a 10-hour file at 1 ppm and ratios with small and large denominators"
    )
    func phaseSearch() {
        let cases: [(n: Int64, t: Int64)] = [
            (1_728_000_000, 1_728_001_728), (172_800_000, 172_777_363), (48_000, 48_048),
            (28_800_000, 28_796_227), (1000, 1001),
        ]
        for (n, t) in cases {
            for latest in [t / 3, t / 2 + 17, t - 5] {
                let start = SegmentedResampler.start(before: latest, inputFrames: n, targetFrames: t, search: 1 << 19)
                #expect(start.output <= latest && start.output > latest - (1 << 19))
                // |s − m·N/T| in input frames, in 38-digit decimal arithmetic.
                let exact = Decimal(start.output) * Decimal(n) / Decimal(t)
                let error = abs(NSDecimalNumber(decimal: Decimal(start.input) - exact).doubleValue)
                #expect(
                    abs(error - start.error) < 1e-9 && error < 0.5,
                    "N \(n), T \(t): output \(start.output), input \(start.input), off \(error)")
                // Nearest: every output frame of the window tried by brute force, each product in 128-bit integers
                // (not the search's stepped remainders), the first of the nearest chosen.
                let first = max(0, latest - (1 << 19) + 1)
                var nearest = (output: first, distance: Int128.max)
                for m in first...latest {
                    let remainder = (Int128(m) * Int128(n)) % Int128(t)
                    let distance = min(remainder, Int128(t) - remainder)
                    if distance < nearest.distance { nearest = (m, distance) }
                }
                #expect(
                    start.output == nearest.output,
                    "N \(n), T \(t), latest \(latest): chose \(start.output), the nearest is \(nearest.output)")
                #expect(abs(start.error - Double(nearest.distance) / Double(t)) < 1e-12)
            }
        }
    }
}
