import DriftCoordinator
import DriftCore
import DriftJobs
import DriftSchema
import DriftSync
import DriftWire
import Foundation
import Logging
import Synchronization

/// The work of a sound pairing on workers, where the files are: each print a job, each clip's task a job, in one
/// run over the same dispatch as a repair (local processes, remote workers, a Slurm array), held open between the
/// rounds so the same workers take both. The coordinator keeps only the matching (prints are 100 bytes a second of
/// sound) and the report.
///
/// `start()` before the pairing, `finish()` after it.
public final class DispatchedSoundWork: SoundWork, @unchecked Sendable {
    private let dispatch: DispatchSettings
    private let roots: [String]
    private let outputRoot: String?
    private let logger: Logger
    private let store = OpenJobStore()
    /// Set once (in `start`), before any round.
    private var runtime: Task<Void, Never>?
    private let ended = Atomic<Bool>(false)
    private let nextID = Atomic<Int>(1)

    /// - Parameters:
    ///   - roots: the folders the files lie in (workers read nothing outside them).
    ///   - outputRoot: where clips' audio may be written; nil: nothing is.
    public init(dispatch: DispatchSettings, roots: [String], outputRoot: String?, logger: Logger) {
        self.dispatch = dispatch
        self.roots = roots
        self.outputRoot = outputRoot
        self.logger = logger
    }

    /// Binds the endpoint and starts the workers (or waits for them).
    ///
    /// - Throws: `RunError` when the dispatch cannot be set up (keys, allowlist).
    public func start() throws(RunError) {
        let settings = try dispatch.runtime(roots: roots, outputRoot: outputRoot, logger: logger)
        let (store, logger, idle) = (store, logger, dispatch.idleTimeout)
        runtime = Task { [self] in
            do {
                let result = try await CoordinatorRuntime(settings: settings, logger: logger).run(
                    store: store, onEvent: { _ in })
                if case .noWorkers = result.outcome {
                    logger.error(
                        "no worker alive for \(Int(idle)) s with \(max(0, store.unfinishedCount - 1)) sound jobs unfinished"
                    )
                }
            } catch {
                logger.error("\(error)")
            }
            ended.store(true, ordering: .releasing)
        }
    }

    /// Ends the run once the last round's jobs are done, and the workers with it.
    public func finish() async {
        store.close()
        await runtime?.value
        if dispatch.bind == nil { unlink(DispatchSettings.privateEndpointPath) }
    }

    public func prints(_ paths: [String]) async -> [PrintedFile] {
        let jobs = paths.map { job(input: $0, sound: SoundJob(), audioSeconds: 0) }
        return await run(jobs, what: "prints").map { outcome in
            switch outcome {
            case .success(let result):
                guard let bytes = result?.print else { return PrintedFile(timecode: result?.timecode) }
                guard let print = SoundPrint(bytes: bytes) else {
                    return PrintedFile(error: "the worker's print is not one this version reads")
                }
                return PrintedFile(print: print, timecode: result?.timecode)
            case .failure(let error):
                return PrintedFile(error: error.message)
            }
        }
    }

    public func clips(_ tasks: [ClipTask]) async -> [[SoundPairingReport.Match]] {
        let jobs = tasks.map { job(input: $0.clip, sound: SoundJob(clip: $0), audioSeconds: $0.clipSeconds) }
        return zip(tasks, await run(jobs, what: "clips")).map { task, outcome in
            switch outcome {
            case .success(let result): return result?.matches ?? []
            case .failure(let error):
                // The job never ran to its end: every place it had fails with the cause (the clip is not unheard).
                return task.places.map { place in
                    SoundPairingReport.Match(
                        reference: task.clip, recording: place.recording,
                        recordingStartSeconds: place.candidate.startSeconds,
                        recordingEndSeconds: nil, coverage: place.candidate.coverage, clarity: place.candidate.clarity,
                        content: nil, status: .failed, note: error.message)
                }
            }
        }
    }

    private func job(input: String, sound: SoundJob, audioSeconds: Double) -> JobRecord {
        let output = sound.clip?.places.compactMap(\.output).first ?? ""
        var job = JobRecord(
            id: nextID.add(1, ordering: .relaxed).oldValue, input: input, output: output,
            outputRoot: outputRoot ?? "", targetFrames: 0, method: .resample,
            methodReason: sound.clip == nil ? "sound print" : "clip sync",
            quality: sound.clip?.quality ?? .default, audioSeconds: audioSeconds, run: Int64.random(in: 1...Int64.max))
        job.spec.inputRoots = roots
        job.spec.sound = sound
        return job
    }

    private struct JobFailure: Error {
        var message: String
    }

    /// Adds `jobs` to the run and waits for their end; each job's sound result, or why it has none.
    private func run(_ jobs: [JobRecord], what: String) async -> [Result<SoundResult?, JobFailure>] {
        guard !jobs.isEmpty else { return [] }
        // Not started (or its runtime already gone): nothing would ever take the jobs.
        if runtime == nil { ended.store(true, ordering: .releasing) }
        if !ended.load(ordering: .acquiring) {
            store.add(jobs)
            logger.notice("\(jobs.count) \(what) on workers")
        }
        let ids = jobs.map(\.id)
        var finished = store.finished(ids)
        while finished == nil, !ended.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(100))
            finished = store.finished(ids)
        }
        let byID = Dictionary(uniqueKeysWithValues: (finished ?? store.all).map { ($0.id, $0) })
        return jobs.map { job in
            switch byID[job.id]?.state {
            case .done(let result)? where result.succeeded: return .success(result.sound)
            case .done(let result)?: return .failure(JobFailure(message: result.error ?? "failed"))
            case .failed(let error)?: return .failure(JobFailure(message: error))
            case .queued?, .leased?, nil:
                return .failure(
                    JobFailure(message: "\(job.spec.input): not done: the run ended first (no worker alive, or a stop)")
                )
            }
        }
    }
}
