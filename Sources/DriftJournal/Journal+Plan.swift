import DriftCore
import DriftJobs
import DriftPlanning
import DriftSchema
import Foundation
internal import GRDB

/// A stored run: its plan, and its jobs as the journal last recorded them.
public struct StoredRun: Sendable {
    public var plan: RunPlan
    /// With what each one's output will be made from (incremental runs).
    public var jobs: [JobRecord]
}

extension Journal {
    /// Stores a run's plan (every pair's scan row and plan, the unpaired files, scan errors and skipped paths) and its
    /// jobs in one transaction; the run becomes `running`. Its drift history is stored when it finishes.
    public func storePlan(run: Int64, plan: RunPlan, jobs: [JobRecord]) throws(JournalError) {
        try write { db in
            try db.execute(
                sql: "UPDATE run SET status = 'running', planned = 1, generated = ? WHERE id = ?",
                arguments: [plan.report.generated, run])
            let names = try NameTable.intern(
                db, plan.report.pairs.lazy.flatMap { [$0.recordingText, $0.referenceText, $0.device] })
            let ids = JournalIds(db, names: names)
            // In key order (run, recording id): appended rows fill their pages.
            let rows = try plan.report.pairs.enumerated().map { position, row in
                try PairRow(
                    run: run, position: position, row: row, plan: plan.pair(PairID(recording: row.recordingText)),
                    ids: ids)
            }
            for row in rows.sorted(by: { $0.recording < $1.recording }) { try row.insert(db) }
            var position = 0
            func entry(_ kind: String, _ path: String, _ reason: String) throws {
                try EntryRow(run: run, position: position, kind: kind, path: path, reason: reason).insert(db)
                position += 1
            }
            for file in plan.report.unpaired { try entry("unpaired-" + file.kind.rawValue, file.pathText, file.reason) }
            for issue in plan.report.errors { try entry("error", issue.pathText, issue.error) }
            for skipped in plan.report.skipped { try entry("skipped", skipped.pathText, skipped.reason) }
            // A plan's jobs all start queued (pairs already current were left out of it as `unchanged`).
            let context = try RunContext(db, run: run)
            for job in jobs { try JobRow(run: run, job: job, context: context, ids: ids).insert(db) }
            // The run's device history is stored when it finishes: the sound measured on the way may revise it.
        }
    }

    /// A stored run, with every job as the journal last recorded it. Jobs that were out on lease when the coordinator
    /// stopped go back to the queue (recorded so), to be run again.
    public func loadPlan(run: Int64) throws(JournalError) -> StoredRun {
        let path = path
        func damaged(_ what: String) -> JournalError { JournalError(path: path, cause: .corrupt(what)) }
        return try write { db in
            // A lease cut short by the coordinator's own stop is not the job's fault: it does not count as an attempt.
            try db.execute(
                sql: """
                    UPDATE job SET state = 'queued', attempts = MAX(attempts - 1, 0),
                    error = 'the coordinator stopped while it was leased' WHERE run = ? AND state = 'leased'
                    """, arguments: [run])
            guard let stored = try RunRow.fetchOne(db, key: run), stored.planned else {
                throw JournalError(path: path, cause: .other("run \(run) has no stored plan"))
            }
            let rows = try PairRow.filter(Column("run") == run).order(Column("position")).fetchAll(db)
            let texts = try JournalTexts(
                db,
                namesFrom: """
                    SELECT recording FROM pair WHERE run = ?1 UNION SELECT reference FROM pair WHERE run = ?1
                    UNION SELECT device FROM pair WHERE run = ?1 UNION SELECT output FROM pair WHERE run = ?1
                    UNION SELECT recording FROM job WHERE run = ?1 UNION SELECT input FROM job WHERE run = ?1
                    UNION SELECT output FROM job WHERE run = ?1
                    """, arguments: [run])
            var plans: [PairPlan] = []
            for row in rows {
                guard let plan = row.plan(texts) else {
                    throw damaged(
                        "the plan of \(texts.name(row.recording) ?? "recording \(row.recording)") in run \(run) cannot be read"
                    )
                }
                plans.append(plan)
            }
            var unpaired: [UnpairedFile] = []
            var errors: [ScanIssue] = []
            var skipped: [SkippedPath] = []
            for entry in try EntryRow.filter(Column("run") == run).order(Column("position")).fetchAll(db) {
                switch entry.kind {
                case "unpaired-recording":
                    unpaired.append(UnpairedFile(path: entry.path, kind: .recording, reason: entry.reason))
                case "unpaired-reference":
                    unpaired.append(UnpairedFile(path: entry.path, kind: .reference, reason: entry.reason))
                case "error": errors.append(ScanIssue(path: entry.path, error: entry.reason))
                default: skipped.append(SkippedPath(path: entry.path, reason: entry.reason))
                }
            }
            let roots = Self.decodeRoots(stored.roots)
            let report = ScanReport(
                generated: stored.generated ?? "", roots: roots, pairs: rows.map { $0.report(texts) },
                unpaired: unpaired, errors: errors, skipped: skipped)
            let jobs = try jobs(db, run: run, texts: texts)
            return StoredRun(plan: RunPlan(report: report, pairs: plans), jobs: jobs)
        }
    }

