import DriftCoordinator
import DriftJobs
import DriftWire

import struct SystemPackage.FilePath

/// What a run reports as it goes, in the library's words: a front end shows these (a progress bar, log lines), a
/// service forwards them. Each case carries what it means, and nothing of the dispatcher's bookkeeping.
public enum RunEvent: Sendable, Equatable {
    /// A round's unfinished jobs are about to run.
    case planned(RunRound, [PlannedJob])
    /// A worker offered to take `capacity` jobs at once.
    case workerJoined(String, capacity: Int)
    /// A worker was given up (dead, silent, cut off); `requeued` of its jobs went back in the queue.
    case workerLost(String, requeued: Int)
    /// A worker stopped answering (it is then given up as lost): a local one may be hung rather than dead.
    case workerSilent(String)
    case jobStarted(id: Int, worker: String, attempt: Int)
    case jobFinished(FinishedJob)
    /// A job went back in the queue (its lease expired, its worker asked for a retry).
    case jobRequeued(id: Int, reason: String)
    /// A second answer to a job already answered: ignored.
    case duplicateResult(id: Int, worker: String)
    /// An answer from an older lease than the job's latest: discarded, whatever it says.
    case staleResult(id: Int, worker: String, attempt: Int, latest: Int)
    /// A message that could not be read, or came from a peer that may not speak.
    case dropped(peer: String, reason: String)
    /// The run's work ended (its report is still to be written).
    case finished
}

/// A job as a round plans it.
public struct PlannedJob: Sendable, Equatable {
    public var id: Int
    /// The file it reads (the recording to repair, the file to print, the clip).
    public var input: FilePath
    /// The audio it reads: what progress counts.
    public var audio: Duration

    public init(id: Int, input: FilePath, audio: Duration) {
        self.id = id
        self.input = input
        self.audio = audio
    }
}

/// A finished job: which file, and what came of it.
public struct FinishedJob: Sendable, Equatable {
    public var id: Int
    /// The file it read.
    public var input: FilePath
    public var outcome: Outcome
    /// The worker that answered, and the job's time there; nil where the run gave the job up (its workers died).
    public var worker: String?
    public var elapsed: Duration?
    /// What QA should know of the output's metadata (a chunk its type cannot hold, a marker moved off its sound).
    public var warnings: [String]

    public init(
        id: Int, input: FilePath, outcome: Outcome, worker: String? = nil, elapsed: Duration? = nil,
        warnings: [String] = []
    ) {
        self.id = id
        self.input = input
        self.outcome = outcome
        self.worker = worker
        self.elapsed = elapsed
        self.warnings = warnings
    }

    /// What a job came to. A case carries exactly what it means.
    public enum Outcome: Sendable, Equatable {
        /// Written to `output` by the lengths' plan and verified to `frames`.
        case repaired(output: FilePath, frames: Int64, method: RepairMethod)
        /// Measured (by its reference's sound, or by its lengths where the sound could not tell), repaired to
        /// `output` and verified to `frames`, in sync where the sound planned it.
        case repairedBySound(output: FilePath, frames: Int64, measurement: ContentMeasurement?, by: PlanMeasurement)
        /// In sync already: nothing written.
        case inSync(reason: String?, measurement: ContentMeasurement?)
        /// Not repaired, and why (a confident disagreement, a wrong pairing, sound below its confidence floor).
        case refused(reason: String?, measurement: ContentMeasurement?)
        /// Measured only (a scan by the sound).
        case measured(ContentMeasurement?)
        /// A clip placed by the sound; the file its audio was cut into, where it was cut.
        case clipSynced(into: FilePath?)
        /// A file's sound printed, for pairing by sound.
        case printed
        /// Nothing run (a dispatch benchmark's job).
        case nothing
        /// Failed: why, and what the sound measured where it did (an output that did not prove in sync).
        case failed(reason: String, measurement: ContentMeasurement?)
    }
}

extension RunEvent {
    /// The dispatcher's event in the library's words; nil for the dispatcher's own bookkeeping (a lease's leftovers).
    init?(_ event: DispatchEvent) {
        switch event {
        case .workerJoined(let name, let capacity): self = .workerJoined(name, capacity: capacity)
        case .workerLost(let name, let requeued): self = .workerLost(name, requeued: requeued)
        case .workerSilent(let name): self = .workerSilent(name)
        case .leaseLost: return nil
        case .jobStarted(let id, let worker, let attempt): self = .jobStarted(id: id, worker: worker, attempt: attempt)
        case .jobFinished(let job):
            guard let finished = FinishedJob(job) else { return nil }
            self = .jobFinished(finished)
        case .jobRequeued(let id, let reason): self = .jobRequeued(id: id, reason: reason)
        case .duplicateResult(let id, let worker): self = .duplicateResult(id: id, worker: worker)
        case .staleResult(let id, let worker, let attempt, let latest):
            self = .staleResult(id: id, worker: worker, attempt: attempt, latest: latest)
        case .dropped(let peer, let reason): self = .dropped(peer: peer, reason: reason)
        }
    }
}

extension PlannedJob {
    init(_ job: JobRecord) {
        self.init(id: job.id, input: FilePath(pathText: job.input), audio: .seconds(job.audioSeconds))
    }
}

extension FinishedJob {
    /// A finished job record in the library's words; nil for one not finished.
    init?(_ job: JobRecord) {
        switch job.state {
        case .queued, .leased: return nil
        case .failed(let failure):
            self.init(
                id: job.id, input: FilePath(pathText: job.input),
                outcome: .failed(reason: failure.message, measurement: failure.content?.measurement))
        case .done(let result):
            self.init(
                id: job.id, input: FilePath(pathText: job.input), outcome: Self.outcome(of: result, job: job),
                worker: result.worker,
                elapsed: .seconds(result.seconds), warnings: result.warnings ?? [])
        }
    }

    private static func outcome(of result: JobResult, job: JobRecord) -> Outcome {
        switch result.outcome {
        case .failed(let failure):
            return .failed(reason: failure.message, measurement: failure.content?.measurement)
        case .decided(let content, let output):
            switch content.decision {
            case .repaired:
                return .repairedBySound(
                    output: FilePath(pathText: job.output ?? job.input), frames: output?.frames ?? 0,
                    measurement: content.measurement,
                    by: content.measuredBy)
            case .skipped: return .inSync(reason: content.reason, measurement: content.measurement)
            case .refused: return .refused(reason: content.reason, measurement: content.measurement)
            case .measured: return .measured(content.measurement)
            }
        case .repaired(let output):
            switch job.work {
            case .header(let repair):
                return .repaired(
                    output: FilePath(pathText: repair.output), frames: output.frames, method: repair.method)
            case .clipSync: return .clipSynced(into: nil)
            case .soundPrint: return .printed
            case .noop, .content: return .nothing
            }
        case .heard(let sound):
            switch job.work {
            case .clipSync:
                return .clipSynced(
                    into: sound.matches?.first { $0.status == .used }?.output)
            case .soundPrint, .header, .content, .noop:
                return .printed
            }
        }
    }
}
