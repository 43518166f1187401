import ArgumentParser
import DriftKit
import Foundation

/// `driftfix history`: drift per device (recorder) over the journal's last runs, alerting devices first.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show drift over the last repair runs per device, alerting devices first.",
        discussion: """
            Reads the journal of `driftfix repair` (read-only; safe while a run is going). A device's value in a run \
            is the median clock error of its recordings (scan.device names the device): by their sound where it was \
            measured, else by lengths a clock explains; lengths that differ by more (a take started or stopped apart \
            from its camera) are no clock figure. A device alerts when its latest median moved more than \
            journal.alert-ppm from the median of its earlier runs, or when the spread between its recordings \
            (interquartile range) grew by more than journal.alert-spread-ppm; with journal.alert-start-ms, also when \
            its recordings start late or early (off by default). --format json says per run what measured each \
            figure (measuredBy) and the median start (startOffsetMs). Exit code 0; 1 when the journal cannot be \
            read; 2 for bad options.
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

    @Option(
        help: ArgumentHelp(
            "Only this device (a name or a shell pattern such as 'cam*'); repeatable. Lists its files.",
            valueName: "name"))
    var device: [String] = []

    @Option(
        help: ArgumentHelp(
            "Only runs started at or after this: a date (2026-11-01), a UTC time (2026-11-01T22:00), or an age (7d, 36h).",
            valueName: "when"))
    var since: String?

    @Option(
        parsing: .unconditional,
        help: "Devices to list at most, alerting and worst first (default: 50 in a table, all in JSON).")
    var limit: Int?

    @Flag(help: "List every file too (implied by --device, and when PATH is a file).")
    var files = false

    @Option(help: "table or json.")
    var format: Format = .table

    func validate() throws {
        if out == nil && journal == nil {
            throw ValidationError("give --out DIR (the repair's output root) or --journal FILE")
        }
        if let runs, !(1...1000).contains(runs) { throw ValidationError("--runs must be 1...1000") }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
        if let since, Self.parseSince(since, now: Date()) == nil {
            throw ValidationError(
                "--since '\(since)': expected a date (2026-11-01), a UTC time (2026-11-01T22:00) or an age (7d, 36h)")
        }
    }

    func run() throws {
        let configuration = try loadConfiguration(config)
        let journalPath =
            journal.map(Paths.file)
            ?? configuration.journal.path
            ?? JournalHistory.defaultPath(outputRoot: Paths.file(out ?? "."))
        var query = HistoryQuery(runs: runs ?? configuration.journal.historyRuns, rule: configuration.journal.alertRule)
        query.path = path.map(Paths.file)
        query.devices = device
        query.since = since.flatMap { Self.parseSince($0, now: Date()) }
        query.limit = limit ?? (format == .table ? 50 : nil)
        query.includeFiles = files
        let history: DriftHistory
        do {
            history = try JournalHistory.read(journalPath, query)
        } catch {
            throw failure(error.description)
        }
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(history) + Data("\n".utf8))
        case .table:
            print(HistoryTable.render(history))
        }
    }

    /// `2026-11-01`, `2026-11-01T22:00[:00][Z]` (UTC), or an age before `now`: `7d`, `36h`, `90m`.
    static func parseSince(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let unit = trimmed.last, let amount = Double(trimmed.dropLast()), amount >= 0 {
            let seconds: Double? = ["d": 86_400, "h": 3_600, "m": 60][unit]
            if let seconds { return now.addingTimeInterval(-amount * seconds) }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for pattern in [
            "yyyy-MM-dd", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss'Z'", "yyyy-MM-dd HH:mm",
        ] {
            formatter.dateFormat = pattern
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }
}
