import DriftCore
import DriftSchema
import DriftWire
import Foundation
import Testing

@testable import DriftJournal

/// The journal keeps a few records in its columns as JSON, in forms of its own (a measurement, a clip's rows and
/// task, a job's content and sound results, a content job's policy), copied field by field from the wire's and the
/// report's types. Each is pinned here: a sample with every field set, the exact text the journal writes for it
/// (`StoredForms/NAME.json`, which earlier releases wrote from the wire's and the report's types themselves), and that
/// text read back into the same value. A field of the stored form renamed, removed or retyped fails here and needs a
/// migration (a new JournalSchema step) before its golden file is rewritten (`DRIFTFIX_UPDATE_STORED_FORMS=1`). A
/// field added to a wire or report type fails too, until the sample sets it and the stored form carries it (or
/// says why not).
@Suite struct StoredFormTests {
    @Test("every form the journal stores as JSON is the pinned text, and the pinned text reads back", arguments: forms)
    func pinned(form: StoredForm) throws {
        let unset = form.unset()
        #expect(
            unset.isEmpty, "the \(form.name) sample, or the journal's form of it, leaves fields unset: \(unset)")
        let written = try #require(form.encode(), "the journal cannot encode \(form.name)")
        let file = Self.folder.appendingPathComponent("\(form.name).json")
        if ProcessInfo.processInfo.environment["DRIFTFIX_UPDATE_STORED_FORMS"] == "1" {
            try Data((written + "\n").utf8).write(to: file)
        }
        let pinned = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(
            written == pinned,
            "the journal now stores \(form.name) differently: a migration first, then the golden file")
        #expect(form.readsBack(pinned), "rows the journal holds as \(form.name) no longer read into the same value")
        #expect(form.wireFormReadsBack(), "rows an earlier release wrote from the \(form.name) type itself")
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "StoredForms")

    static let forms: [StoredForm] = [
        StoredForm("ContentMeasurement", Samples.measurement, StoredMeasurement.init, \.value),
        StoredForm("ContentResult", Samples.contentResult, StoredContentResult.init, \.value),
        StoredForm("SoundResult", Samples.soundResult, StoredSoundResult.init, \.value),
        StoredForm(
            "Matches", [Samples.match], { $0.map(StoredMatch.init) }, { StoredMatch.value($0) }),
        StoredForm("ClipTask", Samples.clipTask, StoredClipTask.init, \.value),
        StoredForm("ContentPolicy", Samples.policy, StoredPolicy.init, \.value),
    ]

    @Test("the unset-field check finds a nil and an empty list, at their paths")
    func unsetFieldsAreFound() {
        var measurement = Samples.measurement
        measurement.reason = nil
        measurement.dropouts = []
        let found = StoredForm("probe", measurement, StoredMeasurement.init, \.value).unset()
        #expect(found.contains("reason") && found.contains("dropouts"), "\(found)")
        #expect(StoredForm("probe", Samples.measurement, StoredMeasurement.init, \.value).unset().isEmpty)
    }

    @Test(
        "a measurement as earlier releases wrote it (every key, null where there was no value) reads; one naming a model this build does not know does not"
    )
    func earlierRows() throws {
        let sparse = ContentMeasurement(
            offsetMs: nil, driftPPM: nil, driftPPMError: nil, model: .unmeasurable, confidence: 0,
            reason: "no common sound", unmeasurable: .noCommonSound)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let written = String(decoding: try encoder.encode(sparse), as: UTF8.self)
        #expect(written.contains("\"offsetMs\":null"), "the wire's form writes every key: \(written)")
        #expect(JournalJSON.decode(StoredMeasurement.self, written)?.value == sparse)
        let unknown = written.replacingOccurrences(of: "\"unmeasurable\"", with: "\"sideways\"")
        #expect(JournalJSON.decode(StoredMeasurement.self, unknown)?.value == nil, "\(unknown)")
    }
}

/// One form the journal stores as JSON, type-erased for the parameterised test: the value, and the journal's form of
/// it.
struct StoredForm: Sendable, CustomTestStringConvertible {
    let name: String
    let encode: @Sendable () -> String?
    let readsBack: @Sendable (String) -> Bool
    /// The text the wire's or report's own encoder writes for the value (as the journal did before its own forms)
    /// reads into the same value.
    let wireFormReadsBack: @Sendable () -> Bool
    let unset: @Sendable () -> [String]

    init<Value: Codable & Equatable & Sendable, Stored: Codable & Sendable>(
        _ name: String, _ value: Value, _ store: @escaping @Sendable (Value) -> Stored,
        _ read: @escaping @Sendable (Stored) -> Value?
    ) {
        self.name = name
        encode = { JournalJSON.encode(store(value)) }
        readsBack = { JournalJSON.decode(Stored.self, $0).flatMap(read) == value }
        wireFormReadsBack = {
            JournalJSON.encode(value).flatMap { JournalJSON.decode(Stored.self, $0) }.flatMap(read) == value
        }
        unset = { StoredForm.unset(in: value, at: "") + StoredForm.unset(in: store(value), at: "stored.") }
    }

