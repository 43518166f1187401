import ArgumentParser
import DriftKit
import Foundation

/// `driftfix measure`: one pair's drift measured from the sound (start offset, rate, dropouts).
struct MeasureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Measure a recording against its reference's own sound: start offset, drift, dropouts, confidence.",
        discussion: """
            REFERENCE must have sound of its own: an audio file, another recorder, or a video whose audio track heard \
            the same scene (a camera's scratch track). Both are decoded and correlated, here, in one pass each; nothing \
            is written. The offset is the reference time of the recording's first frame (positive: it started after \
            the reference); the drift is (recording / reference − 1) × 10⁶, as scan reports it, with its 95 % interval; \
            the model is clock (lag grows linearly), dropouts (lag grows in steps, each placed and sized), in-sync, or \
            unmeasurable (no common sound, silence, a repeating sound, a wrong pairing) with the reason.

            --format json prints the measurement object that reports carry as `content` (with the lag curve). \
            Method, accuracy and limits: docs/measuring-by-sound.md. Exit code: 0 measured, 1 unmeasurable or a file that cannot be read, 2 usage errors.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    @Argument(help: "The recording.") var recording: String
    @Argument(help: "The reference (its sound is the truth).") var reference: String
    @Option(help: "table (default on a terminal) or json.") var format: Format?

    func run() throws {
        let m: ContentMeasurement
        do {
            m = try SingleFile.measure(recording: Paths.given(recording), reference: Paths.given(reference))
        } catch {
            throw failure(error)
        }
        switch format ?? (isatty(STDOUT_FILENO) == 1 ? .table : .json) {
        case .json:
            FileHandle.standardOutput.write(try ContentText.json(m) + Data("\n".utf8))
        case .table:
            print(ContentText.table(m, recording: recording, reference: reference))
        }
        if !m.isMeasured { throw ExitCode(ExitStatus.failure) }
    }
}
