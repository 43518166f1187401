import DriftCore
import DriftJobs
import DriftWire
import Foundation
internal import GRDB

// Job transitions, written by `JournalJobStore` before the dispatcher acts on them, and the outputs they verified.
extension Journal {
    /// The last verified output of every recording, by recording path.
    public func outputs() throws(JournalError) -> [String: OutputRecord] {
        try access { db in
            let texts = try JournalTexts(db, namesFrom: "SELECT recording FROM output UNION SELECT output FROM output")
            return Dictionary(
                try OutputRow.fetchAll(db).compactMap { $0.record(texts) }.map { ($0.recording, $0) },
                uniquingKeysWith: { _, last in last })
        }
    }

    func recordLease(run: Int64, job: Int, worker: String, attempt: Int, at time: Double) throws(JournalError) {
        try write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE job SET state = 'leased', worker = ?, attempts = ?, leasedAt = ? WHERE run = ? AND id = ?
                    """
            ).execute(arguments: [try JournalIds(db).term(worker), attempt, time, run, job])
        }
    }

    /// Marks a job done and, in the same transaction, keeps what it made for the next nights: its output as current
    /// (`output`), or a file's print (`print`).
    func recordDone(run: Int64, job: Int, result: JobResult, output: OutputRecord?, print: KeptPrint?)
        throws(JournalError)
    {
        try write { db in
            let ids = JournalIds(db)
            try db.cachedStatement(
                sql: """
                    UPDATE job SET state = 'done', error = NULL, resultAttempt = ?, resultWorker = ?, outputFrames = ?,
                    checksum = ?, seconds = ?, resultWork = ?, resultSucceeded = ?, resultError = ?, failure = ?,
                    resultWarnings = ?
                    WHERE run = ? AND id = ?
                    """
            ).execute(arguments: [
                result.attempt, try ids.term(result.worker), result.outcome.columns.output?.frames,
                result.outcome.columns.output?.checksum.map(PackedHex.init), result.seconds, JobRow.resultWork(result),
                result.outcome.columns.succeeded, result.outcome.columns.failure?.message,
                try ids.term(result.outcome.columns.failure?.kind.rawValue),
                result.warnings.map { $0.joined(separator: "\n") }, run, job,
            ])
            if let output { try OutputRow(output, ids: ids).save(db) }
            if let print { try Self.storeSoundPrint(db, print) }
        }
    }

    func recordFailed(run: Int64, job: Int, error: String, kind: FailureKind) throws(JournalError) {
        try write { db in
            let ids = JournalIds(db)
            try db.cachedStatement(
                sql: "UPDATE job SET state = 'failed', error = ?, failure = ? WHERE run = ? AND id = ?"
            )
            .execute(arguments: [error, try ids.term(kind.rawValue), run, job])
        }
    }

    func recordRequeued(run: Int64, job: Int, reason: String) throws(JournalError) {
        try write { db in
            try db.cachedStatement(sql: "UPDATE job SET state = 'queued', error = ? WHERE run = ? AND id = ?")
                .execute(arguments: [reason, run, job])
        }
    }
}
