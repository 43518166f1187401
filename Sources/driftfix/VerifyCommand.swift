import ArgumentParser
import DriftAudio
import DriftCore
import DriftPipeline
import Foundation

/// `driftfix verify`: reopen a file and check its exact length.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that a file has exactly the expected number of frames (exit 0 if so, 1 if not).",
        discussion: """
            With --match, the expected count is the reference's duration at FILE's sample rate, rounded to the nearest \
            frame. Compressed audio (AAC, Opus... in M4A, MP4, MKV, WebM) is decoded and counted, never taken from a header.
            """
    )

    @Argument(help: "The audio or media file to check (its first audio stream).")
    var file: String

    @Option(parsing: .unconditional, help: "The expected frame count.")
    var frames: Int64?

    @Option(name: .customLong("match"), help: ArgumentHelp("Expect the duration of this reference file (audio, or a video's picture).", valueName: "ref"))
    var match: String?

    func validate() throws {
        guard (frames != nil) != (match != nil) else { throw ValidationError("give exactly one of --frames, --match") }
        if let frames, frames < 0 { throw ValidationError("--frames must not be negative") }
    }

    func run() throws {
        do {
            let (found, rate) = try MediaRoute.frames(of: file)
            let expected: Int64
            if let frames {
                expected = frames
            } else if let match {
                expected = try TargetOptions.target(matching: match).resolve(inputFrames: found, sampleRate: rate)
            } else {
                preconditionFailure("validate() guarantees --frames or --match")
            }
            let difference = found - expected
            let verdict = difference == 0 ? "OK" : "MISMATCH"
            print("\(file): \(found) frames found, \(expected) expected, difference \(difference): \(verdict)")
            if difference != 0 { throw ExitCode(ExitStatus.failure) }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw failure(error)
        }
    }
}
