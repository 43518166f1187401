import DriftCore
import Foundation
internal import GRDB

// The schema from the first release to the resampling engine (v1-v6).
extension Journal {
    /// A pair's scan row, plan and outcome as v3 made them and v5 copied them (frozen: what those versions wrote).
    static let pairRecordColumnsV3 = """
        sampleRate INTEGER, channels INTEGER, format TEXT, recordingFrames INTEGER,
        recordingSeconds REAL, referenceSeconds REAL, referenceDuration TEXT, referenceSource TEXT,
        driftSeconds REAL, driftPPM REAL, endOffsetMs REAL, sync TEXT, flags TEXT NOT NULL,
        cause TEXT, causeDetail TEXT, action TEXT NOT NULL, method TEXT, methodReason TEXT,
        targetFrames INTEGER, error TEXT, warnings TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('skip', 'refuse', 'repair', 'unchanged')),
        operations TEXT NOT NULL,
        measuredBy TEXT NOT NULL,
        output TEXT, outcome TEXT, outputFrames INTEGER, checksum TEXT, attempts INTEGER, worker TEXT,
        """

    /// Migration "v1".
    static func v1(_ db: Database) throws {
        // One row per `driftfix repair`; `report` was the plan (the scan report) once the scan finished, and the
        // final report with outcomes once the run ended (replaced by `pair` rows in v3).
        try db.execute(
            sql: """
                CREATE TABLE run (
                    id INTEGER PRIMARY KEY,
                    started REAL NOT NULL,
                    finished REAL,
                    status TEXT NOT NULL,
                    ok INTEGER,
                    roots TEXT NOT NULL,
                    outputRoot TEXT NOT NULL,
                    report BLOB
                );
                CREATE TABLE job (
                    run INTEGER NOT NULL REFERENCES run(id),
                    id INTEGER NOT NULL,
                    row INTEGER NOT NULL,
                    spec BLOB NOT NULL,
                    audioSeconds REAL NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'failed')),
                    worker TEXT,
                    attempts INTEGER NOT NULL,
                    leasedAt REAL,
                    result BLOB,
                    error TEXT,
                    prints BLOB,
                    PRIMARY KEY (run, id)
                );
                CREATE TABLE output (
                    recording TEXT PRIMARY KEY,
                    prints BLOB NOT NULL,
                    output TEXT NOT NULL,
                    outputFrames INTEGER NOT NULL,
                    outputSize INTEGER,
                    outputModified INTEGER,
                    checksum TEXT,
                    worker TEXT,
                    run INTEGER NOT NULL
                );
                CREATE TABLE measurement (
                    run INTEGER NOT NULL REFERENCES run(id),
                    recording TEXT NOT NULL,
                    folder TEXT NOT NULL,
                    ppm REAL NOT NULL,
                    endOffsetMs REAL,
                    PRIMARY KEY (run, recording)
                );
                CREATE INDEX measurement_folder ON measurement (folder, run);
                """)
    }

    /// Migration "v2 run key".
    static func v2RunKey(_ db: Database) throws {
        // A random key per run, sent with its jobs and echoed in results: run ids restart at 1 in a new
        // journal, keys do not repeat, so a result from another journal's run 1 cannot complete this one's job.
        try db.execute(sql: "ALTER TABLE run ADD COLUMN key INTEGER")
    }

    /// Migration "v3 records".
    static func v3Records(_ db: Database) throws {
        // Plain columns instead of JSON blobs of wire messages and reports: one `pair` row per pair (its scan
        // row, its plan, its outcome), `entry` rows for unpaired files, scan errors and skipped paths, and jobs
        // and outputs as columns. Old rows are converted from the JSON the previous release wrote.
        try db.execute(
            sql: """
                CREATE TABLE pair (
                    run INTEGER NOT NULL REFERENCES run(id),
                    position INTEGER NOT NULL,
                    recording TEXT NOT NULL,
                    reference TEXT NOT NULL,
                    folder TEXT NOT NULL,
                    \(pairRecordColumnsV3)
                    processingSeconds REAL,
                    PRIMARY KEY (run, recording)
                );
                CREATE TABLE entry (
                    run INTEGER NOT NULL REFERENCES run(id),
                    position INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('unpaired-recording', 'unpaired-reference', 'error', 'skipped')),
                    path TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    PRIMARY KEY (run, position)
                );
                CREATE TABLE job3 (
                    run INTEGER NOT NULL REFERENCES run(id),
                    id INTEGER NOT NULL,
                    recording TEXT NOT NULL,
                    input TEXT NOT NULL, output TEXT NOT NULL, outputRoot TEXT NOT NULL, inputRoots TEXT,
                    targetFrames INTEGER NOT NULL, method TEXT NOT NULL, methodReason TEXT NOT NULL, quality TEXT NOT NULL,
                    noop INTEGER NOT NULL, wireRun INTEGER, audioSeconds REAL NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'failed')),
                    worker TEXT, attempts INTEGER NOT NULL, leasedAt REAL, error TEXT,
                    resultAttempt INTEGER, resultWorker TEXT, outputFrames INTEGER, checksum TEXT, seconds REAL,
                    recordingPrint TEXT, referencePrint TEXT, planPrint TEXT,
                    PRIMARY KEY (run, id)
                );
                CREATE TABLE output3 (
                    recording TEXT PRIMARY KEY,
                    recordingPrint TEXT NOT NULL, referencePrint TEXT NOT NULL, planPrint TEXT NOT NULL,
                    output TEXT NOT NULL, outputFrames INTEGER NOT NULL, outputSize INTEGER, outputModified INTEGER,
                    checksum TEXT, worker TEXT, run INTEGER NOT NULL
                );
                ALTER TABLE run ADD COLUMN planned INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE run ADD COLUMN generated TEXT;
                """)
        try LegacyJournal.convert(db)
        try db.execute(
            sql: """
                DROP TABLE job;
                ALTER TABLE job3 RENAME TO job;
                DROP TABLE output;
                ALTER TABLE output3 RENAME TO output;
                ALTER TABLE run DROP COLUMN report;
                """)
    }

