import DriftCore
import DriftSchema
import Foundation

/// The protocol version carried by every envelope. A peer speaking another version is logged and ignored.
/// 2: jobs carry `run` (a random run key) and `inputRoots`; results echo `run`. A version-1 peer is refused by name.
/// 3: jobs may carry `content` (measure by the sound, and repair by what was measured); results carry the
/// measurement and the decision.
/// 4: jobs may carry `sound` (pairing by sound: a file's print, or one clip's task); results carry the print or the
/// clip's rows.
/// 5: a job's work is one value (`JobWork`: header repair, content, sound print, clip sync, no-op) with only the fields
/// its kind needs; a job writing nothing has no output root. A version-4 peer is refused by name.
/// 6: jobs may name the polyphase engine.
/// 7: a failure may be `lease-lost` (a worker's verified output not published: it had lost touch past its lease).
public let wireProtocolVersion = 8

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

/// A job that measures by the sound: the recording against its reference's audio, then (with an output) the decision
/// under the policy and the repair it plans, proved in sync before it counts.
public struct ContentJob: Codable, Sendable, Equatable {
    /// The reference whose sound is the truth (checked against the input roots like the recording).
    public var reference: String
    /// Where the repair goes; nil: measure and report only, nothing is written (`scan --content`).
    public var output: String?
    public var policy: ContentPolicy
    /// The headers' plan, used where the sound cannot tell: the target length (the recording's own where the headers
    /// found it in sync) and how it is reached.
    public var targetFrames: Int64
    public var method: RepairMethod
    public var methodReason: String
    public var quality: ResampleQuality
    public var engine: ResampleEngine = .default
    /// The headers found the pair in sync (the target is then the recording's own length).
    public var headersInSync: Bool
    /// Why the headers alone refuse the pair (beyond the refuse limit): the sound may explain it; nil otherwise.
    public var headersRefusal: String?
    /// The headers' drift, the recording's and the reference's lengths, for the comparison.
    public var headerDriftPPM: Double?
    public var recordingSeconds: Double
    public var referenceSeconds: Double?

    /// Measure only: nothing is written.
    public var measureOnly: Bool { output == nil }

    public init(
        reference: String, output: String?, policy: ContentPolicy, targetFrames: Int64, method: MethodChoice,
        quality: ResampleQuality, headersInSync: Bool, headerDriftPPM: Double?, recordingSeconds: Double,
        referenceSeconds: Double?
    ) {
        self.reference = reference
        self.output = output
        self.policy = policy
        self.targetFrames = targetFrames
        self.method = method.method
        self.methodReason = method.reason
        self.quality = quality
        self.headersInSync = headersInSync
        self.headerDriftPPM = headerDriftPPM
        self.recordingSeconds = recordingSeconds
        self.referenceSeconds = referenceSeconds
    }
}

/// What a sound job made.
public struct SoundResult: Codable, Sendable, Equatable {
    /// The input's print in its stored form (`SoundPrint.bytes`, 160 bytes a second); nil: it has no sound.
    public var print: Data?
    /// The input's start timecode, seconds since midnight.
    public var timecode: Double?
    /// When the input's recording began by its device's calendar clock (`FileStart`), seconds since 1970.
    public var started: Double?
    /// A clip task's rows, one per place.
    public var matches: [SoundPairingReport.Match]?

    public init(print: Data? = nil, timecode: Double? = nil, matches: [SoundPairingReport.Match]? = nil) {
        self.print = print
        self.timecode = timecode
        self.matches = matches
    }
}

/// What a content job decided and found.
public struct ContentResult: Codable, Sendable, Equatable {
    public enum Decision: String, Codable, Sendable {
        /// Repaired (the output verified, in sync where the sound planned it).
        case repaired
        /// Nothing to do (in sync by the sound, or by the headers where the sound could not tell).
        case skipped
        /// Not repaired, and why (a confident disagreement, a wrong pairing, content below its confidence floor).
        case refused
        /// Measured only.
        case measured
    }

    public var decision: Decision
    /// Why it was skipped or refused; what QA should know otherwise.
    public var reason: String?
    public var measuredBy: PlanMeasurement
    /// The operations that ran (their stable text: `pad-start 96000`, `insert 1440000+1022`, `resample 8640123`).
    public var operations: [RepairOperation]
    /// The sound's measurement; nil where the reference has none.
    public var measurement: ContentMeasurement?
    /// A measure-only job's decision had it written (`repaired`, `skipped` or `refused`), with `operations` and
    /// `reason` as they would be; nil otherwise (and from workers before it).
    public var planned: Decision?

    public init(
        decision: Decision, reason: String?, measuredBy: PlanMeasurement, operations: [RepairOperation],
        measurement: ContentMeasurement?, planned: Decision? = nil
    ) {
        self.planned = planned
        self.decision = decision
        self.reason = reason
        self.measuredBy = measuredBy
        self.operations = operations
        self.measurement = measurement
    }
}

/// One job handed to a worker under a lease: which file, where it may read and write, and its work.
public struct JobSpec: Codable, Sendable, Equatable {
    /// Stable job id (one per pair, print or clip).
    public var id: Int
    /// Which lease this is: 1 for the first hand-out, 2 after a requeue, ...
    public var attempt: Int
    /// The file the work is about: the recording to repair, the file to print, the clip to sync.
    public var input: String
    /// Outputs must stay inside this folder (the worker checks, after resolving links and `..`); nil for work that
    /// writes nothing.
    public var outputRoot: String?
    /// Inputs must lie inside one of these folders (the coordinator's scan roots), unless the worker was given
    /// input roots of its own; checked after resolving links and `..`.
    public var inputRoots: [String]?
    /// The coordinator's run (journal run id): a result is credited only to the run that leased it, so a result
    /// delivered after a coordinator restart cannot complete a different run's job of the same id.
    public var run: Int64?
    /// The coordinator's span for this job, as a W3C `traceparent` (`00-<trace>-<span>-<flags>`): the worker's span
    /// for the job is its child. Nil when the coordinator is not tracing.
    public var traceparent: String?
    public var work: JobWork

    public init(id: Int, attempt: Int = 0, input: String, outputRoot: String?, work: JobWork) {
        self.id = id
        self.attempt = attempt
        self.input = input
        self.outputRoot = outputRoot
        self.work = work
    }

    /// Every path the job may write.
    public var outputs: [String] { work.outputs }
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