    var testDescription: String { name }

    /// The paths of every nil optional and empty collection in `value`, however deep: what a golden file would not
    /// show. Leaves (numbers, text, bytes, dates) are not entered.
    static func unset(in value: Any, at path: String) -> [String] {
        if value is String || value is Data || value is Date { return [] }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return [path] }
            return unset(in: wrapped, at: path)
        case .collection, .set, .dictionary:
            if mirror.children.isEmpty { return [path] }
            return mirror.children.enumerated().flatMap { unset(in: $1.value, at: "\(path)[\($0)]") }
        case .struct, .class, .enum, .tuple:
            return mirror.children.flatMap { child in
                unset(in: child.value, at: path.isEmpty ? child.label ?? "?" : "\(path).\(child.label ?? "?")")
            }
        default:
            return []
        }
    }
}

/// Samples with every field set, and every case of an operation.
enum Samples {
    static let lag = [ContentMeasurement.LagPoint(atSeconds: 1.5, lagMs: -0.25)]

    static let measurement: ContentMeasurement = {
        var value = ContentMeasurement(
            offsetMs: 512.5, driftPPM: -131.25, driftPPMError: 0.5, model: .wander, confidence: 0.875,
            dropouts: [.init(atSeconds: 12.5, missingMs: 21.25, uncertaintyMs: 0.125)], headersAgree: false,
            disagreement: "the headers say 0 ppm", residualMs: 0.375, reason: "measured", unmeasurable: .tooShort,
            scatterMs: 0.0625, windows: 40, agreeingWindows: 38, curve: lag)
        value.offsetMsError = 0.25
        value.residualLimitMs = 1
        value.residualCurve = lag
        value.referenceSoundSeconds = 59.5
        value.clock = ClockPath(
            lag: lag, drift: [.init(atSeconds: 30, driftPPM: -130)], startPPM: -131, endPPM: -129, fromSeconds: 0,
            toSeconds: 600, minPPM: -132, maxPPM: -128,
            rateSteps: [.init(atSeconds: 300, uncertaintySeconds: 2, fromPPM: -131, toPPM: -129)])
        return value
    }()

    static let operations: [RepairOperation] = [
        .trimStart(frames: 1), .padStart(frames: 2), .trimEnd(frames: 3), .padEnd(frames: 4),
        .insert(atFrame: 5, frames: 6), .resample(frames: 7), .stretch(frames: 8),
        .warp(frames: 9, knots: [WarpKnot(input: 0, output: 0), WarpKnot(input: 10, output: 9)]),
    ]

    static let contentResult = ContentResult(
        decision: .measured, reason: "in sync by the sound", measuredBy: .content, operations: operations,
        measurement: measurement, planned: .repaired)

    static let candidate: SoundCandidate = {
        var value = SoundCandidate(
            recording: 2, startSeconds: 61.5, clarity: 9.5, ambiguity: 0.25, coverage: 0.875, sharpClarity: 11.5,
            sharpAmbiguity: 0.125)
        value.byHarmony = true
        value.rivals = 1
        value.tentative = false
        value.repeated = false
        return value
    }()

    static let match: SoundPairingReport.Match = {
        var value = SoundPairingReport.Match(
            reference: "cam/A001.mov", recording: "zoom/ZOOM0001.WAV", recordingStartSeconds: 61.5,
            recordingEndSeconds: 121.5, coverage: 0.875, clarity: 9.5, content: measurement, status: .used,
            note: "a second recorder heard it too")
        value.timecodeStartSeconds = 36_000.5
        value.timecodeAgrees = true
        value.recordingDriftPPM = -131.25
        value.recordingDriftPPMError = 0.5
        value.recordingDriftClips = 3
        value.fit = 0.25
        value.decidedBy = "timecode"
        value.repeats = false
        value.output = "out/A001.wav"
        value.outputFrames = 2_903_616
        value.operations = operations
        value.warnings = ["the recorder's clock stepped at 300 s"]
        value.unchanged = false
        return value
    }()

    static let soundResult: SoundResult = {
        var value = SoundResult(print: Data([1, 2, 3, 255]), timecode: 36_000.5, matches: [match])
        value.started = 1_795_000_000.25
        return value
    }()

    static let clipTask: ClipTask = {
        var place = ClipTask.Place(recording: "zoom/ZOOM0001.WAV", candidate: candidate)
        place.timecodeStartSeconds = 36_000.5
        place.recordingFrames = 2_880_000
        place.sampleRate = 48_000
        place.output = "out/A001.wav"
        place.outputConflict = "another clip writes there"
        place.engine = .soxr
        return ClipTask(
            clip: "cam/A001.mov", clipSeconds: 60.5, places: [place], minimumConfidence: 0.5, residualLimitMs: 1,
            quality: .best, mux: true)
    }()

    static let policy: ContentPolicy = {
        var value = ContentPolicy(
            mode: .both, confidenceFloor: 0.625, start: .keep, residualLimit: .milliseconds(1.5),
            headerPrecision: .milliseconds(25))
        value.fallsBackToHeaders = true
        return value
    }()
}