    /// Migration "v4 content".
    static func v4Content(_ db: Database) throws {
        // Content jobs and what they found: the job's content spec and its result (JSON of the wire's small
        // Codable records: policy, decision, measurement), whether a done job succeeded (a failed sync proof is
        // done with its measurement); per pair, the measurement, the operations that ran and the note.
        try db.execute(
            sql: """
                ALTER TABLE job ADD COLUMN content TEXT;
                ALTER TABLE job ADD COLUMN resultContent TEXT;
                ALTER TABLE job ADD COLUMN resultSucceeded INTEGER;
                ALTER TABLE job ADD COLUMN resultError TEXT;
                ALTER TABLE pair ADD COLUMN content TEXT;
                ALTER TABLE pair ADD COLUMN executed TEXT;
                ALTER TABLE pair ADD COLUMN contentNote TEXT;
                """)
    }

    /// Migration "v5 fleet".
    static func v5Fleet(_ db: Database) throws {
        // Fleet scale: every path and device name stored once (`name`), pair rows referring to them; drift
        // history as compact per-recording rows (`sample`, clustered by device so one device's history is one
        // range) of the recordings a run measured first, each recording's last drift (`latest`, to tell), and
        // per-device summaries of each run (`device_run`, what the fleet's trends and alerts read).
        // Measurements of earlier releases become samples of their folder, which was their device then.
        try db.execute(
            sql: """
                CREATE TABLE name (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
                CREATE TABLE sample (
                    device INTEGER NOT NULL, run INTEGER NOT NULL, recording INTEGER NOT NULL, ppm REAL NOT NULL,
                    PRIMARY KEY (device, run, recording)
                ) WITHOUT ROWID;
                CREATE TABLE device_run (
                    device INTEGER NOT NULL, run INTEGER NOT NULL, measured INTEGER NOT NULL,
                    medianPPM REAL NOT NULL, worstPPM REAL NOT NULL, lowerQuartilePPM REAL NOT NULL,
                    upperQuartilePPM REAL NOT NULL,
                    PRIMARY KEY (device, run)
                ) WITHOUT ROWID;
                CREATE TABLE latest (recording INTEGER PRIMARY KEY, ppm REAL NOT NULL, run INTEGER NOT NULL);
                CREATE INDEX device_run_run ON device_run (run);
                INSERT OR IGNORE INTO name (text)
                    SELECT folder FROM measurement UNION SELECT recording FROM measurement
                    UNION SELECT recording FROM pair UNION SELECT reference FROM pair UNION SELECT folder FROM pair;
                INSERT OR IGNORE INTO sample (device, run, recording, ppm)
                    SELECT f.id, m.run, r.id, m.ppm FROM measurement m
                    JOIN name f ON f.text = m.folder JOIN name r ON r.text = m.recording;
                DROP TABLE measurement;
                CREATE TABLE pair5 (
                    run INTEGER NOT NULL REFERENCES run(id),
                    position INTEGER NOT NULL,
                    recording INTEGER NOT NULL,
                    reference INTEGER NOT NULL,
                    device INTEGER NOT NULL,
                    deviceSource TEXT NOT NULL,
                    \(pairRecordColumnsV3)
                    processingSeconds REAL, content TEXT, executed TEXT, contentNote TEXT,
                    PRIMARY KEY (run, recording)
                );
                INSERT INTO pair5 SELECT p.run, p.position, r.id, f.id, d.id, 'folder', p.sampleRate, p.channels, p.format,
                    p.recordingFrames, p.recordingSeconds, p.referenceSeconds, p.referenceDuration, p.referenceSource,
                    p.driftSeconds, p.driftPPM, p.endOffsetMs, p.sync, p.flags, p.cause, p.causeDetail, p.action, p.method,
                    p.methodReason, p.targetFrames, p.error, p.warnings, p.decision, p.operations, p.measuredBy, p.output,
                    p.outcome, p.outputFrames, p.checksum, p.attempts, p.worker, p.processingSeconds, p.content, p.executed,
                    p.contentNote
                    FROM pair p JOIN name r ON r.text = p.recording JOIN name f ON f.text = p.reference
                    JOIN name d ON d.text = p.folder;
                DROP TABLE pair;
                ALTER TABLE pair5 RENAME TO pair;
                """)
        try DeviceRunRow.summariseSamples(db)
    }

    /// Migration "v6 engine".
    static func v6Engine(_ db: Database) throws {
        // The resampling library of a job (NULL: libsamplerate, which every earlier job used).
        try db.execute(sql: "ALTER TABLE job ADD COLUMN engine TEXT")
    }
}
