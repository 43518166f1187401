import DriftCore
import DriftCoordinator
import DriftSchema
import DriftWire
import Foundation
internal import GRDB

/// The coordinator's durable record of its runs, in one SQLite file (WAL mode): each run's plan, every job state
/// transition (written before it is acted upon), each verified output with the fingerprints of the inputs it was
/// made from, and each run's drift measurements.
///
/// One coordinator owns a journal at a time (an exclusive `flock` on `PATH.lock`, naming the owner); readers
/// (`driftfix history`) open it read-only alongside. Commits use `synchronous = NORMAL`: in WAL mode a committed
/// transaction survives a crash of the process, and a power cut can lose only the last transactions, never
/// corrupt the file - and a lost transition only means a job runs again, into an atomically replaced output.
public final class Journal: @unchecked Sendable {  // GRDB serialises access to the queue
    public let path: String
    let database: DatabaseQueue
    private let lockDescriptor: Int32?

    /// The default location: a hidden folder under the output root (the scanner skips hidden folders).
    public static func defaultPath(outputRoot: String) -> String {
        outputRoot + "/.driftfix/journal.sqlite"
    }

    /// Opens (creating if needed) the journal at `path` for a coordinator: takes the owner lock, checks the file
    /// (`PRAGMA quick_check`) and brings the schema up to date. With `readOnly`, opens an existing journal for
    /// reading only, without the lock.
    public init(path: String, readOnly: Bool = false) throws(JournalError) {
        self.path = path
        if readOnly {
            guard FileManager.default.fileExists(atPath: path) else {
                throw JournalError(path: path, cause: .other("no journal here (driftfix repair creates it)"))
            }
            lockDescriptor = nil
        } else {
            let folder = (path as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw JournalError(path: path, cause: .notWritable("cannot create \(folder): \(Self.reason(error))"))
            }
            lockDescriptor = try Self.takeOwnerLock(path: path)
        }
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(5)
        configuration.journalMode = readOnly ? .default : .wal
        configuration.label = "driftfix.journal"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        // Opened and checked into a local first: if anything throws, `database` was never set, so deinit does not
        // run and the lock is released here exactly once.
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let check = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else {
                throw JournalError(path: path, cause: .corrupt(check.prefix(3).joined(separator: "; ")))
            }
            if !readOnly { try Self.migrate(queue, path: path) }
            database = queue
        } catch {
            if let descriptor = lockDescriptor { close(descriptor) }
            throw JournalError.from(error, path: path)
        }
    }

    deinit {
        if let lockDescriptor { close(lockDescriptor) }  // releases the flock
    }

    // MARK: runs

    /// The newest run over exactly these roots and output root that did not finish, if any.
    public func unfinishedRun(roots: [String], outputRoot: String) throws(JournalError) -> JournalRun? {
        try access { db in
            let statuses = RunStatus.resumable.map { "'\($0.rawValue)'" }.joined(separator: ",")
            let row = try Row.fetchOne(db, sql: """
                SELECT id, key, started, status, roots, outputRoot, report IS NOT NULL AS planned FROM run
                WHERE status IN (\(statuses)) AND roots = ? AND outputRoot = ? ORDER BY id DESC LIMIT 1
                """, arguments: [Self.encodeRoots(roots), outputRoot])
            return row.map(Self.run(from:))
        }
    }

    /// Records a new run (status `scanning`); marks every other unfinished run over the same roots abandoned.
    public func beginRun(roots: [String], outputRoot: String, at date: Date = Date()) throws(JournalError) -> Int64 {
        try write { db in
            let statuses = RunStatus.resumable.map { "'\($0.rawValue)'" }.joined(separator: ",")
            try db.execute(sql: """
                UPDATE run SET status = 'abandoned', finished = ? WHERE status IN (\(statuses)) AND roots = ? AND outputRoot = ?
                """, arguments: [date.timeIntervalSince1970, Self.encodeRoots(roots), outputRoot])
            try db.execute(sql: "INSERT INTO run (started, status, roots, outputRoot, key) VALUES (?, 'scanning', ?, ?, ?)",
                           arguments: [date.timeIntervalSince1970, Self.encodeRoots(roots), outputRoot,
                                       Int64.random(in: 1...Int64.max)])
            return db.lastInsertedRowID
        }
    }

    /// When the oldest job still recorded as out on lease was leased, in seconds since 1970: a coordinator that died
    /// may have left workers running such jobs, and their temporary files are no older than this. Nil when no job is
    /// out on lease.
    public func oldestOpenLease() throws(JournalError) -> Double? {
        try access { db in try Double.fetchOne(db, sql: "SELECT MIN(leasedAt) FROM job WHERE state = 'leased'") }
    }

    /// The random key a run's jobs carry on the wire.
    public func runKey(_ run: Int64) throws(JournalError) -> Int64 {
        try access { db in try Int64.fetchOne(db, sql: "SELECT key FROM run WHERE id = ?", arguments: [run]) ?? run }
    }

    /// Stores a run's scan report and jobs, and its drift measurements for the history, in one transaction; the
    /// run becomes `running`.
    public func storePlan(run: Int64, report: ScanReport, jobs: [PlannedJob]) throws(JournalError) {
        let encoder = JSONEncoder()
        try write { db in
            try db.execute(sql: "UPDATE run SET status = 'running', report = ? WHERE id = ?",
                           arguments: [try encoder.encode(report), run])
            let insertJob = try db.makeStatement(sql: """
                INSERT INTO job (run, id, row, spec, audioSeconds, state, attempts, prints) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            // A plan's jobs all start queued (pairs already current were left out of it as `unchanged`).
            for job in jobs {
                try insertJob.execute(arguments: [
                    run, job.record.id, job.row, try encoder.encode(job.record.spec), job.record.audioSeconds, "queued",
                    job.record.attempts, try job.prints.map { try encoder.encode($0) },
                ])
            }
            let insertMeasurement = try db.makeStatement(sql: """
                INSERT OR REPLACE INTO measurement (run, recording, folder, ppm, endOffsetMs) VALUES (?, ?, ?, ?, ?)
                """)
            for pair in report.pairs {
                guard let ppm = pair.driftPPM else { continue }
                try insertMeasurement.execute(arguments: [run, pair.recording, pair.folder, ppm, pair.endOffsetMs])
            }
        }
    }

    /// A stored plan, with every job as the journal last recorded it. Jobs that were out on lease when the
    /// coordinator stopped go back to the queue (recorded so), to be run again.
    public func loadPlan(run: Int64) throws(JournalError) -> (report: ScanReport, jobs: [JobRecord], rows: [Int: Int], prints: [Int: JobFingerprints]) {
        let decoder = JSONDecoder()
        let path = path
        func damaged(_ what: String) -> JournalError { JournalError(path: path, cause: .corrupt(what)) }
        return try write { db in
            // A lease cut short by the coordinator's own stop is not the job's fault: it does not count as an attempt.
            try db.execute(sql: """
                UPDATE job SET state = 'queued', attempts = MAX(attempts - 1, 0),
                error = 'the coordinator stopped while it was leased' WHERE run = ? AND state = 'leased'
                """, arguments: [run])
            guard let reportData = try Data.fetchOne(db, sql: "SELECT report FROM run WHERE id = ?", arguments: [run]) else {
                throw JournalError(path: path, cause: .other("run \(run) has no stored plan"))
            }
            let report = try decoder.decode(ScanReport.self, from: reportData)
            var jobs: [JobRecord] = []
            var rows: [Int: Int] = [:]
            var prints: [Int: JobFingerprints] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM job WHERE run = ? ORDER BY id", arguments: [run]) {
                guard let specData = row["spec"] as Data?, let index = row["row"] as Int?,
                      let audioSeconds = row["audioSeconds"] as Double?, let attempts = row["attempts"] as Int?,
                      let stateName = row["state"] as String? else { throw damaged("a job row of run \(run) lacks a field") }
                let spec = try decoder.decode(JobSpec.self, from: specData)
                let error: String? = row["error"]
                let state: JobState
                switch stateName {
                case "done":
                    guard let resultData = row["result"] as Data? else { throw damaged("job \(spec.id) is done without a result") }
                    state = .done(try decoder.decode(JobResult.self, from: resultData))
                case "failed": state = .failed(error ?? "failed")
                default: state = .queued
                }
                jobs.append(JobRecord(spec: spec, audioSeconds: audioSeconds, state: state, attempts: attempts, lastError: error))
                rows[spec.id] = index
                if let data = row["prints"] as Data? { prints[spec.id] = try decoder.decode(JobFingerprints.self, from: data) }
            }
            return (report, jobs, rows, prints)
        }
    }

    /// Records how a run ended, with its final report (outcomes filled in).
    public func finishRun(_ run: Int64, status: RunStatus, succeeded: Bool, report: ScanReport, at date: Date = Date()) throws(JournalError) {
        let data = try encode(report)
        try write { db in
            try db.execute(sql: "UPDATE run SET status = ?, ok = ?, finished = ?, report = ? WHERE id = ?",
                           arguments: [status.rawValue, succeeded, date.timeIntervalSince1970, data, run])
        }
    }

    /// When a run last ended with every pair repaired, unchanged or skipped.
    public func lastSuccess() throws(JournalError) -> Date? {
        try access { db in
            try Double.fetchOne(db, sql: "SELECT MAX(finished) FROM run WHERE ok = 1").map(Date.init(timeIntervalSince1970:))
        }
    }

    /// The runs, newest first.
    public func runs(limit: Int) throws(JournalError) -> [JournalRun] {
        try access { db in
            try Row.fetchAll(db, sql: """
                SELECT id, key, started, status, roots, outputRoot, report IS NOT NULL AS planned FROM run ORDER BY id DESC LIMIT ?
                """, arguments: [limit]).map(Self.run(from:))
        }
    }

    /// Each job of a run as last recorded: id → (state, attempts, output path). For inspection and tests.
    public func jobStates(run: Int64) throws(JournalError) -> [Int: (state: String, attempts: Int, output: String)] {
        let decoder = JSONDecoder()
        return try access { db in
            var states: [Int: (state: String, attempts: Int, output: String)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, state, attempts, spec FROM job WHERE run = ?", arguments: [run]) {
                let spec = try decoder.decode(JobSpec.self, from: row["spec"] as Data)
                states[row["id"]] = (row["state"], row["attempts"], spec.output)
            }
            return states
        }
    }

    // MARK: outputs

    /// The last verified output of every recording, by recording path.
    public func outputs() throws(JournalError) -> [String: OutputRecord] {
        let decoder = JSONDecoder()
        return try access { db in
            var records: [String: OutputRecord] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM output") {
                // A row missing a field cannot vouch for an output: the pair is simply repaired again.
                guard let printData = row["prints"] as Data?, let recording = row["recording"] as String?,
                      let output = row["output"] as String?, let frames = row["outputFrames"] as Int64?,
                      let run = row["run"] as Int64?,
                      let prints = try? decoder.decode(JobFingerprints.self, from: printData) else { continue }
                let record = OutputRecord(
                    recording: recording, prints: prints, output: output, outputFrames: frames,
                    outputSize: row["outputSize"], outputModified: row["outputModified"], checksum: row["checksum"],
                    worker: row["worker"], run: run)
                records[record.recording] = record
            }
            return records
        }
    }

    // MARK: job transitions (JournalJobStore)

    func recordLease(run: Int64, job: Int, worker: String, attempt: Int, at time: Double) throws(JournalError) {
        try write { db in
            try db.cachedStatement(sql: """
                UPDATE job SET state = 'leased', worker = ?, attempts = ?, leasedAt = ? WHERE run = ? AND id = ?
                """).execute(arguments: [worker, attempt, time, run, job])
        }
    }

    /// Marks a job done and, in the same transaction, records its output as current for the next nights.
    func recordDone(run: Int64, job: Int, result: JobResult, output: OutputRecord?) throws(JournalError) {
        let encoder = JSONEncoder()
        try write { db in
            try db.cachedStatement(sql: "UPDATE job SET state = 'done', result = ?, error = NULL WHERE run = ? AND id = ?")
                .execute(arguments: [try encoder.encode(result), run, job])
            if let output {
                try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO output (recording, prints, output, outputFrames, outputSize, outputModified, checksum, worker, run)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        output.recording, try encoder.encode(output.prints), output.output, output.outputFrames,
                        output.outputSize, output.outputModified, output.checksum, output.worker, output.run,
                    ])
            }
        }
    }

    func recordFailed(run: Int64, job: Int, error: String) throws(JournalError) {
        try write { db in
            try db.cachedStatement(sql: "UPDATE job SET state = 'failed', error = ? WHERE run = ? AND id = ?")
                .execute(arguments: [error, run, job])
        }
    }

    func recordRequeued(run: Int64, job: Int, reason: String) throws(JournalError) {
        try write { db in
            try db.cachedStatement(sql: "UPDATE job SET state = 'queued', error = ? WHERE run = ? AND id = ?")
                .execute(arguments: [reason, run, job])
        }
    }

    // MARK: plumbing

    func write<T>(_ body: (Database) throws -> T) throws(JournalError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    func access<T>(_ body: (Database) throws -> T) throws(JournalError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    private func encode(_ report: ScanReport) throws(JournalError) -> Data {
        do {
            return try JSONEncoder().encode(report)
        } catch {
            throw JournalError(path: path, cause: .other("cannot encode the report: \(error)"))
        }
    }

    /// Roots as stored and matched: sorted, so `a b` and `b a` name the same run (output paths do not depend on the
    /// order either).
    static func encodeRoots(_ roots: [String]) -> String {
        let sorted = roots.sorted()
        return (try? String(decoding: JSONEncoder().encode(sorted), as: UTF8.self)) ?? sorted.joined(separator: "\n")
    }

    static func run(from row: Row) -> JournalRun {
        let roots = (try? JSONDecoder().decode([String].self, from: Data((row["roots"] as String? ?? "[]").utf8))) ?? []
        let id: Int64 = row["id"]
        return JournalRun(
            id: id, key: row["key"] as Int64? ?? id, started: Date(timeIntervalSince1970: row["started"] as Double? ?? 0),
            status: (row["status"] as String?).flatMap(RunStatus.init(rawValue:)) ?? .abandoned, roots: roots,
            outputRoot: row["outputRoot"] as String? ?? "", planned: row["planned"] as Bool? ?? false)
    }

    static func reason(_ error: Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        return underlying.map { String(cString: strerror(Int32($0.code))) } ?? error.localizedDescription
    }

    /// An exclusive, non-blocking `flock` on `PATH.lock`, which names its holder for the error message. The
    /// kernel drops the lock when the holder dies, so a crashed coordinator never leaves a stale lock.
    private static func takeOwnerLock(path: String) throws(JournalError) -> Int32 {
        let lockPath = path + ".lock"
        // Never through a link: whoever can write the output root must not make us truncate another file.
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw JournalError(path: path, cause: .notWritable("cannot open \(lockPath): \(reason)"))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw JournalError(path: path, cause: .notWritable("\(lockPath) is not a regular file"))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 255, 0) }
            close(descriptor)
            guard code == EWOULDBLOCK else {
                throw JournalError(path: path, cause: .notWritable("cannot lock \(lockPath): \(String(cString: strerror(code)))"))
            }
            let owner = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw JournalError(path: path, cause: .inUse(owner.isEmpty ? "holder unknown" : owner))
        }
        let owner = "pid \(getpid()) on \(ProcessInfo.processInfo.hostName)\n"
        _ = ftruncate(descriptor, 0)
        _ = owner.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return descriptor
    }
}
