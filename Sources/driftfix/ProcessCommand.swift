import ArgumentParser
import DriftAudio
import DriftCore
import DriftPipeline
import Foundation
import Logging

extension ResampleQuality: ExpressibleByArgument {}

/// `driftfix process`: repair one file to an exact length.
struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Resample one recording to an exact length, verify it, and write it atomically.",
        discussion: """
            Exactly one of --to-frames, --to-seconds, --match or --ratio sets the target length. The output keeps \
            the input's container, sample format, rate, channels and metadata; it is written to a hidden temporary \
            file beside OUT, reopened to check its exact frame count and format, and only then renamed to OUT. \
            IN is never modified, and OUT may not be IN.
            """
    )

    @Argument(help: "The recording to repair.")
    var input: String

    @Argument(help: "Where to write the repaired recording.")
    var output: String

    @Option(name: .customLong("to-frames"), help: "Target length in frames.")
    var toFrames: Int64?

    @Option(name: .customLong("to-seconds"), help: "Target length in seconds, exact decimal or fraction (3600.0375, 1001/30).")
    var toSeconds: String?

    @Option(name: .customLong("match"), help: ArgumentHelp("Take the target duration from this reference file (audio).", valueName: "ref"))
    var match: String?

    @Option(name: .customLong("ratio"), help: "Output length / input length, exact decimal or fraction (1.000131, 1001/1000).")
    var ratio: String?

    @Option(help: "Converter quality: best, medium or fast.")
    var quality: ResampleQuality = .default

    @Option(name: .customLong("block-frames"), help: ArgumentHelp("Frames per processing block.", visibility: .hidden))
    var blockFrames: Int = 8192

    @Flag(name: .shortAndLong, help: "Print nothing on success.")
    var quiet = false

    func validate() throws {
        let given = [toFrames != nil, toSeconds != nil, match != nil, ratio != nil].filter { $0 }.count
        guard given == 1 else {
            throw ValidationError("give exactly one of --to-frames, --to-seconds, --match, --ratio")
        }
        if let toFrames, toFrames <= 0 { throw ValidationError("--to-frames must be at least 1") }
        if let toSeconds { _ = try parsePositive(toSeconds, option: "--to-seconds") }
        if let ratio { _ = try parsePositive(ratio, option: "--ratio") }
        guard (64...1 << 20).contains(blockFrames) else { throw ValidationError("--block-frames must be 64...1048576") }
    }

    func run() throws {
        let target: TargetLength
        do {
            target = try resolveTarget()
        } catch {
            throw failure(error)
        }
        let request = ProcessRequest(
            input: input, output: output, target: target, quality: quality, blockFrames: blockFrames)
        let bar = ProgressBar(label: (input as NSString).lastPathComponent)
        do {
            let result = try FileProcessor.run(request) { done, total in bar.update(done: done, total: total) }
            bar.finish()
            let logger = Logger(label: "driftfix.process")
            let (inExt, outExt) = ((input as NSString).pathExtension, (output as NSString).pathExtension)
            if inExt.lowercased() != outExt.lowercased() {
                logger.warning("\(output): written as \(result.outputFormat.container) like the input, whatever its extension")
            }
            for item in result.droppedMetadata {
                logger.warning("\(output): \(result.outputFormat.container) cannot hold \(item); not carried over")
            }
            if !quiet { print(Summary.line(for: result)) }
        } catch {
            bar.finish()
            throw failure(error)
        }
    }

    private func resolveTarget() throws -> TargetLength {
        if let toFrames { return .frames(toFrames) }
        if let toSeconds { return .seconds(try parsePositive(toSeconds, option: "--to-seconds")) }
        if let ratio { return .ratio(try parsePositive(ratio, option: "--ratio")) }
        guard let match else { preconditionFailure("validate() guarantees one target option") }
        let reference = try AudioFileReader(path: match)
        return .duration(frames: reference.frameCount, sampleRate: reference.format.sampleRate)
    }
}

/// Parses an exact positive number for `option`, or explains what is wrong with it.
func parsePositive(_ text: String, option: String) throws -> Rational {
    let value: Rational
    do {
        value = try Rational(parsing: text)
    } catch {
        throw ValidationError("\(option): \(error)")
    }
    guard value.numerator > 0 else { throw ValidationError("\(option) must be greater than 0, got \(text)") }
    return value
}

/// The one-line account of a finished repair.
enum Summary {
    static func line(for result: ProcessResult) -> String {
        let ppm = (Double(result.outputFrames) / Double(result.inputFrames) - 1) * 1e6
        let speed = result.seconds > 0
            ? Double(result.outputFrames) / Double(result.outputFormat.sampleRate) / result.seconds : 0
        return "\(result.input) -> \(result.output): \(result.outputFormat), "
            + "\(result.inputFrames) -> \(result.outputFrames) frames (\(String(format: "%+.2f", ppm)) ppm), "
            + "\(result.method), verified, \(String(format: "%.2f", result.seconds)) s "
            + "(\(String(format: "%.0f", speed))x realtime)"
    }
}
