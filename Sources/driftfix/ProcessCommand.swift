import ArgumentParser
import DriftKit
import Foundation
import Logging

/// `driftfix process`: repair one file.
struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Repair one recording to an exact length (and edit it), verify it, and write it atomically.",
        discussion: """
            The target length is one of --to-frames, --to-seconds, --match or --ratio (or --tempo, or none to keep \
            the duration). Resampling is the default repair: it restores length and pitch together, as a clock \
            fault needs. --method stretch (or a config rule) keeps the pitch instead, for audio at the right pitch \
            but the wrong length; --tempo always stretches.

            Operations run in one pass in this order: trim, reverse, length (resample or stretch), rate \
            conversion, fades. Trim points are input time; fade lengths are output time.

            The output is written to a hidden temporary file beside OUT, reopened to check its exact frame count \
            and format, and only then renamed to OUT; the temporary file is deleted on any error or signal. IN is \
            never modified and OUT may not be IN. An existing OUT is refused unless -y/--overwrite is given, and \
            only a regular file is ever replaced (never a device, FIFO, socket or symbolic link). OUT must be a \
            file: '-' (standard output) is refused, because the output counts only once it verified; write ./- for \
            a file named '-'.
            """
    )

    @Argument(help: "The recording to repair.")
    var input: String

    @Argument(help: "Where to write the result (a file; not '-').")
    var output: String

    @Flag(name: [.customShort("y"), .customLong("overwrite")], help: "Replace OUT if it exists (a regular file only).")
    var overwrite = false

    @Option(
        help: ArgumentHelp(
            "The file type to write, whatever OUT's extension: \(FileType.allCases.map(\.rawValue).joined(separator: ", ")) (default: OUT's extension; the input's without one).",
            valueName: "type"))
    var format: FileType?

    @Option(
        help: ArgumentHelp(
            "The sample encoding to write: \(SampleEncoding.names.keys.sorted().joined(separator: ", ")) (default: the input's where the format holds it).",
            valueName: "encoding"))
    var encoding: String?

    @OptionGroup(title: "Target length")
    var target: TargetOptions

    @OptionGroup(title: "Method")
    var method: MethodOptions

    @OptionGroup(title: "Editing")
    var edits: EditOptions

    @Option(
        parsing: .unconditional,
        help:
            "Threads for one long resample, cut at exact frame positions and joined as one pass would make it (default: every core)."
    )
    var threads: Int?

    @Flag(
        help:
            "Encode a long AAC output in segments of about a minute on --threads threads (each heard from 5.5 s earlier, joined between codec frames). Faster; on steady tones about 2 dB lower SNR than one pass at the same bit rate, as FFmpeg's encoder settles its rate over minutes."
    )
    var parallelEncode = false

    @Option(
        name: .customLong("block-frames"), parsing: .unconditional,
        help: ArgumentHelp("Frames per processing block.", visibility: .hidden))
    var blockFrames: Int = 8192

    @Option(
        help: ArgumentHelp(
            "Repair only this audio stream of a media file (its index, as ffprobe numbers streams); the others are copied. Default: every audio stream, by the same plan.",
            valueName: "index"))
    var stream: Int?

    @Flag(name: .shortAndLong, help: "Print nothing on success.")
    var quiet = false

    func validate() throws {
        for (name, path) in [("IN", input), ("OUT", output)] where path == "-" {
            throw ValidationError(
                """
                \(name) '-': standard \(name == "IN" ? "input" : "output") is not supported: driftfix \
                \(name == "IN" ? "reads files it can seek in" : "verifies the output by reopening it before it counts"); \
                give a file (./- for a file named '-')
                """)
        }
        if let encoding, SampleEncoding.names[encoding] == nil {
            throw ValidationError(
                "--encoding: '\(encoding)' is not one of: \(SampleEncoding.names.keys.sorted().joined(separator: ", "))"
            )
        }
        if method.tempo != nil && target.isGiven {
            throw ValidationError(
                "--tempo sets the length itself; do not combine it with --to-frames, --to-seconds, --match or --ratio")
        }
        if !target.isGiven && method.tempo == nil && edits.operations().isEmpty {
            throw ValidationError(
                "nothing to do: give a target length (--to-frames, --to-seconds, --match, --ratio), --tempo, or an edit"
            )
        }
        guard (64...1 << 20).contains(blockFrames) else { throw ValidationError("--block-frames must be 64...1048576") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be 1...256") }
    }

    func run() throws {
        // A signal must not leave the hidden temporary file behind.
        PendingOutputs.removeOnSignals(terminating: true)
        var request: ProcessRequest
        do {
            let configuration = try loadConfiguration(method.config)
            // The configuration's content.measure, followed or refused here: never ignored.
            if try bySound(configuration) { return try runBySound(configuration) }
            let policy = configuration.repair
            let type: FileType?
            do {
                // --format, then the config's process.format, then OUT's extension; without one, the input's type.
                type = try SingleFile.outputType(
                    for: Paths.given(output), chosen: format ?? configuration.process.format)
            } catch {
                throw ValidationError(
                    """
                    OUT \(error.path): cannot tell the file type from '.\(error.ext)' (driftfix writes \
                    \(error.known.map { "." + $0 }.joined(separator: ", "))); give --format
                    """)
            }
            request = ProcessRequest(
                input: Paths.given(input), output: Paths.given(output), target: try target.resolve(),
                tempo: try method.tempoValue(),
                method: method.choice(for: input, policy: policy), quality: method.quality ?? policy.quality,
                edits: edits.operations(), blockFrames: blockFrames, replacing: overwrite ? .regularFile : .never,
                outputType: type,
                outputEncoding: encoding.flatMap { SampleEncoding.names[$0] } ?? configuration.process.encoding)
            request.audioStream = stream
            request.threads = threads ?? Cores.available
            request.parallelEncode = parallelEncode
            request.engine = (method.engine ?? policy.engine(for: Paths.given(input))).engine(for: request.quality)
            request.stretch = method.stretchEngine ?? .default
        } catch let error as ValidationError {
            throw error
        } catch {
            throw failure(error)
        }
        let bar = ProgressBar(label: (input as NSString).lastPathComponent)
        do {
            let result = try SingleFile.repair(request) { done, total in bar.update(done: done, total: total) }
            bar.finish()
            let logger = Logger(label: "driftfix.process")
            for note in result.formatNotes { logger.warning("\(output): \(note)") }
            for warning in result.warnings { logger.warning("\(output): \(warning)") }
            if !quiet { print(Summary.line(for: result)) }
        } catch let error as AudioError where error.cause == .destinationExists {
            bar.finish()
            throw failure("\(error.path.pathText): already exists; give -y (--overwrite) to replace it")
        } catch let error as ProcessError {
            bar.finish()
            guard let plan = error.plan else { throw failure(error) }
            throw failure("\(error.path.pathText): \(Self.wording(plan, request: request))")
        } catch {
            bar.finish()
            throw failure(error)
        }
    }
}

