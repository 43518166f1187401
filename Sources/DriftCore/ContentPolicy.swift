/// Which measurement plans a pair's repair: the headers' two lengths, the sound, or both (config `content:`).
public struct ContentPolicy: Sendable, Equatable, Codable {
    public enum Mode: String, Sendable, CaseIterable, Codable {
        /// Durations from the headers only (the only choice where a reference has no sound).
        case headers
        /// The default: the headers plan every pair whose lengths a clock explains; the sound measures and plans the
        /// others (lengths that differ by more than a clock drifts: a take started or stopped apart from its camera, a
        /// wrong pairing), where the reference has sound of its own. Where the sound cannot tell (a steady tone, a
        /// silent reference), the headers plan it; where both files have sound and share none, it is refused.
        case auto
        /// The sound decides; headers only where the reference has no sound (or is silent).
        case content
        /// Both are measured: content plans the repair when it is confident and agrees with the headers; a
        /// confident disagreement (late start, lying header, wrong pairing) is refused; without a confident content
        /// measurement the headers plan it.
        case both
    }

    public var mode: Mode
    /// Content measurements less confident than this (0…1) are not used.
    public var confidenceFloor: Double
    /// Where a content repair puts the output's first frame.
    public var start: ContentRepairPlan.Start
    /// The largest residual lag a content repair may leave anywhere in the file, ms (raised to what the sound's own
    /// precision allows where that is coarser).
    package var residualLimitMs: Double
    /// How precisely the headers know a reference's length, ms: differences within it are no disagreement (a
    /// video's length is known to a frame, and a file's streams end a frame apart).
    package var headerPrecisionMs: Double

    package init(
        mode: Mode, confidenceFloor: Double, start: ContentRepairPlan.Start, residualLimitMs: Double,
        headerPrecisionMs: Double
    ) {
        self.mode = mode
        self.confidenceFloor = confidenceFloor
        self.start = start
        self.residualLimitMs = residualLimitMs
        self.headerPrecisionMs = headerPrecisionMs
    }

    /// Whether pairs are measured by their sound (all of them, or under `auto` those whose lengths no clock explains).
    public var measuresContent: Bool { mode != .headers }

    /// Whether a pair of this cause (by its lengths) is measured by its sound, where its reference has sound.
    public func measures(_ cause: DriftCause?) -> Bool {
        switch mode {
        case .headers: false
        case .content, .both: true
        case .auto: cause == .lengthsDiffer
        }
    }

    /// The policy a worker decides a pair under: `auto` measures only pairs the lengths cannot explain, and decides
    /// those by the sound, falling back to the headers where the sound cannot tell.
    public var forWorker: ContentPolicy {
        var policy = self
        if mode == .auto { policy.mode = .content }
        policy.fallsBackToHeaders = fallsBackToHeaders || mode == .auto
        return policy
    }

    /// Where the sound cannot measure a pair (other than a wrong pairing), the headers plan it instead of a refusal
    /// (set for the pairs `auto` measures: their lengths already had a plan).
    public var fallsBackToHeaders = false

    private enum CodingKeys: String, CodingKey {
        case mode, confidenceFloor, start, residualLimitMs, headerPrecisionMs, fallsBackToHeaders
    }

    // A job from a coordinator before `fallsBackToHeaders` has no such key: it never fell back.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mode = try c.decode(Mode.self, forKey: .mode)
        confidenceFloor = try c.decode(Double.self, forKey: .confidenceFloor)
        start = try c.decode(ContentRepairPlan.Start.self, forKey: .start)
        residualLimitMs = try c.decode(Double.self, forKey: .residualLimitMs)
        headerPrecisionMs = try c.decode(Double.self, forKey: .headerPrecisionMs)
        fallsBackToHeaders = try c.decodeIfPresent(Bool.self, forKey: .fallsBackToHeaders) ?? false
    }
}

/// What the headers alone would do with a pair, and the numbers the content measurement is compared with.
public struct HeaderPlan: Sendable, Equatable {
    /// The headers' repair: `resample N` or `stretch N`; empty when the headers find the pair in sync.
    public var operations: [RepairOperation]
    /// (recording / reference − 1) × 10⁶ from the headers; nil when the reference has no length.
    public var driftPPM: Double?
    package var recordingSeconds: Double
    package var referenceSeconds: Double?
    /// The reference's length at the recording's rate (the header target), when known.
    public var referenceFrames: Int64?
    /// How the headers' plan changes the length (a config rule may choose stretch).
    public var method: RepairMethod
    /// Why the headers alone refuse the pair (an unexplained difference beyond the limit); nil when they do not.
    public var refusal: String?

