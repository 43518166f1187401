import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftDSP

private let cpuFlags: Set<Substring> = {
    let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = info.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
    return Set(line.split(separator: " "))
}()
private let avx512 = cpuFlags.contains("avx512f") && ProcessInfo.processInfo.environment["DRIFTFIX_NO_AVX512"] == nil

/// The kernel's loops: the one chosen is the widest the CPU has (read from /proc/cpuinfo, not from the kernel's own
/// probe), and each wide loop, forced, runs and writes the 8-lane loop's output bit for bit.
@Suite("Polyphase kernel loops: the widest the CPU has runs, and the wide loops agree bit for bit")
struct PolyphaseLoopTests {
    /// The whole of `input` through a converter confined to `loop`, and the loop it reported.
    static func convert(
        _ input: [Float], channels: Int, to target: Int64, quality: ResampleQuality,
        loop: PolyphaseResampler.Loop
    ) throws -> (output: [Float], ran: PolyphaseResampler.Loop?) {
        let frames = Int64(input.count / channels)
        let converter = try PolyphaseResampler(
            filter: PolyphaseFilter.make(quality: quality, ratio: Double(target) / Double(frames)),
            channelCount: channels, inputFrames: frames, outputFrames: target)
        converter.loop = loop
        var output = [Float](repeating: .nan, count: Int(target) * channels)
        var read = 0
        var made = 0
        while made < Int(target) {
            let (used, generated) = try input.withUnsafeBufferPointer { source in
                try output.withUnsafeMutableBufferPointer { sink in
                    try converter.process(
                        input: source.baseAddress! + read * channels, inputFrames: min(1000, Int(frames) - read),
                        output: sink.baseAddress! + made * channels, outputFrames: min(777, Int(target) - made),
                        endOfInput: read + 1000 >= Int(frames))
                }
            }
            read += used
            made += generated
            if used == 0 && generated == 0 { break }
        }
        #expect(made == Int(target))
        return (output, converter.ran)
    }

    @Test("the widest loop chosen is the widest /proc/cpuinfo lists")
    func widest() {
        let expected: PolyphaseResampler.Loop =
            avx512 ? .sixteenLanes : cpuFlags.contains("avx2") && cpuFlags.contains("fma") ? .eightLanes : .portable
        #expect(PolyphaseResampler.Loop.widest == expected)
    }

    @Test(
        "16 lanes and 8 lanes write the same bits; the portable loop agrees within float rounding",
        arguments: [
            (2, ResampleQuality.fast, 0.999_869), (2, .medium, 0.999_869), (2, .best, 1.002), (1, .medium, 0.98),
            (2, .fast, 0.99), (3, .medium, 0.999_869),
        ])
    func agree(channels: Int, quality: ResampleQuality, ratio: Double) throws {
        var random = SplitMix64(seed: ratio.bitPattern ^ UInt64(channels))
        let frames = 30_000
        let input = (0..<frames * channels).map { _ in Float(random.nextUnit() * 2 - 1) * 0.5 }
        let target = Int64((Double(frames) * ratio).rounded())
        let eight = try Self.convert(input, channels: channels, to: target, quality: quality, loop: .eightLanes)
        let portable = try Self.convert(input, channels: channels, to: target, quality: quality, loop: .portable)
        #expect(portable.ran == .portable)
        let widest = PolyphaseResampler.Loop.widest
        #expect(eight.ran == min(widest, .eightLanes))
        let largest = zip(eight.output, portable.output).map { abs($0 - $1) }.max() ?? .infinity
        #expect(largest < 1e-5, "portable against 8 lanes: \(largest)")
        let sixteen = try Self.convert(input, channels: channels, to: target, quality: quality, loop: .sixteenLanes)
        // Sixteen lanes take one or two channels; three go through the 8-lane loop.
        #expect(sixteen.ran == (channels <= 2 ? widest : min(widest, .eightLanes)))
        let bits = { (samples: [Float]) in samples.map(\.bitPattern) }
        #expect(bits(sixteen.output) == bits(eight.output), "\(channels) ch, \(quality), ratio \(ratio)")
    }
}
