import ArgumentParser
import DriftCore
import DriftPipeline
import Foundation

/// `driftfix measure`: the drift of one pair measured from the sound (start offset, rate, dropouts).
struct MeasureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Measure a recording against its reference's own sound: start offset, drift, dropouts, confidence.",
        discussion: """
            REFERENCE must have sound of its own: an audio file, another recorder, or a video whose audio track \
            heard the same scene (a camera's scratch track). Both are decoded and correlated; nothing is written.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    @Argument(help: "The recording.") var recording: String
    @Argument(help: "The reference (its audio is the truth).") var reference: String
    @Option(help: "table (default on a terminal) or json.") var format: Format?

    func run() throws {
        let clock = ContinuousClock.now
        let m: ContentMeasurement
        do {
            m = try ContentProbe.measure(recording: recording, reference: reference)
        } catch {
            throw failure(error)
        }
        let seconds = (ContinuousClock.now - clock)
        switch format ?? (isatty(STDOUT_FILENO) == 1 ? .table : .json) {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write((try? encoder.encode(m)) ?? Data())
            print("")
        case .table:
            print("model \(m.model.rawValue) confidence \(m.confidence) offset \(m.offsetMs ?? .nan) ms drift \(m.driftPPM ?? .nan) ± \(m.driftPPMError ?? .nan) ppm")
            for d in m.dropouts { print("dropout at \(d.atSeconds) s: \(d.missingMs) ms ±\(d.uncertaintyMs) ms") }
            print("\(seconds)")
        }
    }
}