extension ProcessCommand {
    /// A plan error in the words of this command's options.
    static func wording(_ error: PlanError, request: ProcessRequest) -> String {
        let option: String?
        switch error.field {
        case .trim: option = "--trim"
        case .tempo: option = "--tempo"
        case .fadeIn: option = "--fade-in"
        case .fadeOut: option = "--fade-out"
        case .rate: option = "--rate"
        case .target: option = nil
        case .operations: option = "content repair"
        case .stretch:
            // A stretch asked for on the command line, or by a rule of the configuration.
            option = request.method.byOption ? "--method stretch" : "stretch (\(request.method.reason))"
        }
        return option.map { "\($0): \(error.reason)" } ?? error.reason
    }

}

extension FileType: ExpressibleByArgument {}

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
        let ppm =
            (Double(result.outputFrames) * Double(result.inputFormat.sampleRate)
                / (Double(result.usedInputFrames) * Double(result.outputFormat.sampleRate)) - 1) * 1e6
        let seconds = result.elapsed.inSeconds
        let speed = seconds > 0 ? Double(result.outputFrames) / Double(result.outputFormat.sampleRate) / seconds : 0
        let input = result.input.pathText.escapedForTerminal
        let output = result.output.pathText.escapedForTerminal
        return "\(input) -> \(output): \(result.outputFormat), "
            + "\(result.inputFrames) -> \(result.outputFrames) frames (duration \(String(format: "%+.2f", ppm)) ppm), "
            + "\(result.method), verified, \(String(format: "%.2f", seconds)) s "
            + "(\(String(format: "%.0f", speed))x realtime)"
    }
}
