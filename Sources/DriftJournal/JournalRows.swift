import DriftCore
import DriftJobs
import DriftPlanning
import DriftSchema
import Foundation
internal import GRDB

// The journal's own record types, one per table, with plain columns: the journal never stores a wire message or a
// report as a blob, so either can change without a schema change, and a schema change is a migration that can
// follow it (JournalSchema.swift).

/// A `run` row.
struct RunRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "run"
    var id: Int64?
    var key: Int64?
    var started: Double
    var finished: Double?
    var status: String
    var ok: Bool?
    /// The roots as JSON (sorted): `a b` and `b a` name the same run.
    var roots: String
    var outputRoot: String
    /// Whether the scan finished and the plan was stored.
    var planned: Bool
    /// When the scan report was made (ISO 8601).
    var generated: String?
    /// How the run paired its files (`RunPairing`); NULL: by names.
    var pairBy: String?
}
/// An `entry` row: a run's unpaired file, scan error or skipped path.
struct EntryRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "entry"
    var run: Int64
    var position: Int
    /// `unpaired-recording`, `unpaired-reference`, `error` or `skipped`.
    var kind: String
    var path: String
    var reason: String
}
/// An `output` row: the last verified output of a recording, from whichever run made it.
struct OutputRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "output"
    /// The recording's id in `name`.
    var recording: Int64
    var recordingPrint: PackedPrint
    var referencePrint: PackedPrint
    var planPrint: PackedHex
    var output: Int64
    var outputFrames: Int64
    var outputSize: Int64?
    var outputModified: Int64?
    var checksum: PackedHex?
    var worker: Int64?
    var run: Int64
    /// A clip's rows (JSON), for a sync by sound.
    var sound: String?
    /// A content job's finding (v13): the sound's measurement (JSON, as `pair.content`), the operations it planned
    /// (one per line) and its note.
    var content: String?
    var operations: String?
    var contentNote: String?

    init(_ record: OutputRecord, ids: JournalIds) throws {
        recording = try ids.name(record.recording)
        recordingPrint = PackedPrint(record.prints.recording)
        referencePrint = PackedPrint(record.prints.reference)
        planPrint = PackedHex(record.prints.plan)
        output = try ids.name(record.output)
        outputFrames = record.outputFrames
        outputSize = record.outputSize
        outputModified = record.outputModified
        checksum = record.checksum.map(PackedHex.init)
        worker = try ids.term(record.worker)
        run = record.run
        sound = JournalJSON.encode(record.matches.map { $0.map(StoredMatch.init) })
        content = JournalJSON.encode(record.finding?.measurement.map(StoredMeasurement.init))
        operations = record.finding.map { RepairOperation.text($0.operations) }
        contentNote = record.finding?.note
    }

    func record(_ texts: JournalTexts) -> OutputRecord? {
        guard let recording = texts.name(recording), let output = texts.name(output) else { return nil }
        return OutputRecord(
            recording: recording,
            prints: JobFingerprints(
                recording: recordingPrint.text, reference: referencePrint.text,
                plan: planPrint.text),
            output: output, outputFrames: outputFrames, outputSize: outputSize, outputModified: outputModified,
            checksum: checksum?.text, worker: texts.term(worker), run: run,
            matches: JournalJSON.decode([StoredMatch].self, sound).flatMap(StoredMatch.value),
            finding: operations.map {
                ContentFinding(
                    measurement: JournalJSON.decode(StoredMeasurement.self, content)?.value, measuredBy: .content,
                    operations: RepairOperation.list($0) ?? [], note: contentNote)
            })
    }
}

/// The small Codable records a few columns hold as JSON: the journal's own forms (`StoredMeasurement`, `StoredMatch`,
/// `StoredClipTask`, `StoredContentResult`, `StoredSoundResult`, `StoredPolicy`), never a wire or report type, so
/// neither format can change what the journal holds; the tests pin their text (StoredFormTests) and read it back.
enum JournalJSON {
    static func encode<T: Encodable>(_ value: T?) -> String? {
        guard let value else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
