import DriftCore
import DriftSchema
import Foundation
internal import GRDB
import Glibc

public import struct SystemPackage.FilePath

/// What `driftfix history` (and a run's report) asks of the journal.
public struct HistoryQuery: Sendable, Equatable {
    /// Only recordings at or below this path (a folder or one recording).
    public var path: FilePath?
    /// Only these devices: names or shell patterns (`dev0*`); empty for every device.
    public var devices: [String] = []
    /// Only runs started at or after this time.
    public var since: Date?
    /// The newest runs to show.
    public var runs: Int
    /// At most this many devices, the alerting and the worst first; nil for all.
    public var limit: Int?
    /// Every file's own series too (implied by a device filter or a path).
    public var includeFiles = false
    public var rule: AlertRule

    public init(runs: Int, rule: AlertRule) {
        self.runs = runs
        self.rule = rule
    }
}

extension Journal {
    /// Drift over the newest runs: per device (its median, spread and worst recording in each run, over the
    /// recordings that run measured first) and, when asked, per file (its drift in the run that measured it);
    /// alerting devices first. Without a path, devices come from the per-device rows each run stored (fast
    /// at any fleet size); a path scopes them to its recordings, from the samples.
    public func history(_ query: HistoryQuery) throws(JournalError) -> DriftHistory {
        try access { db in
            let runs = try Self.historyRuns(db, since: query.since, newest: query.runs)
            guard let first = runs.first?.id else {
                return DriftHistory(runs: [], rule: query.rule, devices: [], files: [])
            }
            let column = Dictionary(uniqueKeysWithValues: runs.enumerated().map { ($1.id, $0) })
            let deviceNames = try NameTable.texts(
                db, idsFrom: "SELECT DISTINCT device FROM device_run WHERE run >= ?",
                arguments: [first])
            let wanted = deviceNames.filter { Self.matches($0.value, query.devices) }
            let table: DeviceTable
            if let path = query.path?.pathText {
                table = try Self.deviceTable(
                    db, under: path, from: first, wanted: wanted, column: column, runs: runs.count, rule: query.rule)
            } else {
                table = try Self.deviceTable(db, from: first, wanted: wanted, column: column, runs: runs.count)
            }
            var fileSeries = table.files
            let devices = try table.cells.compactMap { device, perRun -> DriftHistory.Series? in
                guard let name = wanted[device] else { return nil }
                var series = DriftHistory.Series(
                    name: name, ppm: perRun.map(\.median), files: perRun.map(\.count), spreadPPM: perRun.map(\.spread),
                    worstPPM: perRun.map(\.worst), wandering: table.wandering[device].map { $0.map(\.0) },
                    wanderPPM: table.wandering[device].map { $0.map(\.1) }, measuredBy: perRun.map(\.measuredBy),
                    startOffsetMs: perRun.map(\.startMs), rule: query.rule)
                if series.alert != nil {
                    series.recordings = try Self.points(
                        db, device: device, from: first, column: column, runs: runs.count)
                }
                return series
            }.sorted(by: DriftHistory.worstFirst)
            let shown = query.limit.map { Array(devices.prefix($0)) } ?? devices
            if query.path == nil && (query.includeFiles || !query.devices.isEmpty) {
                // One device's samples are one range of the clustered table.
                let ids = Dictionary(uniqueKeysWithValues: wanted.map { ($1, $0) })
                for series in shown {
                    guard let device = ids[series.name] else { continue }
                    fileSeries += try Self.fileSeries(
                        db, device: device, from: first, column: column, runs: runs.count, rule: query.rule)
                }
            }
            if !query.includeFiles && query.devices.isEmpty && query.path.map({ !Self.isFile($0) }) ?? true {
                fileSeries = []
            }
            return DriftHistory(
                runs: runs, rule: query.rule, devices: shown, devicesTotal: devices.count, files: fileSeries)
        }
    }

