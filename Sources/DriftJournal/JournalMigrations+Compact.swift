import DriftCore
import Foundation
internal import GRDB

// v7: the journal under 1 KB a pair.
extension Journal {
    /// The `pair` table's columns from v7 on (v7 made them, v10 changed only the key): frozen, like all migration SQL.
    static let pairColumnsV7 = """
        run INTEGER NOT NULL REFERENCES run(id),
        recording INTEGER NOT NULL,
        position INTEGER NOT NULL,
        reference INTEGER NOT NULL,
        device INTEGER NOT NULL,
        deviceSource INTEGER NOT NULL,
        sampleRate INTEGER, channels INTEGER, format INTEGER, recordingFrames INTEGER,
        recordingSeconds REAL, referenceSeconds REAL, referenceDuration TEXT, referenceSource INTEGER,
        driftSeconds REAL, driftPPM REAL, endOffsetMs REAL, sync TEXT, flags TEXT NOT NULL,
        cause INTEGER, causeDetail TEXT, action INTEGER NOT NULL, method INTEGER, methodReason INTEGER,
        targetFrames INTEGER, error TEXT, warnings TEXT NOT NULL, decision INTEGER NOT NULL,
        operations TEXT NOT NULL, measuredBy INTEGER NOT NULL,
        output INTEGER, outcome INTEGER, outputFrames INTEGER, checksum, attempts INTEGER, worker INTEGER,
        processingSeconds REAL, content TEXT, executed TEXT, contentNote TEXT,
        """

