import DriftCore
import DriftSchema
import Foundation
internal import GRDB

extension Journal {
    /// Drift over the last `runs` planned runs: per folder (median ppm of its files in each run) and, with
    /// `includeFiles`, per file; limited to recordings at or below `path` when given.
    public func history(path: String? = nil, runs count: Int, alertPPM: Double, includeFiles: Bool) throws(JournalError) -> DriftHistory {
        try access { db in
            let runRows = try Row.fetchAll(db, sql: """
                SELECT id, started, status FROM run WHERE EXISTS (SELECT 1 FROM measurement WHERE measurement.run = run.id)
                ORDER BY id DESC LIMIT ?
                """, arguments: [count]).reversed()
            let formatter = ISO8601DateFormatter()
            let runs = runRows.map { row in
                DriftHistory.Run(id: row["id"], started: formatter.string(from: Date(timeIntervalSince1970: row["started"])),
                                 status: row["status"])
            }
            guard let first = runs.first?.id else {
                return DriftHistory(runs: [], alertPPM: alertPPM, folders: [], files: [])
            }
            let column = Dictionary(uniqueKeysWithValues: runs.enumerated().map { ($1.id, $0) })
            var byFolder: [String: [[Double]]] = [:]
            var byFile: [String: [Double?]] = [:]
            let prefix = path.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
            let rows = try Row.fetchCursor(db, sql: "SELECT run, recording, folder, ppm FROM measurement WHERE run >= ?",
                                           arguments: [first])
            while let row = try rows.next() {
                guard let index = column[row["run"]] else { continue }
                let recording: String = row["recording"]
                if let path, let prefix, recording != path && !recording.hasPrefix(prefix) { continue }
                let ppm: Double = row["ppm"]
                byFolder[row["folder"], default: Array(repeating: [], count: runs.count)][index].append(ppm)
                if includeFiles { byFile[recording, default: Array(repeating: nil, count: runs.count)][index] = ppm }
            }
            let folders = byFolder.keys.sorted().map { folder in
                let values = byFolder[folder] ?? []
                return DriftHistory.Series(name: folder, ppm: values.map { $0.isEmpty ? nil : DriftTrend.median($0) },
                                           files: values.map(\.count), alertPPM: alertPPM)
            }
            let files = byFile.keys.sorted().map { file in
                let values = byFile[file] ?? []
                return DriftHistory.Series(name: file, ppm: values, files: values.map { $0 == nil ? 0 : 1 }, alertPPM: alertPPM)
            }
            return DriftHistory(runs: runs, alertPPM: alertPPM, folders: folders, files: files)
        }
    }

    /// Drift measurements are kept for this many runs (a few dozen bytes per pair and run).
    public static let measurementRunsKept = 1000

    /// Keeps the journal from growing night after night: finished runs older than the newest `keepRuns` lose their
    /// stored pairs and job rows (resume never needs them), and measurements older than the newest
    /// `measurementRunsKept` runs go. Unfinished runs are never touched. Returns the runs pruned.
    @discardableResult
    public func prune(keepRuns: Int) throws(JournalError) -> Int {
        try write { db in
            let old = """
                SELECT id FROM run WHERE status IN ('complete', 'abandoned') AND planned = 1
                AND id NOT IN (SELECT id FROM run ORDER BY id DESC LIMIT \(max(1, keepRuns)))
                """
            let ids = try Int64.fetchAll(db, sql: old)
            guard !ids.isEmpty || keepRuns < Self.measurementRunsKept else { return 0 }
            let list = ids.map(String.init).joined(separator: ",")
            if !ids.isEmpty {
                for table in ["job", "pair", "entry"] { try db.execute(sql: "DELETE FROM \(table) WHERE run IN (\(list))") }
                try db.execute(sql: "UPDATE run SET planned = 0 WHERE id IN (\(list))")
            }
            try db.execute(sql: """
                DELETE FROM measurement WHERE run NOT IN (SELECT id FROM run ORDER BY id DESC LIMIT \(Self.measurementRunsKept))
                """)
            return ids.count
        }
    }
}
