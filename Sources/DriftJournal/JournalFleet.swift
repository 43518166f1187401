import DriftCore
import DriftSchema
import Foundation
internal import GRDB

// The fleet's tables: names stored once, drift samples per recording, and per-device summaries of each run.

/// The `name` table: every path and device name once, referred to by id.
enum NameTable {
    /// Ids of `texts`, adding the ones not stored yet.
    static func intern(_ db: Database, _ texts: some Sequence<String>) throws -> [String: Int64] {
        try intern(db, table: "name", texts)
    }

    /// Ids of `texts` in `table` (`name` or `term`), adding the ones not stored yet.
    static func intern(_ db: Database, table: String, _ texts: some Sequence<String>) throws -> [String: Int64] {
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(table) (text) VALUES (?)")
        let select = try db.cachedStatement(sql: "SELECT id FROM \(table) WHERE text = ?")
        var ids: [String: Int64] = [:]
        for text in texts where ids[text] == nil {
            try insert.execute(arguments: [text])
            if db.changesCount > 0 {
                ids[text] = db.lastInsertedRowID
            } else if let id = try Int64.fetchOne(select, arguments: [text]) {
                ids[text] = id
            }
        }
        return ids
    }

    /// The texts of the names a query lists (`SELECT id ... `), by id.
    static func texts(_ db: Database, idsFrom query: String, arguments: StatementArguments = []) throws -> [Int64:
        String]
    {
        var texts: [Int64: String] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, text FROM name WHERE id IN (\(query))", arguments: arguments)
        while let row = try rows.next() { texts[row["id"]] = row["text"] }
        return texts
    }

