import DriftCore
import DriftCoordinator
import DriftPlanning
import DriftSchema
import DriftWire
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
}

/// A `pair` row: one pair of a run - its scan row, its plan, and its outcome once the run ended.
struct PairRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pair"
    var run: Int64
    /// The row's place in the report.
    var position: Int
    /// The recording, reference and device, as ids in the `name` table.
    var recording: Int64
    var reference: Int64
    var device: Int64
    var deviceSource: String
    var sampleRate: Int?
    var channels: Int?
    var format: String?
    var recordingFrames: Int64?
    var recordingSeconds: Double?
    var referenceSeconds: Double?
    var referenceDuration: String?
    var referenceSource: String?
    var driftSeconds: Double?
    var driftPPM: Double?
    var endOffsetMs: Double?
    var sync: String?
    /// Flag names joined with ";".
    var flags: String
    var cause: String?
    var causeDetail: String?
    var action: String
    var method: String?
    var methodReason: String?
    var targetFrames: Int64?
    var error: String?
    /// One warning per line.
    var warnings: String
    /// The plan: skip, refuse, repair or unchanged.
    var decision: String
    /// `RepairOperation` text, one per line.
    var operations: String
    var measuredBy: String
    var output: String?
    /// The outcome (or, for `unchanged`, the earlier output it keeps).
    var outcome: String?
    var outputFrames: Int64?
    var checksum: String?
    var attempts: Int?
    var worker: String?
    var processingSeconds: Double?
    /// The sound's measurement (JSON), once a content job reported it.
    var content: String?
    /// The operations that ran, one per line (a content job's own plan).
    var executed: String?
    var contentNote: String?

    /// The row of `row`, whose recording, reference and device are in `ids`.
    init(run: Int64, position: Int, row: PairReport, plan: PairPlan?, ids: [String: Int64]) {
        self.run = run
        self.position = position
        recording = ids[row.recording] ?? 0
        reference = ids[row.reference] ?? 0
        device = ids[row.device] ?? 0
        deviceSource = row.deviceSource
        sampleRate = row.sampleRate
        channels = row.channels
        format = row.format
        recordingFrames = row.recordingFrames
        recordingSeconds = row.recordingSeconds
        referenceSeconds = row.referenceSeconds
        referenceDuration = row.referenceDuration
        referenceSource = row.referenceSource
        driftSeconds = row.driftSeconds
        driftPPM = row.driftPPM
        endOffsetMs = row.endOffsetMs
        sync = row.sync
        flags = row.flags.map(\.rawValue).joined(separator: ";")
        cause = row.cause?.rawValue
        causeDetail = row.causeDetail
        action = row.action.rawValue
        method = row.method?.rawValue
        methodReason = row.methodReason
        targetFrames = row.targetFrames
        error = row.error
        warnings = row.warnings.joined(separator: "\n")
        outcome = row.outcome?.rawValue
        output = row.output
        outputFrames = row.outputFrames
        checksum = row.checksum
        attempts = row.attempts
        worker = row.worker
        processingSeconds = row.processingSeconds
        content = JournalJSON.encode(row.content)
        executed = row.operations.isEmpty ? nil : row.operations.joined(separator: "\n")
        contentNote = row.contentNote
        decision = "skip"
        operations = ""
        measuredBy = PairPlan.Measurement.headers.rawValue
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
            measuredBy = plan.measuredBy.rawValue
            if plan.decision == .repair { output = plan.output }
        }
    }

    /// The report row as stored (with its outcome, once the run ended); `names` holds the row's ids.
    func report(names: [Int64: String]) -> PairReport {
        let recording = names[recording] ?? ""
        var row = PairReport(recording: recording, reference: names[reference] ?? "",
                             folder: (recording as NSString).deletingLastPathComponent, error: error ?? "")
        row.device = names[device] ?? row.device
        row.deviceSource = deviceSource
        row.error = error
        row.sampleRate = sampleRate
        row.channels = channels
        row.format = format
        row.recordingFrames = recordingFrames
        row.recordingSeconds = recordingSeconds
        row.referenceSeconds = referenceSeconds
        row.referenceDuration = referenceDuration
        row.referenceSource = referenceSource
        row.driftSeconds = driftSeconds
        row.driftPPM = driftPPM
        row.endOffsetMs = endOffsetMs
        row.sync = sync
        row.flags = flags.split(separator: ";").compactMap { SyncFlag(rawValue: String($0)) }
        row.cause = cause.flatMap(DriftCause.init(rawValue:))
        row.causeDetail = causeDetail
        row.action = PlanAction(rawValue: action) ?? .refuse
        row.method = method.flatMap(RepairMethod.init(rawValue:))
        row.methodReason = methodReason
        row.targetFrames = targetFrames
        row.warnings = warnings.isEmpty ? [] : warnings.components(separatedBy: "\n")
        row.outcome = outcome.flatMap(RepairOutcome.init(rawValue:))
        // Until the run ends the column holds the plan's output path; the report names an output only with an outcome.
        row.output = outcome == nil ? nil : output
        row.outputFrames = outputFrames
        row.checksum = checksum
        row.attempts = attempts
        row.worker = worker
        row.processingSeconds = processingSeconds
        row.measuredBy = PlanMeasurement(rawValue: measuredBy) ?? .headers
        row.content = JournalJSON.decode(ContentMeasurement.self, content)
        row.operations = executed.map { $0.components(separatedBy: "\n") } ?? []
        row.contentNote = contentNote
        return row
    }

    /// The pair's plan as stored; nil when the stored operations do not parse.
    func plan(names: [Int64: String]) -> PairPlan? {
        guard let recording = names[recording], let reference = names[reference] else { return nil }
        guard let operations = RepairOperation.list(operations) else { return nil }
        let choice = method.flatMap(RepairMethod.init(rawValue:)).map { MethodChoice(method: $0, reason: methodReason ?? "") }
        let decision: PairPlan.Decision
        switch self.decision {
        case "skip": decision = .skip
        case "refuse": decision = .refuse(error ?? "refused")
        case "repair": decision = .repair
        case "unchanged":
            guard let output, let outputFrames else { return nil }
            decision = .unchanged(PreviousOutput(output: output, outputFrames: outputFrames, checksum: checksum, worker: worker))
        default: return nil
        }
        return PairPlan(id: PairID(recording: recording), reference: reference, decision: decision, operations: operations,
                        targetFrames: targetFrames, method: choice,
                        measuredBy: PairPlan.Measurement(rawValue: measuredBy) ?? .headers,
                        output: decision == .repair ? output : nil, audioSeconds: recordingSeconds ?? 0)
    }
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

