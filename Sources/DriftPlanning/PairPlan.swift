import DriftCore

/// What a run does with one pair, decided once: from the scan's measurement, the repair policy and the verdict on
/// an earlier night's output.
public struct PairPlan: Sendable, Equatable {
    public enum Decision: Sendable, Equatable {
        /// In sync: nothing to do.
        case skip
        /// Not repaired, and why (unexplained beyond the limit, unreadable, ambiguous...).
        case refuse(String)
        /// Run the operations.
        case repair
        /// An earlier night's output is still current: the operations are what made it.
        case unchanged(PreviousOutput)
    }

    /// Which measurement decided the plan.
    public enum Measurement: String, Sendable, Equatable {
        /// Durations from the recording's and the reference's headers.
        case headers
        /// The worker measures the sound and decides under `content` policy (the operations are the headers' plan,
        /// used where the sound cannot tell).
        case content
    }

    public let id: PairID
    public let reference: String
    public var decision: Decision
    /// The repair in order (a header plan: one resample or stretch to the target); empty for skip and refuse.
    public var operations: [RepairOperation]
    /// Frames the repaired recording must have.
    public var targetFrames: Int64?
    /// How the length is changed, and why (the config rule, the cause).
    public var method: MethodChoice?
    public var measuredBy: Measurement
    /// Where the repair writes (mirrored below the output root); nil for pairs that are not repaired.
    public var output: String?
    /// The recording's duration: longest repairs go first.
    public var audioSeconds: Double
    /// The content policy a worker applies (`measuredBy == .content`); nil for header plans.
    public var content: ContentPolicy?

    public init(
        id: PairID, reference: String, decision: Decision, operations: [RepairOperation] = [],
        targetFrames: Int64? = nil, method: MethodChoice? = nil, measuredBy: Measurement = .headers,
        output: String? = nil, audioSeconds: Double = 0
    ) {
        self.id = id
        self.reference = reference
        self.decision = decision
        self.operations = operations
        self.targetFrames = targetFrames
        self.method = method
        self.measuredBy = measuredBy
        self.output = output
        self.audioSeconds = audioSeconds
    }

    /// Whether this pair has work for a worker.
    public var needsRepair: Bool { decision == .repair }
}

/// An earlier night's verified output of a pair, still current (`unchanged`).
public struct PreviousOutput: Sendable, Equatable {
    public var output: String
    public var outputFrames: Int64
    public var checksum: String?
    public var worker: String?
    /// What the sound found and planned when a content job made it: the report shows it again while the output
    /// stands (nil for a header repair).
    public var finding: ContentFinding?

    public init(
        output: String, outputFrames: Int64, checksum: String?, worker: String?, finding: ContentFinding? = nil
    ) {
        self.output = output
        self.outputFrames = outputFrames
        self.checksum = checksum
        self.worker = worker
        self.finding = finding
    }
}

/// Whether an earlier output of a pair can stand (decided by the journal's incremental check).
public enum IncrementalVerdict: Sendable, Equatable {
    case current(PreviousOutput)
    /// Why the pair must be repaired again (for the log).
    case stale(String)
}

/// How a pair's repair ended in a run.
public struct PairOutcome: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case repaired(outputFrames: Int64?, checksum: String?, worker: String, seconds: Double)
        case failed(String)
        /// Not finished when the run ended; the last error, if any.
        case unfinished(String?)
        /// A content job found nothing to do, and why.
        case skipped(String)
        /// A content job refused the repair, and why.
        case refused(String)
        /// A measure-only job measured.
        case measured
    }

    public var state: State
    /// Leases handed out.
    public var attempts: Int
    /// What a content job found and decided: the measurement, which measurement planned the repair, the operations
    /// that ran; nil for header jobs.
    public var content: ContentFinding?
    /// Why it failed, where it did (or the last failure of an unfinished job).
    public var failure: FailureKind?
    /// What QA should know of the repaired output (its metadata: a chunk not carried, a marker moved).
    public var warnings: [String] = []

    public init(state: State, attempts: Int, content: ContentFinding? = nil, failure: FailureKind? = nil) {
        self.state = state
        self.attempts = attempts
        self.content = content
        self.failure = failure
    }
}

/// A content job's findings, as the report shows them.
public struct ContentFinding: Sendable, Equatable {
    public var measurement: ContentMeasurement?
    public var measuredBy: PlanMeasurement
    public var operations: [RepairOperation]
    /// Why content was not used, or what else QA should know.
    public var note: String?

    public init(
        measurement: ContentMeasurement?, measuredBy: PlanMeasurement, operations: [RepairOperation], note: String?
    ) {
        self.measurement = measurement
        self.measuredBy = measuredBy
        self.operations = operations
        self.note = note
    }
}
