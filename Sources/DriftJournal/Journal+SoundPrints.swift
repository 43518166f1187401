import Foundation
internal import GRDB

/// `driftfix sync`'s cache: each file's print of its sound and its start timecode, by file fingerprint.
extension Journal {
    /// A file's stored print (the `SoundPrint` stored form) and start timecode, when they were made from the file as
    /// it is now (`fingerprint`, `FileFingerprint.of`).
    public func soundPrint(path: String, fingerprint: String) throws(JournalError) -> (
        print: Data, timecode: Double?, started: Double?
    )? {
        try access { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT s.filePrint, s.print, s.timecode, s.started FROM soundPrint s JOIN name n ON n.id = s.file
                        WHERE n.text = ?
                        """, arguments: [path]),
                let stored = PackedPrint.fromDatabaseValue(row[0]), stored.text == fingerprint
            else { return nil }
            return (row[1] as Data, row[2] as Double?, row[3] as Double?)
        }
    }

    /// Keeps a file's print and start timecode, replacing what was kept for an earlier version of the file.
    public func storeSoundPrint(
        path: String, fingerprint: String, print: Data, timecode: Double?, started: Double? = nil
    ) throws(JournalError) {
        try write { db in
            try Self.storeSoundPrint(
                db,
                KeptPrint(path: path, fingerprint: fingerprint, print: print, timecode: timecode, started: started))
        }
    }

    static func storeSoundPrint(_ db: Database, _ kept: KeptPrint) throws {
        let file = try NameTable.intern(db, [kept.path])[kept.path] ?? 0
        try db.execute(
            sql: "INSERT OR REPLACE INTO soundPrint (file, filePrint, print, timecode, started) VALUES (?, ?, ?, ?, ?)",
            arguments: [file, PackedPrint(kept.fingerprint), kept.print, kept.timecode, kept.started])
    }
}

/// A file's print as the journal keeps it, by the file's fingerprint.
struct KeptPrint {
    var path: String
    var fingerprint: String
    var print: Data
    var timecode: Double?
    var started: Double?
}
