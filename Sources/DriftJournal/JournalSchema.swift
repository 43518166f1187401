internal import GRDB

extension Journal {
    /// The schema, as numbered migrations: a journal written by an older driftfix is upgraded in place; one written
    /// by a newer driftfix is refused rather than misread.
    static func migrate(_ database: DatabaseQueue, path: String) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // One row per `driftfix repair`; `report` is the plan (the scan report) once the scan finished, and the
            // final report with outcomes once the run ended.
            try db.execute(sql: """
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
        try database.write { db in
            if try migrator.hasBeenSuperseded(db) {
                throw JournalError(path: path, cause: .newerSchema("unknown migrations applied"))
            }
        }
        try migrator.migrate(database)
    }
}
