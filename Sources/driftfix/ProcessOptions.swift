import ArgumentParser
import DriftKit
import Foundation

extension ResampleQuality: ExpressibleByArgument {}
extension StretchChoice: ExpressibleByArgument {}
extension ResampleEngine: ExpressibleByArgument {}
extension EngineChoice: ExpressibleByArgument {}
extension RepairMethod: ExpressibleByArgument {}
extension FadeCurve: ExpressibleByArgument {}

/// `--to-frames`, `--to-seconds`, `--match`, `--ratio`: at most one.
struct TargetOptions: ParsableArguments {
    @Option(
        name: .customLong("to-frames"), parsing: .unconditional, help: "Target length in frames (at the output rate).")
    var toFrames: Int64?

    @Option(
        name: .customLong("to-seconds"), parsing: .unconditional,
        help: "Target length in seconds, exact decimal or fraction (3600.0375, 1001/30).")
    var toSeconds: String?

    @Option(
        name: .customLong("match"),
        help: ArgumentHelp("Take the target duration from this reference file (audio).", valueName: "ref"))
    var match: String?

    @Option(
        name: .customLong("ratio"), parsing: .unconditional,
        help: "Output duration / input duration, exact decimal or fraction (1.000131, 1001/1000).")
    var ratio: String?

    var isGiven: Bool { toFrames != nil || toSeconds != nil || match != nil || ratio != nil }

    func validate() throws {
        let given = [toFrames != nil, toSeconds != nil, match != nil, ratio != nil].filter { $0 }.count
        guard given <= 1 else {
            throw ValidationError("give at most one of --to-frames, --to-seconds, --match, --ratio")
        }
        if let toFrames, toFrames <= 0 { throw ValidationError("--to-frames must be at least 1, got \(toFrames)") }
        if let toSeconds { _ = try parsePositive(toSeconds, option: "--to-seconds") }
        if let ratio { _ = try parsePositive(ratio, option: "--ratio") }
    }

    /// The target, reading --match's reference header; nil when none was given.
    func resolve() throws -> TargetLength? {
        if let toFrames { return .frames(toFrames) }
        if let toSeconds { return .seconds(try parsePositive(toSeconds, option: "--to-seconds")) }
        if let ratio { return .ratio(try parsePositive(ratio, option: "--ratio")) }
        guard let match else { return nil }
        return try SingleFile.target(matching: Paths.given(match))
    }

    /// The length a reference asks for: an audio file's frames at its rate (libsndfile's header), a movie's video
    /// presentation duration (MP4/MOV boxes), or what FFmpeg reads from any other container.
}

struct MethodOptions: ParsableArguments {
    @Option(help: "How to change the length: resample (restores pitch; default) or stretch (keeps pitch).")
    var method: RepairMethod?

    @Option(
        parsing: .unconditional,
        help: "Play faster (2) or slower (0.5) keeping the pitch: a stretch to length / T. Range 0.5...2.")
    var tempo: String?

    @Option(help: "Resampler quality: best, medium or fast (default: medium, or the config's).")
    var quality: ResampleQuality?

    @Option(
        help:
            "Resampling engine: auto (default: polyphase, driftfix's own kernel, at medium and best; soxr at fast), polyphase, soxr or libsamplerate."
    )
    var engine: EngineChoice?

    @Option(
        help:
            "Stretch engine (--method stretch, --tempo): auto (default: the phase vocoder; WSOLA for sound with gaps, speech or a beat, shortened by up to a fifth or lengthened within 0.2 %, where it scored higher), vocoder or wsola."
    )
    var stretchEngine: StretchChoice?

    @Option(
        help: ArgumentHelp(
            "Configuration file (method rules, quality); default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    func validate() throws {
        if let tempo {
            let value = try parsePositive(tempo, option: "--tempo")
            guard !(value < Rational(1, 2)), !(Rational(2, 1) < value) else {
                throw ValidationError("--tempo must be within 0.5...2, got \(tempo)")
            }
            if method == .resample {
                throw ValidationError("--tempo keeps the pitch, so it always stretches; drop --method resample")
            }
        }
    }

    func tempoValue() throws -> Rational? {
        try tempo.map { try parsePositive($0, option: "--tempo") }
    }

    /// The repair policy from --config (or $DRIFTFIX_CONFIG), or the defaults.
    func policy() throws -> RepairPolicy {
        try loadConfiguration(config).repair
    }

    /// The method for `path`: --method wins, then the config's rules and default.
    func choice(for path: String, policy: RepairPolicy) -> MethodChoice {
        if let method { return MethodChoice(method: method, reason: "--method", byOption: true) }
        return policy.method(for: Paths.given(path))
    }
}

/// `--trim`, `--reverse`, `--fade-in`, `--fade-out`, `--fade-curve`, `--rate`.
struct EditOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Keep only START:END of the input: seconds (12.5) or frames (600000f); either side may be empty.",
            valueName: "start:end"))
    var trim: String?

    @Flag(help: "Reverse the samples (the file is read backwards in blocks).")
    var reverse = false

    @Option(
        name: .customLong("fade-in"), parsing: .unconditional,
        help: ArgumentHelp("Fade in over the first S seconds of the output.", valueName: "s"))
    var fadeIn: String?

    @Option(
        name: .customLong("fade-out"), parsing: .unconditional,
        help: ArgumentHelp("Fade out over the last S seconds of the output.", valueName: "s"))
    var fadeOut: String?

    @Option(name: .customLong("fade-curve"), help: "Fade shape: linear or equal-power.")
    var fadeCurve: FadeCurve = .linear

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Convert to this sample rate (libsamplerate).", valueName: "hz"))
    var rate: Int?

    func validate() throws {
        if let trim {
            do {
                _ = try TrimRange(parsing: trim)
            } catch {
                throw ValidationError("--trim: \(error)")
            }
        }
        for (option, value) in [("--fade-in", fadeIn), ("--fade-out", fadeOut)] {
            guard let value else { continue }
            let seconds: Rational
            do {
                seconds = try Rational(parsing: value)
            } catch {
                throw ValidationError("\(option): \(error)")
            }
            if seconds.numerator < 0 { throw ValidationError("\(option) must not be negative, got \(value)") }
        }
        if let rate, rate <= 0 { throw ValidationError("--rate must be greater than 0, got \(rate)") }
        if let rate, rate > 768_000 { throw ValidationError("--rate must be at most 768000 Hz, got \(rate)") }
    }

    /// The edits, already validated.
    func operations() -> EditOperations {
        EditOperations(
            trim: trim.flatMap { try? TrimRange(parsing: $0) },
            reverse: reverse,
            fadeIn: fadeIn.flatMap { try? Rational(parsing: $0) }.map { Fade(seconds: $0, curve: fadeCurve) },
            fadeOut: fadeOut.flatMap { try? Rational(parsing: $0) }.map { Fade(seconds: $0, curve: fadeCurve) },
            outputRate: rate)
    }
}
