import ArgumentParser
import DriftKit
import Foundation

/// `driftfix verify`: reopen a file and check its exact length, and/or prove it in sync with a reference's sound.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Check a file's exact length (--frames, --match) and/or its sync against a reference's sound (--sync).",
        discussion: """
            With --match, the expected count is the reference's duration at FILE's sample rate, rounded to the nearest \
            frame. Compressed audio (AAC, Opus... in M4A, MP4, MKV, WebM) is decoded and counted, never taken from a header.

            With --sync, FILE is correlated with REF's own sound, window by window across the whole file, and the worst \
            lag left (windows smoothed over about 7 s) is held to --limit-ms (or to the sound's own precision where that \
            is coarser). --offset-ms is the lag FILE should have (0: it starts with the reference). --format json prints \
            the residual and the per-window curve. Exit 0 when every check passes, 1 when one does not (or a file cannot \
            be read), 2 for usage errors.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "The audio or media file to check (its first audio stream).")
    var file: String

    @Option(parsing: .unconditional, help: "The expected frame count.")
    var frames: Int64?

    @Option(
        name: .customLong("match"),
        help: ArgumentHelp(
            "Expect the duration of this reference file (audio, or a video's picture).", valueName: "ref"))
    var match: String?

    @Option(
        name: .customLong("sync"),
        help: ArgumentHelp("Prove FILE in sync with this reference's sound.", valueName: "ref"))
    var sync: String?

    @Option(
        name: .customLong("offset-ms"), parsing: .unconditional,
        help: "With --sync: the lag FILE should have, ms (default 0).")
    var offsetMs: Double = 0

    @Option(
        name: .customLong("limit-ms"), parsing: .unconditional,
        help: "With --sync: the largest residual lag allowed, ms (default 1).")
    var limitMs: Double = 1

    @Option(help: "text (default) or json (with --sync: the residual and its curve).")
    var format: Format = .text

    func validate() throws {
        guard frames == nil || match == nil else { throw ValidationError("give at most one of --frames, --match") }
        guard frames != nil || match != nil || sync != nil else {
            throw ValidationError("give --frames, --match or --sync")
        }
        if let frames, frames < 0 { throw ValidationError("--frames must not be negative") }
        guard limitMs > 0 else { throw ValidationError("--limit-ms must be positive") }
    }

    func run() throws {
        var passed = true
        do {
            let expectation =
                frames.map { SingleFile.LengthExpectation.frames($0) } ?? match.map { .duration(of: Paths.given($0)) }
            if let expectation {
                let (found, expected) = try SingleFile.length(of: Paths.given(file), expecting: expectation)
                let difference = found - expected
                passed = difference == 0
                if format == .text {
                    print(
                        "\(file): \(found) frames found, \(expected) expected, difference \(difference): \(passed ? "OK" : "MISMATCH")"
                    )
                }
            }
            if let sync {
                let verification = try SingleFile.verifySync(
                    output: Paths.given(file), reference: Paths.given(sync),
                    expectedOffset: .milliseconds(offsetMs), limit: .milliseconds(limitMs))
                passed = passed && verification.passed
                switch format {
                case .text: print(ContentText.verification(verification, file: file))
                case .json: FileHandle.standardOutput.write(try ContentText.json(verification) + Data("\n".utf8))
                }
            }
        } catch {
            throw failure(error)
        }
        if !passed { throw ExitCode(ExitStatus.failure) }
    }
}
