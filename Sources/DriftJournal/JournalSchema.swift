import DriftCore
import DriftPlanning
import Foundation
internal import GRDB

extension Journal {
    /// The schema, as numbered migrations: a journal written by an older driftfix is upgraded in place; one written
    /// by a newer driftfix is refused rather than misread.
    static func migrate(_ database: DatabaseQueue, path: String) throws {
        let migrator = makeMigrator()
        try database.write { db in
            if try migrator.hasBeenSuperseded(db) {
                throw JournalError(path: path, cause: .newerSchema("unknown migrations applied"))
            }
        }
        // One migration at a time, the WAL emptied after each: a migration rewrites tables through the WAL, and a
        // new journal or an upgrade must not need the sum of them all in free space, nor keep it afterwards.
        let applied = try database.read { db in try migrator.appliedIdentifiers(db) }
        for identifier in migrator.migrations where !applied.contains(identifier) {
            try migrator.migrate(database, upTo: identifier)
            try database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
    }

    /// Whether a journal opened for reading has every migration this release knows (a reader cannot upgrade it).
    static func isCurrent(_ db: Database) throws -> Bool {
        try makeMigrator().hasCompletedMigrations(db)
    }

    private static func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
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
        migrator.registerMigration("v2 run key") { db in
            // A random key per run, sent with its jobs and echoed in results: run ids restart at 1 in a new
            // journal, keys do not repeat, so a result from another journal's run 1 cannot complete this one's job.
            try db.execute(sql: "ALTER TABLE run ADD COLUMN key INTEGER")
        }
        migrator.registerMigration("v3 records") { db in
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
                        sampleRate INTEGER, channels INTEGER, format TEXT, recordingFrames INTEGER,
                        recordingSeconds REAL, referenceSeconds REAL, referenceDuration TEXT, referenceSource TEXT,
                        driftSeconds REAL, driftPPM REAL, endOffsetMs REAL, sync TEXT, flags TEXT NOT NULL,
                        cause TEXT, causeDetail TEXT, action TEXT NOT NULL, method TEXT, methodReason TEXT,
                        targetFrames INTEGER, error TEXT, warnings TEXT NOT NULL,
                        decision TEXT NOT NULL CHECK (decision IN ('skip', 'refuse', 'repair', 'unchanged')),
                        operations TEXT NOT NULL,
                        measuredBy TEXT NOT NULL,
                        output TEXT, outcome TEXT, outputFrames INTEGER, checksum TEXT, attempts INTEGER, worker TEXT,
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
        migrator.registerMigration("v4 content") { db in
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
        migrator.registerMigration("v5 fleet") { db in
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
                        sampleRate INTEGER, channels INTEGER, format TEXT, recordingFrames INTEGER,
                        recordingSeconds REAL, referenceSeconds REAL, referenceDuration TEXT, referenceSource TEXT,
                        driftSeconds REAL, driftPPM REAL, endOffsetMs REAL, sync TEXT, flags TEXT NOT NULL,
                        cause TEXT, causeDetail TEXT, action TEXT NOT NULL, method TEXT, methodReason TEXT,
                        targetFrames INTEGER, error TEXT, warnings TEXT NOT NULL,
                        decision TEXT NOT NULL CHECK (decision IN ('skip', 'refuse', 'repair', 'unchanged')),
                        operations TEXT NOT NULL,
                        measuredBy TEXT NOT NULL,
                        output TEXT, outcome TEXT, outputFrames INTEGER, checksum TEXT, attempts INTEGER, worker TEXT,
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
        migrator.registerMigration("v6 engine") { db in
            // The resampling library of a job (NULL: libsamplerate, which every earlier job used).
            try db.execute(sql: "ALTER TABLE job ADD COLUMN engine TEXT")
        }
        migrator.registerMigration("v7 compact") { db in
            // A journal under 1 KB a pair: paths of jobs and outputs become `name` ids like the pairs' (one copy of
            // each path, whatever refers to it), the short words rows repeat become `term` ids, fingerprints and
            // checksums are packed (JournalPacking.swift) and a plan's fingerprint is the digest of its description;
            // job rows no longer repeat their run's output root and input roots; pair and job rows are keyed
            // without a rowid. Values are converted, none dropped: earlier outputs stay current.
            for function in PackingFunctions.all { db.add(function: function) }
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
        migrator.registerMigration("v8 sound prints") { db in
            // `driftfix sync`: each file's print of its sound (160 bytes a second) and start timecode, kept while the
            // file's fingerprint is unchanged, so a night prints only new files.
            try db.execute(
                sql: """
                    CREATE TABLE soundPrint (
                        file INTEGER PRIMARY KEY, filePrint NOT NULL, print BLOB NOT NULL, timecode REAL
                    );
                    """)
        }
        migrator.registerMigration("v9 failure kinds") { db in
            // Why a job failed, as a word metrics and scripts read (`input-unreadable`, `output-full`, ...): a
            // `term` id; NULL for jobs that did not fail and for every job before v9.
            try db.execute(sql: "ALTER TABLE job ADD COLUMN failure INTEGER")
        }
        migrator.registerMigration("v10 work") { db in
            // A job's work is one kind (header, content, print, clip, noop: a `term` id) with only the columns that
            // kind has: a header plan's target, method, quality and output are NULL where the work has none, and what
            // else it carries is JSON in `work` (a content job's spec, as v4 stored it; a clip's task), its result's
            // part in `resultWork` (renamed from resultContent). Sound nights are runs too: `run.pairBy` (NULL:
            // names), pair rows keyed by recording and reference (a recorder heard several clips), a clip's output
            // keeps the rows its sync found (`output.sound`), a print when its file began (`soundPrint.started`).
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO term (text) VALUES ('header'), ('content'), ('print'), ('clip'), ('noop');
                    CREATE TABLE job10 (
                        run INTEGER NOT NULL REFERENCES run(id),
                        id INTEGER NOT NULL,
                        recording INTEGER NOT NULL, input INTEGER, kind INTEGER NOT NULL,
                        output INTEGER, outputRoot TEXT, inputRoots TEXT,
                        targetFrames INTEGER, method INTEGER, methodReason INTEGER, quality INTEGER, engine INTEGER,
                        wireRun INTEGER, audioSeconds REAL NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'failed')),
                        worker INTEGER, attempts INTEGER NOT NULL, leasedAt REAL, error TEXT,
                        resultAttempt INTEGER, resultWorker INTEGER, outputFrames INTEGER, checksum, seconds REAL,
                        recordingPrint, referencePrint, planPrint,
                        work TEXT, resultWork TEXT, resultSucceeded INTEGER, resultError TEXT, failure INTEGER,
                        PRIMARY KEY (run, id)
                    ) WITHOUT ROWID;
                    INSERT INTO job10 SELECT j.run, j.id, j.recording, j.input,
                        (SELECT id FROM term WHERE text =
                            CASE WHEN j.noop THEN 'noop' WHEN j.content IS NOT NULL THEN 'content' ELSE 'header' END),
                        CASE WHEN j.noop THEN NULL ELSE j.output END, j.outputRoot, j.inputRoots,
                        j.targetFrames, CASE WHEN j.noop THEN NULL ELSE j.method END,
                        CASE WHEN j.noop THEN NULL ELSE j.methodReason END, CASE WHEN j.noop THEN NULL ELSE j.quality END,
                        j.engine, j.wireRun, j.audioSeconds, j.state, j.worker, j.attempts, j.leasedAt, j.error,
                        j.resultAttempt, j.resultWorker, j.outputFrames, j.checksum, j.seconds,
                        j.recordingPrint, j.referencePrint, j.planPrint,
                        j.content, j.resultContent, j.resultSucceeded, j.resultError, j.failure
                        FROM job j ORDER BY j.run, j.id;
                    DROP TABLE job;
                    ALTER TABLE job10 RENAME TO job;
                    CREATE TABLE pair10 (
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
                        PRIMARY KEY (run, recording, reference)
                    ) WITHOUT ROWID;
                    INSERT INTO pair10 SELECT * FROM pair ORDER BY run, recording, reference;
                    DROP TABLE pair;
                    ALTER TABLE pair10 RENAME TO pair;
                    ALTER TABLE run ADD COLUMN pairBy TEXT;
                    ALTER TABLE output ADD COLUMN sound TEXT;
                    ALTER TABLE soundPrint ADD COLUMN started REAL;
                    """)
        }
        migrator.registerMigration("v11 warnings") { db in
            // What QA should know of a repaired output (a chunk its type cannot hold, a marker moved off its sound),
            // one per line; NULL when nothing, and for every job before v11.
            try db.execute(sql: "ALTER TABLE job ADD COLUMN resultWarnings TEXT")
        }
        migrator.registerMigration("v12 wandering clocks") { db in
            // Per device and run, how many of the recordings the run measured first had a clock whose rate wandered
            // or stepped during the take (by their sound), and the widest such drift span (ppm): its own alert.
            try db.execute(sql: "ALTER TABLE device_run ADD COLUMN wandering INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "ALTER TABLE device_run ADD COLUMN wanderPPM REAL")
        }
        return migrator
    }
}