/// A `job` row: a job's spec, state and verified result as columns.
struct JobRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "job"
    var run: Int64
    var id: Int
    var recording: String
    var input: String
    var output: String
    var outputRoot: String
    /// One root per line; nil when the job named none.
    var inputRoots: String?
    var targetFrames: Int64
    var method: String
    var methodReason: String
    var quality: String
    /// The resampling engine; nil is libsamplerate (and every job before v6).
    var engine: String?
    var noop: Bool
    /// The run key the job carries on the wire.
    var wireRun: Int64?
    var audioSeconds: Double
    var state: String
    var worker: String?
    var attempts: Int
    var leasedAt: Double?
    var error: String?
    // The verified result of a done job.
    var resultAttempt: Int?
    var resultWorker: String?
    var outputFrames: Int64?
    var checksum: String?
    var seconds: Double?
    // What the output will be made from (incremental runs); nil when the inputs could not be fingerprinted.
    var recordingPrint: String?
    var referencePrint: String?
    var planPrint: String?
    /// A content job's spec (JSON); nil for header jobs.
    var content: String?
    /// A content job's result (JSON), and whether a done job succeeded (nil: yes, as rows before v4).
    var resultContent: String?
    var resultSucceeded: Bool?
    var resultError: String?

    init(run: Int64, job: JobRecord, prints: JobFingerprints?) {
        self.run = run
        id = job.id
        recording = job.pair.recording
        input = job.spec.input
        output = job.spec.output
        outputRoot = job.spec.outputRoot
        inputRoots = job.spec.inputRoots?.joined(separator: "\n")
        targetFrames = job.spec.targetFrames
        method = job.spec.method.rawValue
        methodReason = job.spec.methodReason
        quality = job.spec.quality.rawValue
        engine = job.spec.engine?.rawValue
        noop = job.spec.noop
        wireRun = job.spec.run
        audioSeconds = job.audioSeconds
        state = "queued"
        attempts = job.attempts
        recordingPrint = prints?.recording
        referencePrint = prints?.reference
        planPrint = prints?.plan
        content = JournalJSON.encode(job.spec.content)
    }

    var prints: JobFingerprints? {
        guard let recordingPrint, let referencePrint, let planPrint else { return nil }
        return JobFingerprints(recording: recordingPrint, reference: referencePrint, plan: planPrint)
    }

    /// The job as the coordinator resumes it; nil when a stored value is not one driftfix knows.
    var record: JobRecord? {
        guard let method = RepairMethod(rawValue: method), let quality = ResampleQuality(rawValue: quality) else { return nil }
        var spec = JobSpec(id: id, attempt: 0, input: input, output: output, outputRoot: outputRoot, targetFrames: targetFrames,
                           method: method, methodReason: methodReason, quality: quality, noop: noop)
        if let engine {
            guard let known = ResampleEngine(rawValue: engine) else { return nil }
            spec.engine = known
        }
        spec.inputRoots = inputRoots.map { $0.isEmpty ? [] : $0.components(separatedBy: "\n") }
        spec.run = wireRun
        if content != nil {
            guard let decoded = JournalJSON.decode(ContentJob.self, content) else { return nil }
            spec.content = decoded
        }
        let jobState: JobState
        switch state {
        case "done":
            guard let resultWorker, let seconds else { return nil }
            var result = JobResult(id: id, attempt: resultAttempt ?? attempts, worker: resultWorker,
                                   succeeded: resultSucceeded ?? true, outputFrames: outputFrames, checksum: checksum,
                                   seconds: seconds, error: resultError)
            result.run = wireRun
            result.content = JournalJSON.decode(ContentResult.self, resultContent)
            jobState = .done(result)
        case "failed": jobState = .failed(error ?? "failed")
        case "queued", "leased": jobState = .queued
        default: return nil
        }
        return JobRecord(pair: PairID(recording: recording), spec: spec, audioSeconds: audioSeconds, state: jobState,
                         attempts: attempts, lastError: error)
    }
}

/// An `output` row: the last verified output of a recording, from whichever run made it.
struct OutputRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "output"
    var recording: String
    var recordingPrint: String
    var referencePrint: String
    var planPrint: String
    var output: String
    var outputFrames: Int64
    var outputSize: Int64?
    var outputModified: Int64?
    var checksum: String?
    var worker: String?
    var run: Int64

    init(_ record: OutputRecord) {
        recording = record.recording
        recordingPrint = record.prints.recording
        referencePrint = record.prints.reference
        planPrint = record.prints.plan
        output = record.output
        outputFrames = record.outputFrames
        outputSize = record.outputSize
        outputModified = record.outputModified
        checksum = record.checksum
        worker = record.worker
        run = record.run
    }

    var record: OutputRecord {
        OutputRecord(recording: recording, prints: JobFingerprints(recording: recordingPrint, reference: referencePrint, plan: planPrint),
                     output: output, outputFrames: outputFrames, outputSize: outputSize, outputModified: outputModified,
                     checksum: checksum, worker: worker, run: run)
    }
}

/// The small Codable records a few columns hold as JSON (a content job's policy and numbers, a measurement).
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
