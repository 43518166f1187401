import ArgumentParser
import DriftConfig
import DriftCore
import DriftJournal
import DriftSchema
import Foundation

/// `driftfix history`: drift per folder (recorder) and file over the journal's last runs, with alerts.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show drift over the last repair runs, per folder and per file, flagging recorders that started drifting.",
        discussion: """
            Reads the journal of `driftfix repair` (read-only; safe while a run is going). A folder's value in a run \
            is the median drift of its recordings; a folder or file is flagged when its latest value moved more than \
            journal.alert-ppm from the median of its earlier runs. Exit code 0; 1 when the journal cannot be read.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @Argument(help: "Only recordings at or below this path (a folder or one recording).")
    var path: String?

    @Option(help: ArgumentHelp("The output root of the runs (journal in OUT/.driftfix/).", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("The journal file (instead of --out).", valueName: "file"))
    var journal: String?

    @Option(help: ArgumentHelp("Configuration file; default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    @Option(parsing: .unconditional, help: "Runs to show (default: the config's journal.history-runs, else 10).")
    var runs: Int?

    @Flag(help: "List every file, not only folders (implied when PATH is a file).")
    var files = false

    @Option(help: "table or json.")
    var format: Format = .table

    func validate() throws {
        if out == nil && journal == nil { throw ValidationError("give --out DIR (the repair's output root) or --journal FILE") }
        if let runs, !(1...1000).contains(runs) { throw ValidationError("--runs must be 1...1000") }
    }

    func run() throws {
        let configuration = try loadConfiguration(config)
        let journalPath = journal.map(Paths.absolute)
            ?? configuration.journal.path
            ?? Journal.defaultPath(outputRoot: Paths.absolute(out ?? "."))
        let scope = path.map(Paths.absolute)
        var isFolder: ObjCBool = true
        let oneFile = scope.map { FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue } ?? false
        let history: DriftHistory
        do {
            let opened = try Journal(path: journalPath, readOnly: true)
            history = try opened.history(path: scope, runs: runs ?? configuration.journal.historyRuns,
                                         alertPPM: configuration.journal.alertPPM, includeFiles: files || oneFile)
        } catch {
            throw failure(error.description)
        }
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            FileHandle.standardOutput.write(try encoder.encode(history) + Data("\n".utf8))
        case .table:
            print(Self.table(history))
        }
    }

    /// One column per run (ppm), one row per folder, then per file; alerts last.
    static func table(_ history: DriftHistory) -> String {
        guard !history.runs.isEmpty else { return "no runs with measurements in this journal yet" }
        // "#12 11-22 03:14": run id, month-day and UTC time of its start.
        let header = ["drift ppm"] + history.runs.map { "#\($0.id) " + $0.started.dropFirst(5).prefix(11).replacingOccurrences(of: "T", with: " ") }
        func rows(_ series: [DriftHistory.Series]) -> [[String]] {
            series.map { item in
                [item.name + (item.alert == nil ? "" : "  !")]
                    + item.ppm.map { value in value.map { ($0 >= 0 ? "+" : "") + String(format: "%.1f", $0) } ?? "-" }
            }
        }
        var lines: [String] = []
        for (title, series) in [("folders (median of their recordings)", history.folders), ("files", history.files)] where !series.isEmpty {
            let table = [header] + rows(series)
            let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
            lines.append(title + ":")
            for row in table {
                lines.append(zip(row, widths).enumerated().map { index, item in
                    index == 0 ? item.0.padding(toLength: item.1, withPad: " ", startingAt: 0)
                        : String(repeating: " ", count: item.1 - item.0.count) + item.0
                }.joined(separator: "  "))
            }
            lines.append("")
        }
        let alerts = history.alerts
        lines.append(alerts.isEmpty ? "no alerts (threshold \(String(format: "%.0f", history.alertPPM)) ppm)"
                     : alerts.map { "! \($0.name): \($0.alert ?? "")" }.joined(separator: "\n"))
        return lines.joined(separator: "\n")
    }
}
