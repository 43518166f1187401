import DriftCore
import Foundation
internal import GRDB

// From sound prints to the figures of the best measurement (v8-v13).
extension Journal {
    /// Migration "v8 sound prints".
    static func v8SoundPrints(_ db: Database) throws {
        // `driftfix sync`: each file's print of its sound (160 bytes a second) and start timecode, kept while the
        // file's fingerprint is unchanged, so a night prints only new files.
        try db.execute(
            sql: """
                CREATE TABLE soundPrint (
                    file INTEGER PRIMARY KEY, filePrint NOT NULL, print BLOB NOT NULL, timecode REAL
                );
                """)
    }

    /// Migration "v9 failure kinds".
    static func v9FailureKinds(_ db: Database) throws {
        // Why a job failed, as a word metrics and scripts read (`input-unreadable`, `output-full`, ...): a
        // `term` id; NULL for jobs that did not fail and for every job before v9.
        try db.execute(sql: "ALTER TABLE job ADD COLUMN failure INTEGER")
    }

    /// Migration "v10 work".
    static func v10Work(_ db: Database) throws {
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
                    \(pairColumnsV7)
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

    /// Migration "v11 warnings".
    static func v11Warnings(_ db: Database) throws {
        // What QA should know of a repaired output (a chunk its type cannot hold, a marker moved off its sound),
        // one per line; NULL when nothing, and for every job before v11.
        try db.execute(sql: "ALTER TABLE job ADD COLUMN resultWarnings TEXT")
    }

    /// Migration "v12 wandering clocks".
    static func v12WanderingClocks(_ db: Database) throws {
        // Per device and run, how many of the recordings the run measured first had a clock whose rate wandered
        // or stepped during the take (by their sound), and the widest such drift span (ppm): its own alert.
        try db.execute(sql: "ALTER TABLE device_run ADD COLUMN wandering INTEGER NOT NULL DEFAULT 0")
        try db.execute(sql: "ALTER TABLE device_run ADD COLUMN wanderPPM REAL")
    }

    /// Migration "v13 sound figures".
    static func v13SoundFigures(_ db: Database) throws {
        // A row's figures come from its best measurement: the sync at its first frame and at its worst, by the sound;
        // an output a content job made keeps what its sound found and planned, reported again while the output stands.
        // A sample keeps its start and whether the sound measured it; a device's run row, how many of its samples the
        // sound measured and their median start. Samples of earlier releases that are no clock figure (lengths that
        // differ by more than 300 ppm, the bound of this release: a start or stop apart, a known ratio) are taken out,
        // and the device rows of their runs summarised again, so that no alert compares a clock with a late start.
        try db.execute(
            sql: """
                ALTER TABLE pair ADD COLUMN startOffsetMs REAL;
                ALTER TABLE pair ADD COLUMN worstOffsetMs REAL;
                ALTER TABLE pair ADD COLUMN worstAtSeconds REAL;
                ALTER TABLE sample ADD COLUMN startMs REAL;
                ALTER TABLE sample ADD COLUMN bySound INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE device_run ADD COLUMN bySound INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE device_run ADD COLUMN startMs REAL;
                ALTER TABLE output ADD COLUMN content TEXT;
                ALTER TABLE output ADD COLUMN operations TEXT;
                ALTER TABLE output ADD COLUMN contentNote TEXT;
                CREATE TEMP TABLE v13_touched AS SELECT DISTINCT device, run FROM sample WHERE abs(ppm) > 300;
                DELETE FROM sample WHERE abs(ppm) > 300;
                DELETE FROM latest WHERE abs(ppm) > 300;
                DELETE FROM device_run WHERE (device, run) IN (SELECT device, run FROM v13_touched);
                """)
        // This release's summary, kept here as it was: a migration never changes once released.
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT s.device, s.run, s.ppm FROM sample s JOIN v13_touched t ON t.device = s.device AND t.run = s.run
                ORDER BY s.device, s.run, s.ppm
                """)
        var groups: [[Int64]: [Double]] = [:]
        for row in rows { groups[[row["device"], row["run"]], default: []].append(row["ppm"]) }
        let insert = try db.makeStatement(
            sql: """
                INSERT INTO device_run (device, run, measured, medianPPM, worstPPM, lowerQuartilePPM, upperQuartilePPM)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        for (key, sorted) in groups {
            func quantile(_ q: Double) -> Double {
                let position = q * Double(sorted.count - 1)
                let low = Int(position.rounded(.down))
                let high = min(low + 1, sorted.count - 1)
                return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
            }
            let worst = abs(sorted[0]) > abs(sorted[sorted.count - 1]) ? sorted[0] : sorted[sorted.count - 1]
            try insert.execute(arguments: [
                key[0], key[1], sorted.count, quantile(0.5), worst, quantile(0.25), quantile(0.75),
            ])
        }
        try db.execute(sql: "DROP TABLE v13_touched")
    }
}
