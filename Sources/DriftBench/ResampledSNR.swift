import ArgumentParser
import DriftAudio
import DriftCore
import Foundation

/// SNR of a resampled `driftfix-bench generate` recording against the signal it should have become: the same tones
/// at frequency × input / output, computed analytically (no resampler involved), over the whole file, in one pass.
/// Prints `SNR lagStart lagEnd framesOff`: the SNR against the ideal as it is (a timing error is an error), the lag over the first and the last 10 s (in frames, from the lowest tone's phase), and how many frames the file is
/// off its exact target. For any tool's output (driftfix, sox, ffmpeg).
struct ResampledSNR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snr", abstract: "SNR of a resampled multi-tone file against the ideal.")

    @Argument(help: "The resampled file.")
    var output: String
    @Option(help: "Frames of the generated input.") var inputFrames: Int64
    @Option(help: "The exact target length (frames).") var targetFrames: Int64
    @Option(help: "Frames left out at each end (a tool's edge effects are not what this measures).") var edge: Int64 =
        4800

    func run() throws {
        let reader = try AudioFileReader(path: output)
        let channels = reader.channelCount
        // Output frame k stands for input position k × input / target.
        let step = Double(inputFrames) / Double(targetFrames)
        let lastFrame = min(reader.frameCount, targetFrames) - edge
        let lagStart = try lag(reader, at: edge, step: step)
        let lagEnd = try lag(reader, at: lastFrame - 480_000, step: step)
        try reader.seek(toFrame: 0)
        let block = 65_536
        var buffer = [Float](repeating: 0, count: block * channels)
        var signal = 0.0
        var noise = 0.0
        var position: Int64 = 0
        let end = min(reader.frameCount, targetFrames) - edge
        while position < end {
            let n = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: block) }
            if n == 0 { break }
            var ideal = [Double](repeating: 0, count: n * channels)
            for (t, tone) in Generate.tones.enumerated() {
                // Exact phase at the block start (cycles wrapped in Double), then a rotating phasor.
                let start = tone.cycles * step * Double(position)
                let phase = 2 * Double.pi * (start - start.rounded(.down))
                var (re, im) = (cos(phase), sin(phase))
                let delta = 2 * Double.pi * tone.cycles * step
                let (stepRe, stepIm) = (cos(delta), sin(delta))
                for i in 0..<n {
                    for c in 0..<channels {
                        ideal[i * channels + c] += (c % 2 == t % 2 ? 1 : 0.5) * tone.amplitude * im
                    }
                    (re, im) = (re * stepRe - im * stepIm, re * stepIm + im * stepRe)
                }
            }
            for i in 0..<n {
                let frame = position + Int64(i)
                guard frame >= edge && frame < end else { continue }
                for c in 0..<channels {
                    let x = ideal[i * channels + c]
                    let e = Double(buffer[i * channels + c]) - x
                    signal += x * x
                    noise += e * e
                }
            }
            position += Int64(n)
        }
        let snr = noise > 0 ? 10 * log10(signal / noise) : .infinity
        print(String(format: "%.1f %+.4f %+.4f %lld", snr, lagStart, lagEnd, reader.frameCount - targetFrames))
    }

    /// The lag (frames; positive: the file is late) of channel 0 against the ideal over ten seconds from `start`,
    /// from the phase of the lowest tone over 10 s (period about 109 frames, so lags within ±54 frames are seen).
    private func lag(_ reader: AudioFileReader, at start: Int64, step: Double) throws -> Double {
        let frames = 480_000
        try reader.seek(toFrame: start)
        var buffer = [Float](repeating: 0, count: frames * reader.channelCount)
        let n = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: frames) }
        let cycles = Generate.tones[0].cycles * step
        var (s, c) = (0.0, 0.0)
        for i in 0..<n {
            let phase = 2 * Double.pi * cycles * Double(start + Int64(i))
            let x = Double(buffer[i * reader.channelCount])
            s += x * sin(phase)
            c += x * cos(phase)
        }
        // x ≈ a·sin(θ − 2π·cycles·lag): the phase behind the ideal's, in frames.
        return -atan2(c, s) / (2 * Double.pi * cycles)
    }
}