    /// The newest `newest` runs (since `since`), oldest first: every run that got as far as a plan, whether or not it
    /// measured anything new (a night without new recordings is still a night: its column shows none).
    private static func historyRuns(_ db: Database, since: Date?, newest: Int) throws -> [DriftHistory.Run] {
        var sql = """
            SELECT id, started, status FROM run
            WHERE (generated IS NOT NULL OR EXISTS (SELECT 1 FROM device_run WHERE device_run.run = run.id))
            """
        var arguments: StatementArguments = []
        if let since {
            sql += " AND started >= ?"
            arguments += [since.timeIntervalSince1970]
        }
        let runRows = try Row.fetchAll(
            db, sql: sql + " ORDER BY id DESC LIMIT ?", arguments: arguments + [newest]
        ).reversed()
        let formatter = ISO8601DateFormatter()
        return runRows.map { row in
            DriftHistory.Run(
                id: row["id"], started: formatter.string(from: Date(timeIntervalSince1970: row["started"])),
                status: row["status"])
        }
    }

    /// One device's figures in one run.
    private struct Cell {
        var median: Double?
        var spread: Double?
        var worst: Double?
        var count = 0
        var measuredBy: String?
        var startMs: Double?
    }

    /// Per device and run: its figures, and the wandering clocks (count, widest span); with the files' own series
    /// where the samples were read.
    private struct DeviceTable {
        var cells: [Int64: [Cell]] = [:]
        var wandering: [Int64: [(Int, Double?)]] = [:]
        var files: [DriftHistory.Series] = []
    }

    /// An alerting device's recordings in each run, each its clock figure: its chart's points.
    private static func points(
        _ db: Database, device: Int64, from first: Int64, column: [Int64: Int], runs: Int
    ) throws -> [[Double]] {
        var points = Array(repeating: [Double](), count: runs)
        let rows = try Row.fetchCursor(
            db, sql: "SELECT run, ppm FROM sample WHERE device = ? AND run >= ? ORDER BY run, ppm",
            arguments: [device, first])
        while let row = try rows.next() {
            guard let index = column[row["run"]] else { continue }
            points[index].append(row["ppm"])
        }
        return points
    }

    /// The wanted devices' table from the samples of recordings at or below `path`, and each recording's series.
    private static func deviceTable(
        _ db: Database, under path: String, from first: Int64, wanted: [Int64: String], column: [Int64: Int],
        runs: Int, rule: AlertRule
    ) throws -> DeviceTable {
        var table = DeviceTable()
        let samples = try Self.samples(db, under: path, from: first)
        var values: [Int64: [[Sample]]] = [:]
        var byFile: [Int64: [Double?]] = [:]
        var fileNames: [Int64: String] = [:]
        for sample in samples where wanted[sample.device] != nil {
            guard let index = column[sample.run] else { continue }
            values[sample.device, default: Array(repeating: [], count: runs)][index].append(sample)
            byFile[sample.recording, default: Array(repeating: nil, count: runs)][index] = sample.ppm
            fileNames[sample.recording] = sample.name
        }
        for (device, perRun) in values {
            table.cells[device] = perRun.map { list in
                guard !list.isEmpty else { return Cell() }
                let statistics = DriftStatistics(list.map(\.ppm))
                let bySound = list.filter(\.bySound).count
                let starts = list.compactMap(\.startMs)
                return Cell(
                    median: statistics.median, spread: statistics.spread, worst: statistics.worst, count: list.count,
                    measuredBy: bySound == list.count ? "content" : bySound == 0 ? "headers" : "mixed",
                    startMs: starts.isEmpty ? nil : DriftStatistics(starts).median)
            }
        }
        table.files = byFile.map { id, ppm in
            DriftHistory.Series(
                name: fileNames[id] ?? "", ppm: ppm, files: ppm.map { $0 == nil ? 0 : 1 }, rule: rule)
        }
        return table
    }

    /// The wanted devices' table from the per-device rows each run stored.
    private static func deviceTable(
        _ db: Database, from first: Int64, wanted: [Int64: String], column: [Int64: Int], runs: Int
    ) throws -> DeviceTable {
        var table = DeviceTable()
        let rows = try DeviceRunRow.filter(Column("run") >= first).fetchCursor(db)
        while let row = try rows.next() {
            guard wanted[row.device] != nil, let index = column[row.run] else { continue }
            table.cells[row.device, default: Array(repeating: Cell(), count: runs)][index] = Cell(
                median: row.medianPPM, spread: row.spread, worst: row.worstPPM, count: row.measured,
                measuredBy: row.measuredBy, startMs: row.startMs)
            table.wandering[row.device, default: Array(repeating: (0, nil), count: runs)][index] = (
                row.wandering, row.wanderPPM
            )
        }
        return table
    }