    /// Removes names nothing refers to any more (recordings gone from every kept run and sample).
    static func collect(_ db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM name WHERE id NOT IN (
                    SELECT recording FROM sample UNION SELECT device FROM sample UNION SELECT device FROM device_run
                    UNION SELECT recording FROM pair UNION SELECT reference FROM pair UNION SELECT device FROM pair
                    UNION SELECT output FROM pair UNION SELECT recording FROM job UNION SELECT input FROM job
                    UNION SELECT output FROM job UNION SELECT recording FROM output UNION SELECT output FROM output)
                """)
    }
}

/// Ids of the names and terms (`term`: the few short words rows repeat - formats, causes, methods, workers) of the
/// rows one transaction writes, interned on first use.
final class JournalIds {
    private let db: Database
    private var names: [String: Int64] = [:]
    private var terms: [String: Int64] = [:]

    init(_ db: Database, names: [String: Int64] = [:]) {
        self.db = db
        self.names = names
    }

    func name(_ text: String) throws -> Int64 {
        if let id = names[text] { return id }
        let id = try NameTable.intern(db, [text])[text] ?? 0
        names[text] = id
        return id
    }

    func name(_ text: String?) throws -> Int64? { try text.map { try name($0) } }

    func term(_ text: String) throws -> Int64 {
        if let id = terms[text] { return id }
        let id = try NameTable.intern(db, table: "term", [text])[text] ?? 0
        terms[text] = id
        return id
    }

    func term(_ text: String?) throws -> Int64? { try text.map { try term($0) } }
}

/// The texts of names and terms by id, for rows being read.
struct JournalTexts {
    var names: [Int64: String]
    var terms: [Int64: String]

    /// Every term (a few dozen) and the names `query` lists.
    init(_ db: Database, namesFrom query: String, arguments: StatementArguments = []) throws {
        names = try NameTable.texts(db, idsFrom: query, arguments: arguments)
        terms = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, text FROM term")
        while let row = try rows.next() { terms[row["id"]] = row["text"] }
    }

    func name(_ id: Int64?) -> String? { id.flatMap { names[$0] } }
    func term(_ id: Int64?) -> String? { id.flatMap { terms[$0] } }
}

/// A `device_run` row: one device's drift in one run, over the recordings the run measured first (new recordings, or
/// ones whose drift changed since they were last measured): a recorder's history is the history of what it recorded,
/// not the same old files measured again every night.
struct DeviceRunRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device_run"
    var device: Int64
    var run: Int64
    var measured: Int
    var medianPPM: Double
    var worstPPM: Double
    var lowerQuartilePPM: Double
    var upperQuartilePPM: Double
    /// Recordings whose clock wandered or stepped during the take (by their sound), and the widest span of drift
    /// within one of them, ppm (NULL when none; 0 and NULL in rows before v12).
    var wandering: Int = 0
    var wanderPPM: Double?
    /// Of the recordings measured, how many by their sound (the rest by lengths a clock explains); 0 before v13.
    var bySound: Int = 0
    /// The median sync at the first frames of the recordings measured by their sound, ms; NULL where none.
    var startMs: Double?

    init(device: Int64, run: Int64, statistics: DriftStatistics) {
        self.device = device
        self.run = run
        measured = statistics.count
        medianPPM = statistics.median
        worstPPM = statistics.worst
        lowerQuartilePPM = statistics.lowerQuartile
        upperQuartilePPM = statistics.upperQuartile
    }

    var spread: Double { upperQuartilePPM - lowerQuartilePPM }

    /// Which measurement the row's figures came from: `content`, `headers` or `mixed`.
    var measuredBy: String { bySound == measured ? "content" : bySound == 0 ? "headers" : "mixed" }

    /// Stores a run's samples and per-device rows from its report: a sample for each recording with a clock figure
    /// (`PairReport.isClockFigure`: its clock's error by its sound, or lengths a clock explains) whose figure is new
    /// (never measured, or changed since: a replaced file), and per device the statistics of those. `latest` keeps
    /// every recording's last figure to tell. Stored again when the run's report changes (a night's sound measured
    /// after its plan, a run resumed): what the run stored before is taken back first.
    static func store(_ db: Database, run: Int64, report: ScanReport, ids: [String: Int64]) throws {
        try takeBack(db, run: run)
        var latest: [Int64: Double] = [:]
        let known = try Row.fetchCursor(db, sql: "SELECT recording, ppm FROM latest")
        while let row = try known.next() { latest[row["recording"]] = row["ppm"] }
        let sample = try db.makeStatement(
            sql: """
                INSERT OR REPLACE INTO sample (device, run, recording, ppm, startMs, bySound) VALUES (?, ?, ?, ?, ?, ?)
                """)
        let remember = try db.makeStatement(sql: "INSERT OR REPLACE INTO latest (recording, ppm, run) VALUES (?, ?, ?)")
        var drifts: [Int64: [Double]] = [:]
        var wanders: [Int64: [Double]] = [:]
        var sounds: [Int64: Int] = [:]
        var starts: [Int64: [Double]] = [:]
        for pair in report.pairs {
            guard pair.isClockFigure, let ppm = pair.driftPPM, let device = ids[pair.device],
                let recording = ids[pair.recordingText], latest[recording] != ppm
            else { continue }
            let bySound = pair.measuredBy == .content
            try sample.execute(arguments: [device, run, recording, ppm, pair.startOffsetMs, bySound])
            try remember.execute(arguments: [recording, ppm, run])
            drifts[device, default: []].append(ppm)
            if bySound { sounds[device, default: 0] += 1 }
            if let start = pair.startOffsetMs { starts[device, default: []].append(start) }
            if let clock = pair.content?.clock { wanders[device, default: []].append(clock.maxPPM - clock.minPPM) }
        }
        for (device, values) in drifts {
            var row = DeviceRunRow(device: device, run: run, statistics: DriftStatistics(values))
            row.wandering = wanders[device]?.count ?? 0
            row.wanderPPM = wanders[device]?.max()
            row.bySound = sounds[device] ?? 0
            row.startMs = starts[device].map { DriftStatistics($0).median }
            try row.insert(db, onConflict: .replace)
        }
    }

    /// Takes back what an earlier store of `run` put in: its samples and device rows, and each recording's last
    /// figure where this run set it (the one before is found again among the samples left).
    private static func takeBack(_ db: Database, run: Int64) throws {
        guard
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM device_run WHERE run = ?)", arguments: [run])
                == true
        else { return }
        try db.execute(sql: "DELETE FROM sample WHERE run = ?", arguments: [run])
        try db.execute(sql: "DELETE FROM device_run WHERE run = ?", arguments: [run])
        // One pass over the samples: SQLite gives a bare column the row of its group's MAX().
        try db.execute(sql: "CREATE TEMP TABLE taken AS SELECT recording FROM latest WHERE run = ?", arguments: [run])
        try db.execute(sql: "DELETE FROM latest WHERE run = ?", arguments: [run])
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO latest (recording, ppm, run)
                SELECT recording, ppm, MAX(run) FROM sample WHERE recording IN (SELECT recording FROM taken)
                GROUP BY recording
                """)
        try db.execute(sql: "DROP TABLE taken")
    }

    /// Per-device rows and latest drifts from the samples (measurements of earlier releases, every recording of
    /// every run).
    static func summariseSamples(_ db: Database) throws {
        var groups: [Int64: [Int64: [Double]]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT device, run, ppm FROM sample")
        while let row = try rows.next() {
            groups[row["device"], default: [:]][row["run"], default: []].append(row["ppm"])
        }
        // By its columns of the time (v5): the migrations that add the others have not run yet.
        let insert = try db.makeStatement(
            sql: """
                INSERT OR IGNORE INTO device_run
                (device, run, measured, medianPPM, worstPPM, lowerQuartilePPM, upperQuartilePPM)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        for (device, runs) in groups {
            for (run, values) in runs {
                let row = DeviceRunRow(device: device, run: run, statistics: DriftStatistics(values))
                try insert.execute(arguments: [
                    device, run, row.measured, row.medianPPM, row.worstPPM, row.lowerQuartilePPM, row.upperQuartilePPM,
                ])
            }
        }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO latest (recording, ppm, run)
                SELECT recording, ppm, run FROM sample s WHERE run = (SELECT MAX(run) FROM sample t WHERE t.recording = s.recording)
                """)
    }
}
