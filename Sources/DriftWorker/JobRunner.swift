import DriftAudio
import DriftCore
import DriftRepair
import DriftSupport
import DriftTrace
import DriftWire
import Foundation
import Logging
import Tracing

/// Runs one job through the same chain as `driftfix process`: temporary file, exact-length verification by
/// reopening the output, rename into place, then a checksum of the file as written.
public enum JobRunner {
    /// Runs `job` (paths already mapped to this machine) and describes the outcome. The job holds one of the host's
    /// `slots` while it runs; a long resample also uses up to `idleCores` more, while no other job holds them (the
    /// night's last files).
    public static func run(_ job: JobSpec, worker: String, idleCores: Int = 0, slots: CoreSlots = .host) -> JobResult {
        var noop = false
        if case .noop = job.work { noop = true }
        // The worker's span for the job, a child of the coordinator's (its context came in the message); waiting
        // for a core is part of it.
        return Traces.continuing(job.traceparent, "work \(job.work.kind.rawValue)") { span in
            span.attributes["driftfix.job.id"] = job.id
            span.attributes["driftfix.attempt"] = job.attempt
            span.attributes["driftfix.worker"] = worker
            span.attributes["file.path"] = job.input
            let core = noop ? nil : withSpan("wait for a core") { _ in slots.takeForJob() }
            defer { core?.release() }
            var result = execute(job, worker: worker, idleCores: idleCores, slots: slots)
            result.run = job.run
            describe(result, on: span)
            return result
        }
    }

    private static func describe(_ result: JobResult, on span: any Span) {
        span.attributes["driftfix.outcome"] = result.outcome.name
        switch result.outcome {
        case .repaired(let output):
            span.attributes["driftfix.output.frames"] = output.frames
        case .decided(let content, let output):
            if let ppm = content.measurement?.driftPPM { span.attributes["driftfix.drift.ppm"] = ppm }
            if let frames = output?.frames { span.attributes["driftfix.output.frames"] = frames }
        case .heard:
            break
        case .failed(let failure):
            span.attributes["driftfix.failure.kind"] = failure.kind.rawValue
            span.setStatus(SpanStatus(code: .error, message: failure.message))
        }
    }

    private static let logger = Logger(label: "driftfix.worker")

    /// A failed job's result: the line naming the file and the cause, its kind, and a failed sync's measurement.
    typealias Failure = (String, FailureKind, ContentResult?) -> JobResult

    private static func execute(_ job: JobSpec, worker: String, idleCores: Int, slots: CoreSlots) -> JobResult {
        let clock = ContinuousClock.now
        func seconds() -> Double { (ContinuousClock.now - clock).seconds }
        func failure(_ message: String, _ kind: FailureKind, content: ContentResult? = nil) -> JobResult {
            let retryable = kind.retryable
            // A retryable failure is this worker's destination failing (full, read-only, gone): another worker may
            // write elsewhere, so the message says whose disk it was.
            let volume =
                retryable && kind != .leaseLost
                ? job.outputs.first.flatMap(Volume.mountPoint(of:)).map { ", volume \($0)" } ?? "" : ""
            let shown = retryable ? "\(message) (worker \(worker) on \(Machine.name)\(volume))" : message
            return JobResult(
                id: job.id, attempt: job.attempt, worker: worker, seconds: seconds(),
                outcome: .failed(JobFailure(message: shown, kind: kind, content: content)))
        }
        switch job.work {
        case .noop(let frames):
            return JobResult(
                id: job.id, attempt: job.attempt, worker: worker, seconds: 0,
                outcome: .repaired(WrittenOutput(frames: frames, checksum: nil)))
        case .content(let content):
            return ContentJobRunner.run(job, content: content, worker: worker, failure: failure, seconds: seconds)
        case .soundPrint:
            return SoundJobRunner.print(job, worker: worker, failure: failure, seconds: seconds)
        case .clipSync(let task):
            return SoundJobRunner.sync(job, task: task, worker: worker, failure: failure, seconds: seconds)
        case .header(let repair):
            return header(
                job, repair, worker: worker, idleCores: idleCores, slots: slots, failure: failure, seconds: seconds)
        }
    }

    /// A header repair: the recording to exactly the target length.
    private static func header(
        _ job: JobSpec, _ repair: HeaderRepair, worker: String, idleCores: Int, slots: CoreSlots,
        failure: JobRunner.Failure, seconds: () -> Double
    ) -> JobResult {
        // Resolve and check first (clear reasons), then pin: the input file and the output folder are opened
        // beneath their roots by the kernel (openat2, RESOLVE_BENEATH) and used only through those descriptors.
        let pinned: PinnedJob
        let pinning = withSpan("pin") { _ in
            PinnedJob.pin(
                inputs: [job.input], outputs: [repair.output], inputRoots: job.inputRoots ?? [],
                outputRoot: job.outputRoot)
        }
        switch pinning {
        case .failure(let refusal): return failure(refusal.message, refusal.kind, nil)
        case .success(let paths): pinned = paths
        }
        defer { pinned.close() }
        var request = ProcessRequest(
            input: pinned.inputs[0], output: pinned.outputs[0], target: .frames(repair.targetFrames),
            method: MethodChoice(method: repair.method, reason: repair.methodReason), quality: repair.quality)
        request.engine = repair.engine
        request.inputName = (job.input as NSString).lastPathComponent
        request.threads = 1 + max(0, min(idleCores, slots.cores - 1))
        if request.threads > 1 { request.borrowCore = { slots.borrowIdle() } }
        do {
            let result = try FileProcessor.run(request)
            if let split = result.split {
                logger.info("job \(job.id): \(split.chunks) chunks, \(split.byHelpers) of them on idle cores")
            }
            let checksum = withSpan("checksum") { _ in pinned.checksum(ofOutput: 0) }
            return JobResult(
                id: job.id, attempt: job.attempt, worker: worker, seconds: seconds(),
                outcome: .repaired(WrittenOutput(frames: result.outputFrames, checksum: checksum)),
                warnings: result.warnings.isEmpty ? nil : result.warnings.map(pinned.shown))
        } catch {
            // The destination may recover (space freed, another worker's disk); a bad input never will.
            // Messages name the job's paths, not the descriptors.
            return failure(pinned.shown("\(error)"), FailureKind(of: error), nil)
        }
    }
}
