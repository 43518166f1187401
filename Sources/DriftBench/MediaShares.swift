import ArgumentParser
import DriftAV
import DriftAudio
import DriftCore
import DriftDSP
import Foundation

/// Where the time of a compressed repair goes: each phase of `driftfix process IN.m4a OUT.m4a` run alone, on one core.
struct MediaShares: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Time the phases of a compressed-audio repair: count, decode, resample, encode, verify.")

    @Argument(help: "A compressed recording (AAC in .m4a, say).")
    var input: String
    @Option(help: "Output length / input length.")
    var ratio: String = "0.999869"
    @Option(help: "Converter quality.")
    var quality: String = "medium"
    @Option(help: "Where to write the encoded output (removed afterwards).")
    var output: String

    func run() throws {
        guard let quality = ResampleQuality(rawValue: quality) else { throw ValidationError("bad quality") }
        func timed(_ body: () throws -> Void) rethrows -> Double {
            let start = ContinuousClock.now
            try body()
            return (ContinuousClock.now - start).seconds
        }
        var reader: EncodedAudioReader?
        let count = try timed { reader = try EncodedAudioReader(path: input) }
        guard let reader else { return }
        let block = 8192
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * reader.channelCount)
        defer { buffer.deallocate() }
        func drainAll(_ source: AudioSource) throws {
            while try source.read(into: buffer, frames: block) > 0 {}
        }
        let decode = try timed { try drainAll(reader) }
        let target = try Rational(parsing: ratio).multipliedRounded(by: reader.frameCount) ?? reader.frameCount
        let decodeAndResample = try timed {
            let fresh = try EncodedAudioReader(path: input)
            try drainAll(
                try ExactLengthResampler(upstream: fresh, targetFrames: target, quality: quality, blockFrames: block))
        }
        unlink(output)
        // Encoding alone: the rewriter fed from a block of the decoded signal over and over (no decoding behind it).
        let encode = try timed {
            let writer = try MediaRewriter(
                input: input, stream: reader.stream.index, path: output, displayPath: output,
                sampleRate: reader.sampleRate, targetFrames: target)
            let again = try EncodedAudioReader(path: input)
            _ = try again.read(into: buffer, frames: block)
            var written: Int64 = 0
            while written < target {
                let n = Int(min(Int64(block), target - written))
                try writer.write(buffer, frames: n)
                written += Int64(n)
            }
            try writer.close()
        }
        let verify = try timed {
            _ = try MediaVerifier.verify(
                output: output, displayPath: output, audioStream: 0, expectedFrames: target,
                expectedRate: reader.sampleRate, input: input, copied: [:])
        }
        unlink(output)
        let resample = max(0, decodeAndResample - decode)
        let total = count + decode + resample + encode + verify
        let audio = Double(reader.frameCount) / Double(reader.sampleRate)
        for (name, seconds) in [
            ("count (decode pass 1)", count), ("decode (pass 2)", decode), ("resample", resample),
            ("encode + mux", encode), ("verify (decode and count)", verify),
        ] {
            print(
                name.padding(toLength: 28, withPad: " ", startingAt: 0)
                    + String(format: " %8.2f s %6.1f%% %9.1f xRT", seconds, 100 * seconds / total, audio / seconds))
        }
        print(
            "sum of phases".padding(toLength: 28, withPad: " ", startingAt: 0)
                + String(format: " %8.2f s %6.1f%% %9.1f xRT", total, 100.0, audio / total))
    }
}