    private struct Sample {
        var device: Int64
        var run: Int64
        var recording: Int64
        var ppm: Double
        var name: String
        var startMs: Double?
        var bySound: Bool
    }

    /// Samples of recordings at or below `path` from run `first` on.
    private static func samples(_ db: Database, under path: String, from first: Int64) throws -> [Sample] {
        let prefix = path.hasSuffix("/") ? String(path.dropLast()) : path
        // Names below a folder sort between "folder/" and "folder0" ('0' follows '/').
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT s.device, s.run, s.recording, s.ppm, s.startMs, s.bySound, n.text FROM name n
                JOIN sample s ON s.recording = n.id
                WHERE (n.text = ? OR (n.text >= ? AND n.text < ?)) AND s.run >= ?
                """, arguments: [prefix, prefix + "/", prefix + "0", first])
        return rows.map {
            Sample(
                device: $0["device"], run: $0["run"], recording: $0["recording"], ppm: $0["ppm"], name: $0["text"],
                startMs: $0["startMs"], bySound: $0["bySound"])
        }
    }

    private static func fileSeries(
        _ db: Database, device: Int64, from first: Int64, column: [Int64: Int], runs: Int,
        rule: AlertRule
    ) throws -> [DriftHistory.Series] {
        var byFile: [Int64: [Double?]] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT run, recording, ppm FROM sample WHERE device = ? AND run >= ?",
            arguments: [device, first])
        while let row = try rows.next() {
            guard let index = column[row["run"]] else { continue }
            byFile[row["recording"], default: Array(repeating: nil, count: runs)][index] = row["ppm"]
        }
        let names = try NameTable.texts(
            db, idsFrom: "SELECT DISTINCT recording FROM sample WHERE device = ? AND run >= ?",
            arguments: [device, first])
        return byFile.map { id, ppm in
            DriftHistory.Series(name: names[id] ?? "", ppm: ppm, files: ppm.map { $0 == nil ? 0 : 1 }, rule: rule)
        }
    }

    static func matches(_ name: String, _ patterns: [String]) -> Bool {
        patterns.isEmpty || patterns.contains { $0 == name || fnmatch($0, name, 0) == 0 }
    }

    private static func isFile(_ path: FilePath) -> Bool {
        var info = stat()
        return path.withPlatformString { stat($0, &info) } == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    }

    /// Drift samples are kept for this many runs (about 25 bytes per recording and run).
    public static let measurementRunsKept = 1000

    /// Keeps the journal from growing night after night: finished runs older than the newest `keepRuns` lose their
    /// stored pairs and job rows (resume never needs them), samples and per-device rows older than the newest
    /// `measurementRunsKept` runs go, and names nothing refers to any more. Unfinished runs are never touched.
    /// Returns the runs pruned.
    @discardableResult
    public func prune(keepRuns: Int) throws(JournalError) -> Int {
        try write { db in
            let old = """
                SELECT id FROM run WHERE status IN ('complete', 'abandoned') AND planned = 1
                AND id NOT IN (SELECT id FROM run ORDER BY id DESC LIMIT \(max(1, keepRuns)))
                """
            let ids = try Int64.fetchAll(db, sql: old)
            let oldest = try Int64.fetchOne(
                db, sql: "SELECT MIN(id) FROM (SELECT id FROM run ORDER BY id DESC LIMIT \(Self.measurementRunsKept))")
            let expired =
                try oldest.map {
                    try Int64.fetchOne(db, sql: "SELECT 1 FROM device_run WHERE run < ? LIMIT 1", arguments: [$0])
                } ?? nil
            guard !ids.isEmpty || expired != nil else { return 0 }
            let list = ids.map(String.init).joined(separator: ",")
            if !ids.isEmpty {
                for table in ["job", "pair", "entry"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE run IN (\(list))")
                }
                try db.execute(sql: "UPDATE run SET planned = 0 WHERE id IN (\(list))")
            }
            if let oldest, expired != nil {
                for table in ["sample", "device_run", "latest"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE run < ?", arguments: [oldest])
                }
            }
            try NameTable.collect(db)
            return ids.count
        }
    }
}
