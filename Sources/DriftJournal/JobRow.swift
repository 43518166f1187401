import DriftCore
import DriftJobs
import DriftPlanning
import DriftSchema
import DriftWire
internal import GRDB

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
            work = JournalJSON.encode(StoredClipTask(task))
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
            guard let plan = headerPlan(texts), let rest = JournalJSON.decode(ContentRemainder.self, self.work),
                let job = rest.job(plan, measureOnly: output == nil)
            else { return nil }
            work = .content(job)
        case .clip:
            guard let task = JournalJSON.decode(StoredClipTask.self, self.work)?.value else { return nil }
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
            case .content: content = JournalJSON.decode(StoredContentResult.self, resultWork)?.value
            case .clip, .print: sound = JournalJSON.decode(StoredSoundResult.self, resultWork)?.value
            case .header, .noop: break
            }
            guard
                let outcome = JobOutcome(
                    succeeded: resultSucceeded ?? true,
                    output: outputFrames.map { WrittenOutput(frames: $0, checksum: checksum?.text) },
                    error: resultError, kind: texts.term(failure).flatMap(FailureKind.init(rawValue:)),
                    retryable: false, content: content, sound: sound)
            else { return nil }
            // A failed result (a sync proof that failed, kept with what it measured) is the job's failure.
            jobState = JobState(
                JobResult(
                    id: id, attempt: resultAttempt ?? attempts, worker: resultWorker, seconds: seconds,
                    outcome: outcome, run: wireRun, warnings: resultWarnings.map { $0.components(separatedBy: "\n") }))
        case .failed:
            jobState = .failed(
                JobFailure(
                    message: error ?? "failed", kind: texts.term(failure).flatMap(FailureKind.init(rawValue:)) ?? .other
                ))
        case .queued, .leased: jobState = .queued
        }
        var job = JobRecord(
            pair: PairID(recording: recording), spec: spec, audioSeconds: audioSeconds, state: jobState,
            attempts: attempts, lastError: error)
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
        if let content = result.outcome.columns.content { return JournalJSON.encode(StoredContentResult(content)) }
        guard var sound = result.outcome.columns.sound else { return nil }
        sound.print = nil
        return JournalJSON.encode(StoredSoundResult(sound))
    }
}

/// What a content job carries beyond its headers' plan (which the row's columns hold): the JSON `work` keeps for it,
/// as every release since v4 wrote it (their `measureOnly` is read as the absence of an output).
private struct ContentRemainder: Codable {
    var reference: String
    var policy: StoredPolicy
    var headersInSync: Bool
    var headersRefusal: String?
    var headerDriftPPM: Double?
    var recordingSeconds: Double
    var referenceSeconds: Double?

    init(_ job: ContentJob) {
        reference = job.reference
        policy = StoredPolicy(job.policy)
        headersInSync = job.headersInSync
        headersRefusal = job.headersRefusal
        headerDriftPPM = job.headerDriftPPM
        recordingSeconds = job.recordingSeconds
        referenceSeconds = job.referenceSeconds
    }

    /// The job; nil where its policy names a mode or a start this build does not know.
    func job(_ plan: HeaderRepair, measureOnly: Bool) -> ContentJob? {
        guard let policy = policy.value else { return nil }
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
