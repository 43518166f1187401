import DriftCore
import DriftJobs
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
    /// How the run paired its files (`RunPairing`); NULL: by names.
    var pairBy: String?
}

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

    /// The row of `row` and its plan.
    init(run: Int64, position: Int, row: PairReport, plan: PairPlan?, ids: JournalIds) throws {
        self.run = run
        self.position = position
        recording = try ids.name(row.recording)
        reference = try ids.name(row.reference)
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
        var output = row.output
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
        content = JournalJSON.encode(row.content)
        executed = Self.executed(row.operations, planned: operations)
        sync = Self.storedSync(row.sync, cause: row.cause, endOffsetMs: row.endOffsetMs)
    }

    static func storedSync(_ sync: String?, cause: DriftCause?, endOffsetMs: Double?) -> String? {
        let derived = PairReport.syncPhrase(cause: cause, endOffsetMs: endOffsetMs)
        return sync == derived ? nil : (sync ?? "")
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
        row.referenceSource = texts.term(referenceSource)
        row.driftSeconds = driftSeconds
        row.driftPPM = driftPPM
        row.endOffsetMs = endOffsetMs
        row.flags = flags.split(separator: ";").compactMap { SyncFlag(rawValue: String($0)) }
        row.cause = texts.term(cause).flatMap(DriftCause.init(rawValue:))
        row.sync =
            sync.map { $0.isEmpty ? nil : $0 } ?? PairReport.syncPhrase(cause: row.cause, endOffsetMs: endOffsetMs)
        row.causeDetail = causeDetail
        row.action = texts.term(action).flatMap(PlanAction.init(rawValue:)) ?? .refuse
        row.method = texts.term(method).flatMap(RepairMethod.init(rawValue:))
        row.methodReason = texts.term(methodReason)
        row.targetFrames = targetFrames
        row.warnings = warnings.isEmpty ? [] : warnings.components(separatedBy: "\n")
        let outcome = texts.term(outcome)
        row.outcome = outcome.flatMap(RepairOutcome.init(rawValue:))
        // Until the run ends the column holds the plan's output path; the report names an output only with an outcome.
        row.output = outcome == nil ? nil : texts.name(output)
        row.outputFrames = outputFrames
        row.checksum = checksum?.text
        row.attempts = attempts
        row.worker = texts.term(worker)
        row.processingSeconds = processingSeconds
        row.measuredBy = texts.term(measuredBy).flatMap(PlanMeasurement.init(rawValue:)) ?? .headers
        row.content = JournalJSON.decode(ContentMeasurement.self, content)
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

/// What a run's jobs share, stored once in its `run` row instead of in each job.
struct RunContext {
    var key: Int64?
    var roots: [String]
    var outputRoot: String

    init(_ db: Database, run: Int64) throws {
        let row = try Row.fetchOne(db, sql: "SELECT key, roots, outputRoot FROM run WHERE id = ?", arguments: [run])
        key = row?["key"]
        roots = Journal.decodeRoots(row?["roots"])
        outputRoot = row?["outputRoot"] ?? ""
    }
}

/// A `job` row's `state` column, as the journal's SQL writes it (a Codable record's text).
public enum JournalJobState: String, Codable, Sendable {
    case queued, leased, done, failed
}

/// A `job` row: a job's spec, state and verified result as columns. Paths are `name` ids, words `term` ids; the
/// output root and input roots are the run's unless the row says otherwise. The work's kind is a column; a header
/// plan's fields (target, method, quality, engine, output) are columns wherever the work has them (a header repair, a
/// content job's headers), and what else a kind carries is its JSON in `work` (a content job's policy and numbers, a
/// clip's task). A result's kind-specific part (a content decision, a clip's rows) is JSON in `resultWork`; a print's
/// bytes are kept in `soundPrint`, not here.
struct JobRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "job"
    var run: Int64
    var id: Int
    var recording: Int64
    /// NULL: the recording.
    var input: Int64?
    /// `JobWork.Kind`, a `term` id.
    var kind: Int64
    /// The one output of a header or content repair; NULL for other kinds (a clip's outputs are in its task).
    var output: Int64?
    /// NULL: the run's output root ("" for a job that writes nothing).
    var outputRoot: String?
    /// One root per line; NULL when the job named none, "=" when they are the run's roots.
    var inputRoots: String?
    var targetFrames: Int64?
    var method: Int64?
    var methodReason: Int64?
    var quality: Int64?
    /// The resampling engine; NULL is libsamplerate (and every job before v6).
    var engine: Int64?
    /// The run key the job carries on the wire.
    var wireRun: Int64?
    var audioSeconds: Double
    var state: JournalJobState
    var worker: Int64?
    var attempts: Int
    var leasedAt: Double?
    var error: String?
    // The verified result of a done job.
    var resultAttempt: Int?
    var resultWorker: Int64?
    var outputFrames: Int64?
    var checksum: PackedHex?
    var seconds: Double?
    // What the output will be made from (incremental runs); NULL when the inputs could not be fingerprinted.
    var recordingPrint: PackedPrint?
    var referencePrint: PackedPrint?
    var planPrint: PackedHex?
    /// What the kind carries beyond the columns (JSON): a content job's policy and numbers, a clip's task.
    var work: String?
    /// A done job's kind-specific result (JSON): a content job's decision, a clip's rows.
    var resultWork: String?
    /// Whether a done job succeeded (NULL: yes, as rows before v4).
    var resultSucceeded: Bool?
    var resultError: String?
    /// Why it failed (`FailureKind`, a `term` id); NULL when it did not, and for rows before v9.
    var failure: Int64?
    /// A done job's warnings, one per line; NULL when none, and for rows before v11.
    var resultWarnings: String?

    init(run: Int64, job: JobRecord, context: RunContext, ids: JournalIds) throws {
        self.run = run
        id = job.id
        recording = try ids.name(job.pair.recording)
        input = job.spec.input == job.pair.recording ? nil : try ids.name(job.spec.input)
        kind = try ids.term(job.work.kind.rawValue)
        let root = job.spec.outputRoot ?? ""
        outputRoot = root == context.outputRoot ? nil : root
        inputRoots = job.spec.inputRoots.map { $0 == context.roots ? "=" : $0.joined(separator: "\n") }
        // The header plan's fields, wherever the work has them.
        var plan:
            (
                output: String?, target: Int64, method: RepairMethod, reason: String, quality: ResampleQuality,
                engine: ResampleEngine
            )?
        var work: String?
        var frames: Int64?
        switch job.work {
        case .header(let repair):
            plan = (
                repair.output, repair.targetFrames, repair.method, repair.methodReason, repair.quality, repair.engine
            )
        case .content(let content):
            plan = (
                content.output, content.targetFrames, content.method, content.methodReason, content.quality,
                content.engine
            )
            work = JournalJSON.encode(ContentRemainder(content))
        case .clipSync(let task):
            work = JournalJSON.encode(task)
        case .noop(let count):
            frames = count
        case .soundPrint:
            break
        }
        self.work = work
        output = try ids.name(plan?.output)
        targetFrames = plan?.target ?? frames
        method = try ids.term(plan?.method.rawValue)
        methodReason = try ids.term(plan?.reason)
        quality = try ids.term(plan?.quality.rawValue)
        // libsamplerate, the engine of every job before v6, is not named.
        engine = try ids.term(plan.flatMap { $0.engine == .libsamplerate ? nil : $0.engine.rawValue })
        wireRun = job.spec.run
        audioSeconds = job.audioSeconds
        state = .queued
        attempts = job.attempts
        recordingPrint = job.fingerprints.map { PackedPrint($0.recording) }
        referencePrint = job.fingerprints.map { PackedPrint($0.reference) }
        planPrint = job.fingerprints.map { PackedHex($0.plan) }
    }

    var prints: JobFingerprints? {
        guard let recordingPrint, let referencePrint, let planPrint else { return nil }
        return JobFingerprints(recording: recordingPrint.text, reference: referencePrint.text, plan: planPrint.text)
    }

    /// The job as the coordinator resumes it; nil when a stored value is not one driftfix knows.
    func record(_ texts: JournalTexts, context: RunContext) -> JobRecord? {
        guard let recording = texts.name(recording), let kind = texts.term(kind).flatMap(JobWork.Kind.init(rawValue:))
        else { return nil }
        let input = input.flatMap(texts.name) ?? recording
        let work: JobWork
        switch kind {
        case .header:
            guard let plan = headerPlan(texts) else { return nil }
            work = .header(plan)
        case .content:
            guard let plan = headerPlan(texts), let rest = JournalJSON.decode(ContentRemainder.self, self.work)
            else { return nil }
            work = .content(rest.job(plan, measureOnly: output == nil))
        case .clip:
            guard let task = JournalJSON.decode(ClipTask.self, self.work) else { return nil }
            work = .clipSync(task)
        case .print: work = .soundPrint
        case .noop: work = .noop(frames: targetFrames ?? 0)
        }
        var spec = JobSpec(id: id, input: input, outputRoot: outputRoot ?? context.outputRoot, work: work)
        if spec.outputRoot == "" { spec.outputRoot = nil }
        spec.inputRoots = inputRoots.map {
            $0 == "=" ? context.roots : $0.isEmpty ? [] : $0.components(separatedBy: "\n")
        }
        spec.run = wireRun
        let jobState: JobState
        switch state {
        case .done:
            guard let resultWorker = texts.term(resultWorker), let seconds else { return nil }
            var content: ContentResult?
            var sound: SoundResult?
            switch kind {
            case .content: content = JournalJSON.decode(ContentResult.self, resultWork)
            case .clip, .print: sound = JournalJSON.decode(SoundResult.self, resultWork)
            case .header, .noop: break
            }
            guard
                let outcome = JobOutcome(
                    succeeded: resultSucceeded ?? true,
                    output: outputFrames.map { WrittenOutput(frames: $0, checksum: checksum?.text) },
                    error: resultError, kind: texts.term(failure).flatMap(FailureKind.init(rawValue:)),
                    retryable: false, content: content, sound: sound)
            else { return nil }
            jobState = .done(
                JobResult(
                    id: id, attempt: resultAttempt ?? attempts, worker: resultWorker, seconds: seconds,
                    outcome: outcome, run: wireRun, warnings: resultWarnings.map { $0.components(separatedBy: "\n") }))
        case .failed: jobState = .failed(error ?? "failed")
        case .queued, .leased: jobState = .queued
        }
        var job = JobRecord(
            pair: PairID(recording: recording), spec: spec, audioSeconds: audioSeconds, state: jobState,
            attempts: attempts, lastError: error)
        if state == .done || state == .failed {
            job.failureKind = texts.term(failure).flatMap(FailureKind.init(rawValue:))
        }
        job.fingerprints = prints
        return job
    }

    /// The header plan the columns hold (a header repair, a content job's headers); the output is "" for a content
    /// job that measures only.
    private func headerPlan(_ texts: JournalTexts) -> HeaderRepair? {
        guard let targetFrames, let method = texts.term(method).flatMap(RepairMethod.init(rawValue:)),
            let quality = texts.term(quality).flatMap(ResampleQuality.init(rawValue:))
        else { return nil }
        var engine = ResampleEngine.libsamplerate
        if let named = self.engine {
            guard let known = texts.term(named).flatMap(ResampleEngine.init(rawValue:)) else { return nil }
            engine = known
        }
        return HeaderRepair(
            output: texts.name(output) ?? "", targetFrames: targetFrames, method: method,
            methodReason: texts.term(methodReason) ?? "", quality: quality, engine: engine)
    }

    /// A result's kind-specific part, as `resultWork` holds it (a print's bytes are kept in `soundPrint` instead).
    static func resultWork(_ result: JobResult) -> String? {
        if let content = result.content { return JournalJSON.encode(content) }
        guard var sound = result.sound else { return nil }
        sound.print = nil
        return JournalJSON.encode(sound)
    }
}