    /// Adds jobs to a run while it goes on (a sound night's rounds: prints, then clips), each queued.
    public func addJobs(run: Int64, jobs: [JobRecord]) throws(JournalError) {
        guard !jobs.isEmpty else { return }
        try write { db in
            try db.execute(sql: "UPDATE run SET status = 'running' WHERE id = ?", arguments: [run])
            let ids = JournalIds(db, names: try NameTable.intern(db, jobs.map(\.pair.recording)))
            let context = try RunContext(db, run: run)
            for job in jobs { try JobRow(run: run, job: job, context: context, ids: ids).insert(db) }
        }
    }

    /// The jobs of a run as the journal last recorded them (a sound night resumed: its jobs done stay done), without
    /// touching any (jobs out on lease read as queued).
    public func jobs(run: Int64) throws(JournalError) -> [JobRecord] {
        try access { db in
            let texts = try JournalTexts(
                db,
                namesFrom: """
                    SELECT recording FROM job WHERE run = ?1 UNION SELECT input FROM job WHERE run = ?1
                    UNION SELECT output FROM job WHERE run = ?1
                    """, arguments: [run])
            return try jobs(db, run: run, texts: texts)
        }
    }

    /// Drops a run's jobs that did not finish (a sound night resumed plans them again).
    public func dropUnfinishedJobs(run: Int64) throws(JournalError) {
        try write { db in
            try db.execute(sql: "DELETE FROM job WHERE run = ? AND state IN ('queued', 'leased')", arguments: [run])
        }
    }

    /// Stores the report of a run planned as it went (a sound night: its rows are known once its clips are synced):
    /// its pair rows, unpaired files, errors and drift measurements (`finishRun` stores them again with its outcomes).
    public func storeReport(run: Int64, report: ScanReport) throws(JournalError) {
        try write { db in
            try db.execute(
                sql: "UPDATE run SET planned = 1, generated = ? WHERE id = ?", arguments: [report.generated, run])
            for table in ["pair", "entry"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE run = ?", arguments: [run])
            }
            let names = try NameTable.intern(
                db, report.pairs.lazy.flatMap { [$0.recordingText, $0.referenceText, $0.device] })
            let ids = JournalIds(db, names: names)
            // One row per recording and reference: a clip two recorders heard has two, a recorder several clips.
            var seen = Set<[String]>()
            for (position, row) in report.pairs.enumerated()
            where seen.insert([row.recordingText, row.referenceText]).inserted {
                try PairRow(run: run, position: position, row: row, plan: nil, ids: ids).insert(db)
            }
            var position = 0
            func entry(_ kind: String, _ path: String, _ reason: String) throws {
                try EntryRow(run: run, position: position, kind: kind, path: path, reason: reason).insert(db)
                position += 1
            }
            for file in report.unpaired { try entry("unpaired-" + file.kind.rawValue, file.pathText, file.reason) }
            for issue in report.errors { try entry("error", issue.pathText, issue.error) }
            for skipped in report.skipped { try entry("skipped", skipped.pathText, skipped.reason) }
            try DeviceRunRow.store(db, run: run, report: report, ids: names)
        }
    }

    func jobs(_ db: Database, run: Int64, texts: JournalTexts) throws -> [JobRecord] {
        var jobs: [JobRecord] = []
        let context = try RunContext(db, run: run)
        for row in try JobRow.filter(Column("run") == run).order(Column("id")).fetchAll(db) {
            guard let record = row.record(texts, context: context) else {
                throw JournalError(path: path, cause: .corrupt("job \(row.id) of run \(run) cannot be read"))
            }
            jobs.append(record)
        }
        return jobs
    }