    /// Migration "v7 compact".
    static func v7Compact(_ db: Database) throws {
        // A journal under 1 KB a pair: paths of jobs and outputs become `name` ids like the pairs' (one copy of
        // each path, whatever refers to it), the short words rows repeat become `term` ids, fingerprints and
        // checksums are packed (JournalPacking.swift) and a plan's fingerprint is the digest of its description;
        // job rows no longer repeat their run's output root and input roots; pair and job rows are keyed
        // without a rowid. Values are converted, none dropped: earlier outputs stay current.
        for function in V7Packing.functions { db.add(function: function) }
        func term(_ column: String) -> String { "(SELECT id FROM term WHERE text = \(column))" }
        func name(_ column: String) -> String { "(SELECT id FROM name WHERE text = \(column))" }
        try db.execute(
            sql: """
                CREATE TABLE term (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
                INSERT OR IGNORE INTO term (text) SELECT t FROM (
                    SELECT deviceSource AS t FROM pair UNION SELECT format FROM pair UNION SELECT referenceSource FROM pair
                    UNION SELECT cause FROM pair UNION SELECT action FROM pair UNION SELECT method FROM pair
                    UNION SELECT methodReason FROM pair UNION SELECT decision FROM pair UNION SELECT measuredBy FROM pair
                    UNION SELECT outcome FROM pair UNION SELECT worker FROM pair UNION SELECT method FROM job
                    UNION SELECT methodReason FROM job UNION SELECT quality FROM job UNION SELECT engine FROM job
                    UNION SELECT worker FROM job UNION SELECT resultWorker FROM job UNION SELECT worker FROM output
                ) WHERE t IS NOT NULL;
                INSERT OR IGNORE INTO name (text) SELECT t FROM (
                    SELECT output AS t FROM pair UNION SELECT recording FROM job UNION SELECT input FROM job
                    UNION SELECT output FROM job UNION SELECT recording FROM output UNION SELECT output FROM output
                ) WHERE t IS NOT NULL;
                CREATE TABLE pair7 (
                    \(pairColumnsV7)
                    PRIMARY KEY (run, recording)
                ) WITHOUT ROWID;
                INSERT INTO pair7 SELECT p.run, p.recording, p.position, p.reference, p.device, \(term("p.deviceSource")),
                    p.sampleRate, p.channels, \(term("p.format")), p.recordingFrames, p.recordingSeconds, p.referenceSeconds,
                    p.referenceDuration, \(term("p.referenceSource")), p.driftSeconds, p.driftPPM, p.endOffsetMs, p.sync, p.flags,
                    \(term("p.cause")), p.causeDetail, \(term("p.action")), \(term("p.method")), \(term("p.methodReason")),
                    p.targetFrames, p.error, p.warnings, \(term("p.decision")), p.operations, \(term("p.measuredBy")),
                    \(name("p.output")), \(term("p.outcome")), p.outputFrames, driftfix_hex(p.checksum), p.attempts,
                    \(term("p.worker")), p.processingSeconds, p.content,
                    CASE WHEN p.executed = p.operations THEN '=' ELSE p.executed END, p.contentNote
                    FROM pair p ORDER BY p.run, p.recording;
                DROP TABLE pair;
                ALTER TABLE pair7 RENAME TO pair;
                CREATE TABLE job7 (
                    run INTEGER NOT NULL REFERENCES run(id),
                    id INTEGER NOT NULL,
                    recording INTEGER NOT NULL, input INTEGER, output INTEGER NOT NULL, outputRoot TEXT, inputRoots TEXT,
                    targetFrames INTEGER NOT NULL, method INTEGER NOT NULL, methodReason INTEGER NOT NULL,
                    quality INTEGER NOT NULL, engine INTEGER, noop INTEGER NOT NULL, wireRun INTEGER,
                    audioSeconds REAL NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'failed')),
                    worker INTEGER, attempts INTEGER NOT NULL, leasedAt REAL, error TEXT,
                    resultAttempt INTEGER, resultWorker INTEGER, outputFrames INTEGER, checksum, seconds REAL,
                    recordingPrint, referencePrint, planPrint,
                    content TEXT, resultContent TEXT, resultSucceeded INTEGER, resultError TEXT,
                    PRIMARY KEY (run, id)
                ) WITHOUT ROWID;
                INSERT INTO job7 SELECT j.run, j.id, \(name("j.recording")),
                    CASE WHEN j.input = j.recording THEN NULL ELSE \(name("j.input")) END, \(name("j.output")),
                    CASE WHEN j.outputRoot = r.outputRoot THEN NULL ELSE j.outputRoot END, j.inputRoots,
                    j.targetFrames, \(term("j.method")), \(term("j.methodReason")), \(term("j.quality")), \(term("j.engine")),
                    j.noop, j.wireRun, j.audioSeconds, j.state, \(term("j.worker")), j.attempts, j.leasedAt, j.error,
                    j.resultAttempt, \(term("j.resultWorker")), j.outputFrames, driftfix_hex(j.checksum), j.seconds,
                    driftfix_print(j.recordingPrint), driftfix_print(j.referencePrint), driftfix_plan_digest(j.planPrint),
                    j.content, j.resultContent, j.resultSucceeded, j.resultError
                    FROM job j JOIN run r ON r.id = j.run ORDER BY j.run, j.id;
                DROP TABLE job;
                ALTER TABLE job7 RENAME TO job;
                CREATE TABLE output7 (
                    recording INTEGER PRIMARY KEY,
                    recordingPrint NOT NULL, referencePrint NOT NULL, planPrint NOT NULL,
                    output INTEGER NOT NULL, outputFrames INTEGER NOT NULL, outputSize INTEGER, outputModified INTEGER,
                    checksum, worker INTEGER, run INTEGER NOT NULL
                );
                INSERT INTO output7 SELECT \(name("o.recording")), driftfix_print(o.recordingPrint),
                    driftfix_print(o.referencePrint), driftfix_plan_digest(o.planPrint), \(name("o.output")), o.outputFrames,
                    o.outputSize, o.outputModified, driftfix_hex(o.checksum), \(term("o.worker")), o.run FROM output o;
                DROP TABLE output;
                ALTER TABLE output7 RENAME TO output;
                """)
    }
}