/// What a content job carries beyond its headers' plan (which the row's columns hold): the JSON `work` keeps for it,
/// as every release since v4 wrote it (their `measureOnly` is read as the absence of an output).
private struct ContentRemainder: Codable {
    var reference: String
    var policy: ContentPolicy
    var headersInSync: Bool
    var headersRefusal: String?
    var headerDriftPPM: Double?
    var recordingSeconds: Double
    var referenceSeconds: Double?

    init(_ job: ContentJob) {
        reference = job.reference
        policy = job.policy
        headersInSync = job.headersInSync
        headersRefusal = job.headersRefusal
        headerDriftPPM = job.headerDriftPPM
        recordingSeconds = job.recordingSeconds
        referenceSeconds = job.referenceSeconds
    }

    func job(_ plan: HeaderRepair, measureOnly: Bool) -> ContentJob {
        var job = ContentJob(
            reference: reference, output: measureOnly ? nil : plan.output, policy: policy,
            targetFrames: plan.targetFrames, method: MethodChoice(method: plan.method, reason: plan.methodReason),
            quality: plan.quality, headersInSync: headersInSync, headerDriftPPM: headerDriftPPM,
            recordingSeconds: recordingSeconds, referenceSeconds: referenceSeconds)
        job.engine = plan.engine
        job.headersRefusal = headersRefusal
        return job
    }
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
        sound = JournalJSON.encode(record.matches)
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
            matches: JournalJSON.decode([SoundPairingReport.Match].self, sound))
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
