import DriftCore
import DriftSchema

/// A clip's row as the journal stores it (`output.sound`, a clip job's result): its own copy of the report's
/// `SoundPairingReport.Match` (StoredMeasurement.swift says why).
struct StoredMatch: Codable, Equatable {
    var reference: String
    var recording: String
    var recordingStartSeconds: Double?
    var recordingEndSeconds: Double?
    var coverage: Double
    var clarity: Double
    var content: StoredMeasurement?
    var timecodeStartSeconds: Double?
    var timecodeAgrees: Bool?
    var recordingDriftPPM: Double?
    var recordingDriftPPMError: Double?
    var recordingDriftClips: Int?
    var status: String
    var note: String?
    var fit: Double?
    var decidedBy: String?
    var repeats: Bool?
    var output: String?
    var outputFrames: Int64?
    var operations: [String]?
    var warnings: [String]?
    var unchanged: Bool?

    init(_ match: SoundPairingReport.Match) {
        reference = match.referenceText
        recording = match.recordingText
        recordingStartSeconds = match.recordingStartSeconds
        recordingEndSeconds = match.recordingEndSeconds
        coverage = match.coverage
        clarity = match.clarity
        content = match.content.map(StoredMeasurement.init)
        timecodeStartSeconds = match.timecodeStartSeconds
        timecodeAgrees = match.timecodeAgrees
        recordingDriftPPM = match.recordingDriftPPM
        recordingDriftPPMError = match.recordingDriftPPMError
        recordingDriftClips = match.recordingDriftClips
        status = match.status.rawValue
        note = match.note
        fit = match.fit
        decidedBy = match.decidedBy
        repeats = match.repeats
        output = match.outputText
        outputFrames = match.outputFrames
        operations = match.operations.map(StoredOperations.text)
        warnings = match.warnings
        unchanged = match.unchanged
    }

    /// The row; nil where a name or an operation is not one this build knows.
    var value: SoundPairingReport.Match? {
        guard let status = SoundPairingReport.Match.Status(rawValue: status) else { return nil }
        var measurement: ContentMeasurement?
        if let content {
            guard let known = content.value else { return nil }
            measurement = known
        }
        var match = SoundPairingReport.Match(
            reference: reference, recording: recording, recordingStartSeconds: recordingStartSeconds,
            recordingEndSeconds: recordingEndSeconds, coverage: coverage, clarity: clarity, content: measurement,
            status: status, note: note)
        if let operations {
            guard let known = StoredOperations.value(operations) else { return nil }
            match.operations = known
        }
        match.timecodeStartSeconds = timecodeStartSeconds
        match.timecodeAgrees = timecodeAgrees
        match.recordingDriftPPM = recordingDriftPPM
        match.recordingDriftPPMError = recordingDriftPPMError
        match.recordingDriftClips = recordingDriftClips
        match.fit = fit
        match.decidedBy = decidedBy
        match.repeats = repeats
        match.outputText = output
        match.outputFrames = outputFrames
        match.warnings = warnings
        match.unchanged = unchanged
        return match
    }

    /// A list of rows; nil where any is unreadable.
    static func value(_ rows: [StoredMatch]) -> [SoundPairingReport.Match]? { rows.convertedWhole(\.value) }
}
