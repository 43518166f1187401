import DriftCore
import DriftPlanning
import DriftSchema
import Foundation
internal import GRDB

/// A `pair` row: one pair of a run - its scan row, its plan, and its outcome once the run ended. Paths are ids in
/// `name`, the short words (format, cause, method, worker, ...) ids in `term`, and what the row can derive is not
/// stored: a night's row of an unchanged fleet costs about 200 bytes.
struct PairRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pair"
    var run: Int64
    /// The recording, reference and device, as ids in the `name` table.
    var recording: Int64
    /// The row's place in the report.
    var position: Int
    var reference: Int64
    var device: Int64
    var deviceSource: Int64
    var sampleRate: Int?
    var channels: Int?
    var format: Int64?
    var recordingFrames: Int64?
    var recordingSeconds: Double?
    var referenceSeconds: Double?
    var referenceDuration: String?
    var referenceSource: Int64?
    var driftSeconds: Double?
    var driftPPM: Double?
    var endOffsetMs: Double?
    /// NULL: the phrase its cause and offset read as (`PairReport.syncPhrase`); "" for none where one would be read.
    var sync: String?
    /// Flag names joined with ";".
    var flags: String
    var cause: Int64?
    var causeDetail: String?
    var action: Int64
    var method: Int64?
    var methodReason: Int64?
    var targetFrames: Int64?
    var error: String?
    /// One warning per line.
    var warnings: String
    /// The plan: skip, refuse, repair or unchanged.
    var decision: Int64
    /// `RepairOperation` text, one per line.
    var operations: String
    var measuredBy: Int64
    var output: Int64?
    /// The outcome (or, for `unchanged`, the earlier output it keeps).
    var outcome: Int64?
    var outputFrames: Int64?
    var checksum: PackedHex?
    var attempts: Int?
    var worker: Int64?
    var processingSeconds: Double?
    /// The sound's measurement (JSON), once a content job reported it.
    var content: String?
    /// The operations that ran, one per line (a content job's own plan); "=" when they are the planned ones.
    var executed: String?
    var contentNote: String?
    /// The sync at the first frame and at its worst (ms), and when (s): the sound's figures (v13; NULL before).
    var startOffsetMs: Double?
    var worstOffsetMs: Double?
    var worstAtSeconds: Double?

    /// The row of `row` and its plan.
    init(run: Int64, position: Int, row: PairReport, plan: PairPlan?, ids: JournalIds) throws {
        self.run = run
        self.position = position
        recording = try ids.name(row.recordingText)
        reference = try ids.name(row.referenceText)
        device = try ids.name(row.device)
        deviceSource = try ids.term(row.deviceSource)
        sampleRate = row.sampleRate
        channels = row.channels
        format = try ids.term(row.format)
        recordingFrames = row.recordingFrames
        recordingSeconds = row.recordingSeconds
        referenceSeconds = row.referenceSeconds
        referenceDuration = row.referenceDuration
        referenceSource = try ids.term(row.referenceSource)
        driftSeconds = row.driftSeconds
        driftPPM = row.driftPPM
        endOffsetMs = row.endOffsetMs
        startOffsetMs = row.startOffsetMs
        worstOffsetMs = row.worstOffsetMs
        worstAtSeconds = row.worstAtSeconds
        flags = row.flags.map(\.rawValue).joined(separator: ";")
        cause = try ids.term(row.cause?.rawValue)
        causeDetail = row.causeDetail
        action = try ids.term(row.action.rawValue)
        method = try ids.term(row.method?.rawValue)
        methodReason = try ids.term(row.methodReason)
        targetFrames = row.targetFrames
        error = row.error
        warnings = row.warnings.joined(separator: "\n")
        contentNote = row.contentNote
        var decision = "skip"
        operations = ""
        measuredBy = try ids.term(PairPlan.Measurement.headers.rawValue)
        var outcome = row.outcome?.rawValue
        var output = row.outputText
        var checksum = row.checksum
        var worker = row.worker
        outputFrames = row.outputFrames
        if let plan {
            switch plan.decision {
            case .skip: decision = "skip"
            case .refuse: decision = "refuse"
            case .repair: decision = "repair"
            case .unchanged(let previous):
                decision = "unchanged"
                outcome = RepairOutcome.unchanged.rawValue
                output = previous.output
                outputFrames = previous.outputFrames
                checksum = previous.checksum
                worker = previous.worker
            }
            operations = RepairOperation.text(plan.operations)
            measuredBy = try ids.term(plan.measuredBy.rawValue)
            if plan.decision == .repair { output = plan.output }
        }
        self.decision = try ids.term(decision)
        self.outcome = try ids.term(outcome)
        self.output = try ids.name(output)
        self.checksum = checksum.map(PackedHex.init)
        self.worker = try ids.term(worker)
        attempts = row.attempts
        processingSeconds = row.processingSeconds
        content = JournalJSON.encode(row.content.map(StoredMeasurement.init))
        executed = Self.executed(row.operations, planned: operations)
        sync = Self.storedSync(row)
    }

    /// NULL where the row's sync reads as its figures do (`PairReport.syncPhrase`), else the phrase ("" for none).
    static func storedSync(_ row: PairReport) -> String? {
        let derived = PairReport.syncPhrase(
            cause: row.cause, startOffsetMs: row.startOffsetMs, endOffsetMs: row.endOffsetMs)
        return row.sync == derived ? nil : (row.sync ?? "")
    }

    static func executed(_ operations: [RepairOperation], planned: String) -> String? {
        guard !operations.isEmpty else { return nil }
        let text = RepairOperation.text(operations)
        return text == planned ? "=" : text
    }

    /// The report row as stored (with its outcome, once the run ended).
    func report(_ texts: JournalTexts) -> PairReport {
        let recording = texts.name(recording) ?? ""
        var row = PairReport(
            recording: recording, reference: texts.name(reference) ?? "",
            folder: (recording as NSString).deletingLastPathComponent, error: error ?? "")
        row.device = texts.name(device) ?? row.device
        row.deviceSource = texts.term(deviceSource) ?? row.deviceSource
        row.error = error
        row.sampleRate = sampleRate
        row.channels = channels
        row.format = texts.term(format)
        row.recordingFrames = recordingFrames
        row.recordingSeconds = recordingSeconds
        row.referenceSeconds = referenceSeconds
        row.referenceDuration = referenceDuration
        row.lengthDifferenceSeconds = PairReport.lengthDifference(
            frames: recordingFrames, sampleRate: sampleRate, referenceDuration: referenceDuration)
        row.referenceSource = texts.term(referenceSource)
        row.driftSeconds = driftSeconds
        row.driftPPM = driftPPM
        row.endOffsetMs = endOffsetMs
        row.startOffsetMs = startOffsetMs
        row.worstOffsetMs = worstOffsetMs
        row.worstAtSeconds = worstAtSeconds
        row.flags = flags.split(separator: ";").compactMap { SyncFlag(rawValue: String($0)) }
        row.cause = texts.term(cause).flatMap(DriftCause.init(rawValue:))
        row.sync =
            sync.map { $0.isEmpty ? nil : $0 }
            ?? PairReport.syncPhrase(cause: row.cause, startOffsetMs: startOffsetMs, endOffsetMs: endOffsetMs)
        row.causeDetail = causeDetail
        row.action = texts.term(action).flatMap(PlanAction.init(rawValue:)) ?? .refuse
        row.method = texts.term(method).flatMap(RepairMethod.init(rawValue:))
        row.methodReason = texts.term(methodReason)
        row.targetFrames = targetFrames
        row.warnings = warnings.isEmpty ? [] : warnings.components(separatedBy: "\n")
        let outcome = texts.term(outcome)
        row.outcome = outcome.flatMap(RepairOutcome.init(rawValue:))
        // Until the run ends the column holds the plan's output path; the report names an output only with an outcome.
        row.outputText = outcome == nil ? nil : texts.name(output)
        row.outputFrames = outputFrames
        row.checksum = checksum?.text
        row.attempts = attempts
        row.worker = texts.term(worker)
        row.processingSeconds = processingSeconds
        row.measuredBy = texts.term(measuredBy).flatMap(PlanMeasurement.init(rawValue:)) ?? .headers
        row.content = JournalJSON.decode(StoredMeasurement.self, content)?.value
        // One text form in every column (`RepairOperation.text`); a line that does not parse is dropped, not fatal.
        row.operations =
            executed.map { text in
                (text == "=" ? operations : text).split(separator: "\n").compactMap { RepairOperation($0) }
            } ?? []
        row.contentNote = contentNote
        return row
    }

    /// The pair's plan as stored; nil when the stored operations do not parse.
    func plan(_ texts: JournalTexts) -> PairPlan? {
        guard let recording = texts.name(recording), let reference = texts.name(reference) else { return nil }
        guard let operations = RepairOperation.list(operations) else { return nil }
        let choice = texts.term(method).flatMap(RepairMethod.init(rawValue:))
            .map { MethodChoice(method: $0, reason: texts.term(methodReason) ?? "") }
        let output = texts.name(output)
        let decision: PairPlan.Decision
        switch texts.term(self.decision) {
        case "skip": decision = .skip
        case "refuse": decision = .refuse(error ?? "refused")
        case "repair": decision = .repair
        case "unchanged":
            guard let output, let outputFrames else { return nil }
            decision = .unchanged(
                PreviousOutput(
                    output: output, outputFrames: outputFrames, checksum: checksum?.text,
                    worker: texts.term(worker)))
        default: return nil
        }
        return PairPlan(
            id: PairID(recording: recording), reference: reference, decision: decision, operations: operations,
            targetFrames: targetFrames, method: choice,
            measuredBy: texts.term(measuredBy).flatMap(PairPlan.Measurement.init(rawValue:)) ?? .headers,
            output: decision == .repair ? output : nil, audioSeconds: recordingSeconds ?? 0)
    }
}
