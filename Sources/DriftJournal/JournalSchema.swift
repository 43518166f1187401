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

    /// Every migration in order, each its own unit (`JournalMigrations+*.swift`); an identifier is never renamed or
    /// reused, and a migration's SQL is never edited once released: journals in the field were written by it. What a
    /// migration calls is a copy of its own (`V7Packing`), never live code that may change after it.
    static let migrations: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1", v1),
        ("v2 run key", v2RunKey),
        ("v3 records", v3Records),
        ("v4 content", v4Content),
        ("v5 fleet", v5Fleet),
        ("v6 engine", v6Engine),
        ("v7 compact", v7Compact),
        ("v8 sound prints", v8SoundPrints),
        ("v9 failure kinds", v9FailureKinds),
        ("v10 work", v10Work),
        ("v11 warnings", v11Warnings),
        ("v12 wandering clocks", v12WanderingClocks),
        ("v13 sound figures", v13SoundFigures),
    ]

    private static func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (identifier, migrate) in migrations { migrator.registerMigration(identifier, migrate: migrate) }
        return migrator
    }
}
