import DriftCore
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
public final class Journal: Sendable {  // GRDB serialises access to the queue
    public let path: String
    let database: DatabaseQueue
    private let lockDescriptor: Int32?

    /// The default location: a hidden folder under the output root (the scanner skips hidden folders).
    public static func defaultPath(outputRoot: String) -> String {
        outputRoot + "/.driftfix/journal.sqlite"
    }

    /// Opens (creating if needed) the journal at `path` for a coordinator: takes the owner lock, checks the file
    /// (`PRAGMA quick_check`) and brings the schema up to date. With `readOnly`, opens an existing, current journal for
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
            // The owner checks the whole file before it writes; a reader does not (the check reads every page - a
            // quarter of a second at 100,000 pairs x 30 runs), and a damaged page still fails its query, named.
            if !readOnly {
                let check = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
                guard check == ["ok"] else {
                    throw JournalError(path: path, cause: .corrupt(check.prefix(3).joined(separator: "; ")))
                }
            }
            if !readOnly {
                try Self.migrate(queue, path: path)
            } else if try !queue.read(Self.isCurrent) {
                throw JournalError(
                    path: path,
                    cause: .other(
                        "written by an earlier driftfix; the next driftfix repair with this journal upgrades it"))
            }
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

    /// The newest run over exactly these roots and output root, paired the same way, that did not finish, if any.
    public func unfinishedRun(roots: [String], outputRoot: String, pairing: RunPairing = .names) throws(JournalError)
        -> JournalRun?
    {
        try access { db in
            let statuses = RunStatus.resumable.map { "'\($0.rawValue)'" }.joined(separator: ",")
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT id, key, started, status, roots, outputRoot, planned FROM run
                    WHERE status IN (\(statuses)) AND roots = ? AND outputRoot = ? AND pairBy IS ? ORDER BY id DESC LIMIT 1
                    """, arguments: [Self.encodeRoots(roots), outputRoot, pairing.stored])
            return row.map(Self.run(from:))
        }
    }

    /// Records a new run (status `scanning`); marks every other unfinished run over the same roots, paired the same
    /// way, abandoned.
    public func beginRun(roots: [String], outputRoot: String, pairing: RunPairing = .names, at date: Date = Date())
        throws(JournalError) -> Int64
    {
        try write { db in
            let statuses = RunStatus.resumable.map { "'\($0.rawValue)'" }.joined(separator: ",")
            try db.execute(
                sql: """
                    UPDATE run SET status = 'abandoned', finished = ?
                    WHERE status IN (\(statuses)) AND roots = ? AND outputRoot = ? AND pairBy IS ?
                    """,
                arguments: [date.timeIntervalSince1970, Self.encodeRoots(roots), outputRoot, pairing.stored])
            try db.execute(
                sql:
                    "INSERT INTO run (started, status, roots, outputRoot, key, pairBy) VALUES (?, 'scanning', ?, ?, ?, ?)",
                arguments: [
                    date.timeIntervalSince1970, Self.encodeRoots(roots), outputRoot,
                    Int64.random(in: 1...Int64.max), pairing.stored,
                ])
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

    /// When a run last ended with every pair repaired, unchanged or skipped.
    public func lastSuccess() throws(JournalError) -> Date? {
        try access { db in
            try Double.fetchOne(db, sql: "SELECT MAX(finished) FROM run WHERE ok = 1").map(
                Date.init(timeIntervalSince1970:))
        }
    }

    /// The runs, newest first.
    public func runs(limit: Int) throws(JournalError) -> [JournalRun] {
        try access { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, key, started, status, roots, outputRoot, planned FROM run ORDER BY id DESC LIMIT ?
                    """, arguments: [limit]
            ).map(Self.run(from:))
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

    /// Roots as stored and matched: sorted, so `a b` and `b a` name the same run (output paths do not depend on the
    /// order either).
    static func encodeRoots(_ roots: [String]) -> String {
        let sorted = roots.sorted()
        return (try? String(decoding: JSONEncoder().encode(sorted), as: UTF8.self)) ?? sorted.joined(separator: "\n")
    }

    static func decodeRoots(_ text: String?) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data((text ?? "[]").utf8))) ?? []
    }

    static func run(from row: Row) -> JournalRun {
        let roots = decodeRoots(row["roots"])
        let id: Int64 = row["id"]
        return JournalRun(
            id: id, key: row["key"] as Int64? ?? id,
            started: Date(timeIntervalSince1970: row["started"] as Double? ?? 0),
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
        let descriptor = PathText.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
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
                throw JournalError(
                    path: path, cause: .notWritable("cannot lock \(lockPath): \(String(cString: strerror(code)))"))
            }
            let owner = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            throw JournalError(path: path, cause: .inUse(owner.isEmpty ? "holder unknown" : owner))
        }
        let owner = "pid \(getpid()) on \(ProcessInfo.processInfo.hostName)\n"
        _ = ftruncate(descriptor, 0)
        _ = owner.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return descriptor
    }
}
