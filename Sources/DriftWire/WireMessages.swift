import DriftCore

/// The protocol version carried by every envelope. A peer speaking another version is logged and ignored.
/// 2: jobs carry `run` (a random run key) and `inputRoots`; results echo `run`. A version-1 peer is refused by name.
public let wireProtocolVersion = 2

/// A worker introducing itself: how many jobs it runs at once (its credit) and what it is.
public struct WorkerHello: Codable, Sendable, Equatable {
    public var worker: String
    public var capacity: Int
    public var software: String
    public var host: String
    public var pid: Int32

    public init(worker: String, capacity: Int, software: String, host: String, pid: Int32) {
        self.worker = worker
        self.capacity = capacity
        self.software = software
        self.host = host
        self.pid = pid
    }
}

/// One repair handed to a worker under a lease.
public struct JobSpec: Codable, Sendable, Equatable {
    /// Stable job id (one per pair).
    public var id: Int
    /// Which lease this is: 1 for the first hand-out, 2 after a requeue, ...
    public var attempt: Int
    public var input: String
    public var output: String
    /// Outputs must stay inside this folder (the worker checks, after resolving links and `..`).
    public var outputRoot: String
    /// Inputs must lie inside one of these folders (the coordinator's scan roots), unless the worker was given
    /// input roots of its own; checked after resolving links and `..`.
    public var inputRoots: [String]?
    public var targetFrames: Int64
    public var method: RepairMethod
    public var methodReason: String
    public var quality: ResampleQuality
    /// A no-op job that exercises dispatch only (benchmarks): the worker answers at once.
    public var noop: Bool
    /// The coordinator's run (journal run id): a result is credited only to the run that leased it, so a result
    /// delivered after a coordinator restart cannot complete a different run's job of the same id.
    public var run: Int64?

    public init(id: Int, attempt: Int, input: String, output: String, outputRoot: String, targetFrames: Int64,
                method: RepairMethod, methodReason: String, quality: ResampleQuality, noop: Bool = false) {
        self.id = id
        self.attempt = attempt
        self.input = input
        self.output = output
        self.outputRoot = outputRoot
        self.targetFrames = targetFrames
        self.method = method
        self.methodReason = methodReason
        self.quality = quality
        self.noop = noop
    }
}

/// What a worker reports for a job.
public struct JobResult: Codable, Sendable, Equatable {
    public var id: Int
    public var attempt: Int
    public var worker: String
    public var succeeded: Bool
    /// Frames in the written output, read back from it.
    public var outputFrames: Int64?
    /// FNV-1a 64 of the output file's bytes, hex.
    public var checksum: String?
    public var seconds: Double
    /// One line naming the file and the cause, when the job failed.
    public var error: String?
    /// Whether another attempt might succeed (a write failure) rather than fail the same way (a corrupt input).
    public var retryable: Bool
    /// The job's `run`, echoed.
    public var run: Int64?

    public init(id: Int, attempt: Int, worker: String, succeeded: Bool, outputFrames: Int64? = nil, checksum: String? = nil,
                seconds: Double, error: String? = nil, retryable: Bool = false) {
        self.id = id
        self.attempt = attempt
        self.worker = worker
        self.succeeded = succeeded
        self.outputFrames = outputFrames
        self.checksum = checksum
        self.seconds = seconds
        self.error = error
        self.retryable = retryable
    }
}

/// Every message on the wire.
public enum WireMessage: Sendable, Equatable {
    /// worker → coordinator: first message after connecting (and after each reconnect).
    case hello(WorkerHello)
    /// both ways: "I am alive". Workers report the jobs they are running, so a coordinator that restarted or
    /// lost track can reconcile.
    case heartbeat(running: [Int])
    /// coordinator → worker.
    case job(JobSpec)
    /// worker → coordinator.
    case result(JobResult)
    /// coordinator → worker: stop taking work and exit once the running jobs are done.
    case shutdown
    /// worker → coordinator: leaving (its unfinished jobs go back to the queue).
    case goodbye
}