    /// Records how a run ended, with each pair's outcome from its final report.
    public func finishRun(_ run: Int64, status: RunStatus, succeeded: Bool, report: ScanReport, at date: Date = Date())
        throws(JournalError)
    {
        try write { db in
            try db.execute(
                sql: "UPDATE run SET status = ?, ok = ?, finished = ? WHERE id = ?",
                arguments: [status.rawValue, succeeded, date.timeIntervalSince1970, run])
            // With the outcome, the row's figures, cause and plan as the sound revised them (where it measured).
            let update = try db.makeStatement(
                sql: """
                    UPDATE pair SET outcome = ?, output = ?, outputFrames = ?, checksum = ?, attempts = ?, worker = ?,
                    processingSeconds = ?, error = ?, measuredBy = ?, content = ?, sync = ?,
                    executed = CASE WHEN ? = operations THEN '=' ELSE ? END, contentNote = ?,
                    driftSeconds = ?, driftPPM = ?, endOffsetMs = ?, startOffsetMs = ?, worstOffsetMs = ?,
                    worstAtSeconds = ?, flags = ?, cause = ?, causeDetail = ?, action = ?, method = ?, methodReason = ?,
                    targetFrames = ?
                    WHERE run = ? AND recording = ? AND reference = ?
                    """)
            // The run's recordings and references were named when its plan was stored.
            var names: [String: Int64] = [:]
            for (id, text) in try NameTable.texts(
                db,
                idsFrom: "SELECT recording FROM pair WHERE run = ?1 UNION SELECT reference FROM pair WHERE run = ?1",
                arguments: [run])
            {
                names[text] = id
            }
            let ids = JournalIds(db, names: names)
            for row in report.pairs {
                let executed = row.operations.isEmpty ? nil : RepairOperation.text(row.operations)
                try update.execute(arguments: [
                    try ids.term(row.outcome?.rawValue), try ids.name(row.outputText), row.outputFrames,
                    row.checksum.map(PackedHex.init),
                    row.attempts, try ids.term(row.worker), row.processingSeconds, row.error,
                    try ids.term(row.measuredBy.rawValue),
                    JournalJSON.encode(row.content.map(StoredMeasurement.init)), PairRow.storedSync(row), executed,
                    executed, row.contentNote,
                    row.driftSeconds, row.driftPPM, row.endOffsetMs, row.startOffsetMs, row.worstOffsetMs,
                    row.worstAtSeconds, row.flags.map(\.rawValue).joined(separator: ";"),
                    try ids.term(row.cause?.rawValue), row.causeDetail, try ids.term(row.action.rawValue),
                    try ids.term(row.method?.rawValue), try ids.term(row.methodReason), row.targetFrames,
                    run, names[row.recordingText], names[row.referenceText],
                ])
            }
            // The device history from the run's final figures: the sound's where it measured.
            var known = names
            for (text, id) in try NameTable.intern(db, report.pairs.lazy.map(\.device)) { known[text] = id }
            try DeviceRunRow.store(db, run: run, report: report, ids: known)
        }
    }

    /// The final report of a finished run (or the plan of an unfinished one), as stored.
    public func report(run: Int64) throws(JournalError) -> ScanReport {
        try loadPlan(run: run).plan.report
    }

    /// Each job of a run as last recorded: id → (state, attempts, output path). For inspection and tests.
    public func jobStates(run: Int64) throws(JournalError) -> [Int: (
        state: JournalJobState, attempts: Int, output: String
    )] {
        try access { db in
            var states: [Int: (state: JournalJobState, attempts: Int, output: String)] = [:]
            let texts = try JournalTexts(db, namesFrom: "SELECT output FROM job WHERE run = ?", arguments: [run])
            for row in try JobRow.filter(Column("run") == run).fetchAll(db) {
                states[row.id] = (row.state, row.attempts, texts.name(row.output) ?? "")
            }
            return states
        }
    }

    /// Each job's resampling engine in a run, as stored (libsamplerate where none is named). For inspection and tests.
    public func jobEngines(run: Int64) throws(JournalError) -> [Int: ResampleEngine] {
        try access { db in
            var engines: [Int: ResampleEngine] = [:]
            let texts = try JournalTexts(db, namesFrom: "SELECT NULL")
            for row in try JobRow.filter(Column("run") == run).fetchAll(db) {
                engines[row.id] = texts.term(row.engine).flatMap(ResampleEngine.init(rawValue:)) ?? .libsamplerate
            }
            return engines
        }
    }
}
