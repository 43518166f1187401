import DriftCore
import DriftPlanning
import DriftWire

/// Where a job stands.
public enum JobState: Sendable, Equatable {
    case queued
    /// Handed to `worker` under lease number `attempt` at `since` (seconds on the dispatcher's clock).
    case leased(worker: String, attempt: Int, since: Double)
    /// Finished by a worker's result that is not a failure.
    case done(JobResult)
    /// Failed: why, its kind (the worker's for a failed result, `workerLost` where its workers died), and what the
    /// sound measured where it did. The one place a job's failure is kept.
    case failed(JobFailure)

    /// A worker's result as the state it leaves a job in: a failed result is the job's failure.
    public init(_ result: JobResult) {
        if case .failed(let failure) = result.outcome { self = .failed(failure) } else { self = .done(result) }
    }
}

/// One job to run: what a worker receives, plus the coordinator's bookkeeping.
public struct JobRecord: Sendable, Equatable {
    /// The pair this job is about (keyed by its input).
    public let pair: PairID
    /// What a worker is sent (its `attempt` is set at each lease).
    public var spec: JobSpec
    /// Audio seconds: longest jobs go first, so a run does not end waiting on one big file.
    public let audioSeconds: Double
    public var state: JobState = .queued
    /// Leases handed out so far.
    public var attempts = 0
    /// Why it was last requeued (while it waits again), or why it failed.
    public var lastError: String?
    /// What its output is made from (incremental runs): a durable store keeps the output as current for the next
    /// nights under these; nil when the inputs could not be fingerprinted, or nothing is kept.
    public var fingerprints: JobFingerprints?

    /// A job about `input` doing `work`; its pair is the input (the recording to repair, the file to print, the clip).
    public init(
        id: Int, input: String, work: JobWork, outputRoot: String?, inputRoots: [String]?, audioSeconds: Double,
        run: Int64? = nil
    ) {
        pair = PairID(recording: input)
        spec = JobSpec(id: id, input: input, outputRoot: outputRoot, work: work)
        spec.inputRoots = inputRoots
        spec.run = run
        self.audioSeconds = audioSeconds
    }

    /// A record as a journal stored it.
    public init(pair: PairID, spec: JobSpec, audioSeconds: Double, state: JobState, attempts: Int, lastError: String?) {
        self.pair = pair
        self.spec = spec
        self.audioSeconds = audioSeconds
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
    }

    public var id: Int { spec.id }
    public var input: String { spec.input }
    public var work: JobWork { spec.work }
    /// The one file the job writes, where it writes exactly one (a repair, a clip cut to one place).
    public var output: String? { spec.outputs.first }

    public var isFinished: Bool {
        switch state {
        case .done, .failed: return true
        default: return false
        }
    }
}

/// All job state, behind one type, so a durable store can replace the in-memory one without touching dispatch.
/// Every transition goes through here: a durable store records it before the dispatcher acts on it.
public protocol JobStore: AnyObject {
    func add(_ jobs: [JobRecord])
    /// The queued job to hand out next (longest first) that is not in `excluding`, without changing it.
    func nextQueued(excluding: Set<Int>) -> JobRecord?
    func job(_ id: Int) -> JobRecord?
    /// Marks a job leased; increments its attempts. Returns the new attempt number, or nil when the lease could not
    /// be recorded (the job must then not be sent).
    func lease(_ id: Int, to worker: String, at time: Double) -> Int?
    func complete(_ id: Int, with result: JobResult)
    func fail(_ id: Int, _ failure: JobFailure)
    /// Puts a leased job back in the queue, keeping its attempt count and the reason.
    func requeue(_ id: Int, reason: String)
    var all: [JobRecord] { get }
    var unfinishedCount: Int { get }
    /// Why the store can no longer record transitions (a durable store's disk filled up); the run stops on it.
    var failure: String? { get }
}

extension JobStore {
    public var failure: String? { nil }

    /// The queued job to hand out next (longest first).
    public func nextQueued() -> JobRecord? { nextQueued(excluding: []) }
}

/// The in-memory job store.
public final class InMemoryJobStore: JobStore {
    private var jobs: [Int: JobRecord] = [:]
    /// Queued job ids, sorted so the longest is last (popped first).
    private var queue: [Int] = []
    private var unfinished = 0

    public init() {}

    public func add(_ new: [JobRecord]) {
        for job in new {
            jobs[job.id] = job
            if !job.isFinished { unfinished += 1 }
        }
        queue = jobs.values.filter { $0.state == .queued }.map(\.id)
        sortQueue()
    }

    private func sortQueue() {
        queue.sort { a, b in
            let (x, y) = (jobs[a]?.audioSeconds ?? 0, jobs[b]?.audioSeconds ?? 0)
            return x != y ? x < y : a > b
        }
    }

    public func nextQueued(excluding: Set<Int>) -> JobRecord? {
        guard !excluding.isEmpty else { return queue.last.flatMap { jobs[$0] } }
        return queue.reversed().first { !excluding.contains($0) }.flatMap { jobs[$0] }
    }
    public func job(_ id: Int) -> JobRecord? { jobs[id] }

    public func lease(_ id: Int, to worker: String, at time: Double) -> Int? {
        guard var job = jobs[id] else { return nil }
        // Leases take the queue's last (longest) job: O(1); anything else is rare.
        if queue.last == id { queue.removeLast() } else { queue.removeAll { $0 == id } }
        job.attempts += 1
        job.state = .leased(worker: worker, attempt: job.attempts, since: time)
        jobs[id] = job
        return job.attempts
    }

    public func complete(_ id: Int, with result: JobResult) {
        guard var job = jobs[id], !job.isFinished else { return }
        if job.state == .queued { queue.removeAll { $0 == id } }
        job.state = JobState(result)
        jobs[id] = job
        unfinished -= 1
    }

    public func fail(_ id: Int, _ failure: JobFailure) {
        guard var job = jobs[id], !job.isFinished else { return }
        if job.state == .queued { queue.removeAll { $0 == id } }
        job.state = .failed(failure)
        job.lastError = failure.message
        jobs[id] = job
        unfinished -= 1
    }

    public func requeue(_ id: Int, reason: String) {
        guard var job = jobs[id], case .leased = job.state else { return }
        job.state = .queued
        job.lastError = reason
        jobs[id] = job
        queue.append(id)
        sortQueue()
    }

    public var all: [JobRecord] { jobs.values.sorted { $0.id < $1.id } }
    public var unfinishedCount: Int { unfinished }
}