    package init(
        operations: [RepairOperation], driftPPM: Double?, recordingSeconds: Double, referenceSeconds: Double?,
        referenceFrames: Int64?, method: RepairMethod = .resample, refusal: String? = nil
    ) {
        self.operations = operations
        self.driftPPM = driftPPM
        self.recordingSeconds = recordingSeconds
        self.referenceSeconds = referenceSeconds
        self.referenceFrames = referenceFrames
        self.method = method
        self.refusal = refusal
    }
}

/// Which measurement decided a repair.
public enum PlanMeasurement: String, Sendable, Equatable, Codable {
    /// Durations from the recording's and the reference's headers.
    case headers
    /// The recording correlated with the reference's sound.
    case content
}

/// The decision for one pair under a content policy, from the headers' plan and the sound's measurement.
public struct ContentDecision: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Run these operations (empty never: that is `skip`).
        case repair([RepairOperation])
        /// Nothing to do, and why.
        case skip(String)
        /// Not repaired, and why.
        case refuse(String)
    }

    public var action: Action
    public var measuredBy: PlanMeasurement
    /// Why content was not used, or what QA should know; nil when there is nothing to say.
    public var note: String?

    public init(action: Action, measuredBy: PlanMeasurement, note: String? = nil) {
        self.action = action
        self.measuredBy = measuredBy
        self.note = note
    }

    /// Decides a pair. `measurement` is nil when the reference has no sound of its own; it must already be compared
    /// with the headers (`ContentMeasurement.compare`).
    package static func decide(
        policy: ContentPolicy, measurement: ContentMeasurement?, headers: HeaderPlan,
        recordingFrames: Int64, sampleRate: Int
    ) -> ContentDecision {
        func byHeaders(_ note: String?) -> ContentDecision {
            let action: Action =
                headers.refusal.map { .refuse($0) }
                ?? (headers.operations.isEmpty ? .skip("in sync by the headers") : .repair(headers.operations))
            return ContentDecision(action: action, measuredBy: .headers, note: note)
        }
        guard policy.measuresContent else { return byHeaders(nil) }
        guard let measurement else { return byHeaders("the reference has no sound of its own: planned by the headers") }
        if !measurement.isMeasured || measurement.confidence < policy.confidenceFloor {
            let why =
                measurement.isMeasured
                ? "content confidence \(String(measurement.confidence, decimals: 2)) is below the floor \(String(policy.confidenceFloor, decimals: 2))"
                : "content unmeasurable: \(measurement.reason ?? "no clear match")"
            switch measurement.unmeasurable {
            case .silentReference?, .tooShort?:
                return byHeaders("\(why): planned by the headers")
            case .noCommonSound?:
                // Both files have sound and none of it is shared: the pair is most likely wrong.
                return ContentDecision(action: .refuse("\(why) (a wrong pairing?)"), measuredBy: .content)
            default:
                return policy.mode == .both || policy.fallsBackToHeaders
                    ? byHeaders("\(why): planned by the headers")
                    : ContentDecision(action: .refuse(why), measuredBy: .content)
            }
        }
        if policy.mode == .both, measurement.headersAgree == false {
            let headerText = headers.driftPPM.map { "drift \(String($0, decimals: 1)) ppm" } ?? "no drift"
            return ContentDecision(
                action: .refuse(
                    "content and headers disagree (\(measurement.disagreement ?? "unexplained")): content finds \(measurement.summary); the headers \(headerText)"
                ),
                measuredBy: .content)
        }
        switch ContentRepairPlan.operations(
            for: measurement, frames: recordingFrames, sampleRate: sampleRate, start: policy.start,
            referenceFrames: headers.referenceFrames, method: headers.method)
        {
        case .failure(let refusal):
            return ContentDecision(action: .refuse(refusal.reason), measuredBy: .content)
        case .success(let operations):
            if operations.isEmpty {
                return ContentDecision(action: .skip("in sync by its sound"), measuredBy: .content)
            }
            return ContentDecision(action: .repair(operations), measuredBy: .content)
        }
    }
}
