import ArgumentParser
import DriftKit
import Foundation
import Logging

/// `driftfix scan`: measure the drift of every pair under the roots, touching nothing.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Pair recordings with their references, measure drift, name its cause and plan the repair.",
        discussion: """
            Reads headers only (MP4/MOV boxes, audio headers, sidecar .duration files) and changes nothing. \
            Pairing, tolerance and limits come from the configuration (see config/driftfix.yaml). \
            Exit code: 0 when every pair was measured, 1 when any pair or folder could not be read or was \
            refused, 2 for usage or configuration errors.

            With --content, each pair whose reference has sound of its own is also measured by its sound - start \
            offset, drift with its uncertainty, dropouts, confidence, and whether the headers agree - on worker \
            processes (local ones by default, or remote ones on --bind), where the files are; nothing is written. \
            Each row then carries a `content` object and what the content policy would do.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv
    }

    @Argument(help: "Folders to scan (recursively).")
    var roots: [String]

    @Option(help: ArgumentHelp("Configuration file; default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    @Option(help: "Output on stdout: table (default on a terminal), json or csv (default otherwise: json).")
    var format: Format?

    @Option(
        help: ArgumentHelp("Also write report.json, report.csv and report.html into this folder.", valueName: "dir"))
    var report: String?

    @Flag(help: "Also measure each pair by its sound (on workers); see below.")
    var content = false

    @Option(
        help:
            "name (default), sound or name-then-sound: with sound, clips are found in recordings by what they heard and listed as `driftfix sync` lists them (default: the configuration's scan.pair-by)."
    )
    var pairBy: PairBy?

    @OptionGroup(title: "Workers (with --content, or pairing by sound)")
    var dispatch: DispatchOptions

    @OptionGroup(title: "Timeline (pairing by sound)")
    var timeline: TimelineOptions

    func run() async throws {
        var scan = Run.Scan(roots: RunCommand.roots(roots), configuration: try loadConfiguration(config))
        scan.configurationPath = config.map(Paths.file)
        scan.pairBy = pairBy
        scan.measureContent = content
        scan.work = try dispatch.work(configuration: scan.configuration, configPath: config)
        scan.timeline = timeline.file
        let logger = Logger(label: "driftfix.scan")
        let outcome = try await RunCommand.run(scan.settings, logger: logger, observer: RepairProgress(logger: logger))
        let result = outcome.report
        let absoluteRoots = scan.roots.map(\.pathText)
        let chosen = format ?? (isatty(STDOUT_FILENO) == 1 ? .table : .json)
        switch chosen {
        case .table: print(ReportTable.render(result, relativeTo: absoluteRoots.count == 1 ? absoluteRoots[0] : nil))
        case .json:
            try ReportWriter.writeJSON(result) { FileHandle.standardOutput.write($0) }
            FileHandle.standardOutput.write(Data("\n".utf8))
        case .csv: ReportWriter.writeCSV(result) { FileHandle.standardOutput.write(Data($0.utf8)) }
        }
        fflush(nil)  // the table or JSON first, then the note on stderr
        if let report { try writeReportFolder(result, to: report) }
        try RunCommand.finish(outcome)
    }
}

/// The configuration from `path`, $DRIFTFIX_CONFIG, or the defaults; a broken file is a usage error (exit 2).
func loadConfiguration(_ path: String?) throws -> Configuration {
    guard let path = path ?? ProcessInfo.processInfo.environment["DRIFTFIX_CONFIG"] else { return Configuration() }
    do {
        return try Configuration.load(path: Paths.given(path))
    } catch {
        throw ValidationError("\(error)")
    }
}

/// Writes report.json, report.csv and report.html into `folder`; a failure is one line naming the folder (exit 1).
func writeReportFolder(_ report: ScanReport, to folder: String) throws {
    do {
        try ReportWriter.writeFolder(report, to: Paths.given(folder))
    } catch {
        throw failure("\(folder): cannot write the report (\(error.localizedDescription))")
    }
    FileHandle.standardError.write(Data("driftfix: report written to \(folder)/report.{json,csv,html}\n".utf8))
}
