import Foundation
internal import GRDB

/// Converts a v2 journal's JSON blobs into v3 rows. The JSON is decoded with snapshots of the types the v2 release
/// wrote (below), not with today's report and wire types, so later changes to those never break this migration.
enum LegacyJournal {
    private struct Report: Decodable {
        var generated: String
        var pairs: [Pair]
        var unpaired: [Unpaired]
        var errors: [Issue]
    }

    private struct Pair: Decodable {
        var recording: String
        var reference: String
        var folder: String
        var sampleRate: Int?
        var channels: Int?
        var format: String?
        var recordingFrames: Int64?
        var recordingSeconds: Double?
        var referenceSeconds: Double?
        var referenceDuration: String?
        var referenceSource: String?
        var driftSeconds: Double?
        var driftPPM: Double?
        var endOffsetMs: Double?
        var sync: String?
        var flags: [String]?
        var cause: String?
        var causeDetail: String?
        var action: String
        var method: String?
        var methodReason: String?
        var targetFrames: Int64?
        var error: String?
        var outcome: String?
        var output: String?
        var outputFrames: Int64?
        var checksum: String?
        var attempts: Int?
        var worker: String?
        var processingSeconds: Double?
    }

    private struct Unpaired: Decodable {
        var path: String
        var kind: String
        var reason: String
    }

    private struct Issue: Decodable {
        var path: String
        var error: String
    }

    private struct Spec: Decodable {
        var id: Int
        var input: String
        var output: String
        var outputRoot: String
        var inputRoots: [String]?
        var targetFrames: Int64
        var method: String
        var methodReason: String
        var quality: String
        var noop: Bool
        var run: Int64?
    }

    private struct Result: Decodable {
        var attempt: Int
        var worker: String
        var outputFrames: Int64?
        var checksum: String?
        var seconds: Double
    }

    private struct Prints: Decodable {
        var recording: String
        var reference: String
        var plan: String
    }

    static func convert(_ db: Database) throws {
        let decoder = JSONDecoder()
        for run in try Row.fetchAll(db, sql: "SELECT id, report FROM run") {
            let id: Int64 = run["id"]
            guard let data = run["report"] as Data?, let report = try? decoder.decode(Report.self, from: data) else {
                continue
            }
            try db.execute(
                sql: "UPDATE run SET planned = 1, generated = ? WHERE id = ?", arguments: [report.generated, id])
            // Each job's output, by its report row: a pair still to repair has no output in the stored report.
            var outputs: [Int: String] = [:]
            for job in try Row.fetchAll(db, sql: "SELECT row, spec FROM job WHERE run = ?", arguments: [id]) {
                if let spec = try? decoder.decode(Spec.self, from: job["spec"] as Data) {
                    outputs[job["row"]] = spec.output
                }
            }
            for (position, pair) in report.pairs.enumerated() {
                try insert(pair, position: position, run: id, output: pair.output ?? outputs[position], db: db)
            }
            var position = 0
            for file in report.unpaired {
                try db.execute(
                    sql: "INSERT INTO entry (run, position, kind, path, reason) VALUES (?, ?, ?, ?, ?)",
                    arguments: [id, position, "unpaired-" + file.kind, file.path, file.reason])
                position += 1
            }
            for issue in report.errors {
                try db.execute(
                    sql: "INSERT INTO entry (run, position, kind, path, reason) VALUES (?, ?, 'error', ?, ?)",
                    arguments: [id, position, issue.path, issue.error])
                position += 1
            }
            for job in try Row.fetchAll(db, sql: "SELECT * FROM job WHERE run = ?", arguments: [id]) {
                guard let spec = try? decoder.decode(Spec.self, from: job["spec"] as Data) else { continue }
                let row: Int = job["row"]
                let recording = report.pairs.indices.contains(row) ? report.pairs[row].recording : spec.input
                let result = (job["result"] as Data?).flatMap { try? decoder.decode(Result.self, from: $0) }
                let prints = (job["prints"] as Data?).flatMap { try? decoder.decode(Prints.self, from: $0) }
                try db.execute(
                    sql: """
                        INSERT INTO job3 (run, id, recording, input, output, outputRoot, inputRoots, targetFrames, method,
                            methodReason, quality, noop, wireRun, audioSeconds, state, worker, attempts, leasedAt, error,
                            resultAttempt, resultWorker, outputFrames, checksum, seconds, recordingPrint, referencePrint, planPrint)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, spec.id, recording, spec.input, spec.output, spec.outputRoot,
                        spec.inputRoots?.joined(separator: "\n"), spec.targetFrames, spec.method, spec.methodReason,
                        spec.quality, spec.noop, spec.run, job["audioSeconds"] as Double, job["state"] as String,
                        job["worker"] as String?, job["attempts"] as Int, job["leasedAt"] as Double?,
                        job["error"] as String?,
                        result?.attempt, result?.worker, result?.outputFrames, result?.checksum, result?.seconds,
                        prints?.recording, prints?.reference, prints?.plan,
                    ])
            }
        }
        for output in try Row.fetchAll(db, sql: "SELECT * FROM output") {
            guard let prints = (output["prints"] as Data?).flatMap({ try? decoder.decode(Prints.self, from: $0) })
            else { continue }
            try db.execute(
                sql: """
                    INSERT INTO output3 (recording, recordingPrint, referencePrint, planPrint, output, outputFrames, outputSize,
                        outputModified, checksum, worker, run) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    output["recording"] as String, prints.recording, prints.reference, prints.plan,
                    output["output"] as String,
                    output["outputFrames"] as Int64, output["outputSize"] as Int64?, output["outputModified"] as Int64?,
                    output["checksum"] as String?, output["worker"] as String?, output["run"] as Int64,
                ])
        }
    }

    private static func insert(_ pair: Pair, position: Int, run: Int64, output: String?, db: Database) throws {
        let decision: String
        var operations = ""
        switch pair.action {
        case "skip": decision = "skip"
        case "refuse": decision = "refuse"
        default:
            decision = pair.outcome == "unchanged" ? "unchanged" : "repair"
            if let target = pair.targetFrames {
                operations = "\(pair.action == "stretch" ? "stretch" : "resample") \(target)"
            }
        }
        try db.execute(
            sql: """
                INSERT INTO pair (run, position, recording, reference, folder, sampleRate, channels, format, recordingFrames,
                    recordingSeconds, referenceSeconds, referenceDuration, referenceSource, driftSeconds, driftPPM, endOffsetMs,
                    sync, flags, cause, causeDetail, action, method, methodReason, targetFrames, error, warnings, decision,
                    operations, measuredBy, output, outcome, outputFrames, checksum, attempts, worker, processingSeconds)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, 'headers', ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: StatementArguments(
                [
                    run, position, pair.recording, pair.reference, pair.folder, pair.sampleRate, pair.channels,
                    pair.format,
                    pair.recordingFrames, pair.recordingSeconds, pair.referenceSeconds, pair.referenceDuration,
                    pair.referenceSource, pair.driftSeconds, pair.driftPPM, pair.endOffsetMs, pair.sync,
                    (pair.flags ?? []).joined(separator: ";"), pair.cause, pair.causeDetail, pair.action, pair.method,
                    pair.methodReason, pair.targetFrames, pair.error, decision, operations, output, pair.outcome,
                    pair.outputFrames, pair.checksum, pair.attempts, pair.worker, pair.processingSeconds,
                ] as [(any DatabaseValueConvertible)?]))
    }
}
