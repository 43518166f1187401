/// What the sound says about a pair: the recording correlated with the reference's own audio.
///
/// Time runs on two clocks. `t` is recording time (recording frames / nominal rate); the *lag* at `t` is the
/// reference time of the sound heard at `t`, minus `t`. A recording that started 2 s after its reference has a lag
/// of +2 s at its start; a slow recorder clock makes the lag grow; a lost buffer makes it jump by the missing time.
/// Field names are stable JSON keys (`content` in reports and in `driftfix measure --format json`).
public struct ContentMeasurement: Codable, Sendable, Equatable {
    /// The fault the lag curve shows.
    public enum Model: String, Codable, Sendable, CaseIterable {
        /// The lag stays within the sync limit across the file.
        case inSync = "in-sync"
        /// The lag grows linearly: the recorder's clock is off (pitch shifted with the length).
        case clock
        /// The lag grows in steps: the device lost buffers (pitch right), at `dropouts`.
        case dropouts
        /// No common sound, silence, periodic sound without a unique alignment, or a wrong pairing.
        case unmeasurable
    }

    /// A place where the recording lost sound.
    public struct Dropout: Codable, Sendable, Equatable {
        /// Recording time of the gap, seconds from the recording's first frame.
        public var atSeconds: Double
        /// Sound missing there, milliseconds (negative: sound repeated, which re-insertion cannot repair).
        public var missingMs: Double
        /// How far the gap may lie from `atSeconds`, ms: a few ms where there is sound, the pause's length where the
        /// gap fell into a pause (anywhere in it lines up the same).
        public var uncertaintyMs: Double

        public init(atSeconds: Double, missingMs: Double, uncertaintyMs: Double = 0) {
            self.atSeconds = atSeconds
            self.missingMs = missingMs
            self.uncertaintyMs = uncertaintyMs
        }
    }

    /// One correlation window: where in the recording, and the lag found there.
    public struct LagPoint: Codable, Sendable, Equatable {
        /// Recording time of the window's centre, seconds.
        public var atSeconds: Double
        /// Lag, milliseconds.
        public var lagMs: Double

        public init(atSeconds: Double, lagMs: Double) {
            self.atSeconds = atSeconds
            self.lagMs = lagMs
        }
    }

    /// Reference time of the recording's first frame, ms: positive, the recording started after the reference.
    public var offsetMs: Double?
    /// (recording duration / reference duration of the same sound − 1) × 10⁶: the header drift's sign and scale.
    public var driftPPM: Double?
    /// Half-width of the 95 % interval of `driftPPM`.
    public var driftPPMError: Double?
    public var model: Model
    /// 0…1: the share of windows with sound that agree with the model, scaled by how clear their peaks are.
    public var confidence: Double
    public var dropouts: [Dropout]
    /// Whether the header drift lies within the content uncertainty; nil when either is missing.
    public var headersAgree: Bool?
    /// Why the headers disagree: "late start", "lying header", "wrong pairing"; nil when they agree.
    public var disagreement: String?
    /// After a repair: the worst lag left across the output, ms; nil where not measured.
    public var residualMs: Double?
    /// Why the pair is unmeasurable, in words; nil otherwise.
    public var reason: String?
    /// Spread of the windows about the model (RMS), ms.
    public var scatterMs: Double?
    /// Windows correlated, and how many agreed with the model.
    public var windows: Int
    public var agreeingWindows: Int
    /// The lag curve, thinned to at most a few hundred points (the report draws it).
    public var curve: [LagPoint]

    public init(
        offsetMs: Double?, driftPPM: Double?, driftPPMError: Double?, model: Model, confidence: Double,
        dropouts: [Dropout] = [], headersAgree: Bool? = nil, disagreement: String? = nil, residualMs: Double? = nil,
        reason: String? = nil, scatterMs: Double? = nil, windows: Int = 0, agreeingWindows: Int = 0,
        curve: [LagPoint] = []
    ) {
        self.offsetMs = offsetMs
        self.driftPPM = driftPPM
        self.driftPPMError = driftPPMError
        self.model = model
        self.confidence = confidence
        self.dropouts = dropouts
        self.headersAgree = headersAgree
        self.disagreement = disagreement
        self.residualMs = residualMs
        self.reason = reason
        self.scatterMs = scatterMs
        self.windows = windows
        self.agreeingWindows = agreeingWindows
        self.curve = curve
    }

    private enum CodingKeys: String, CodingKey {
        case offsetMs, driftPPM, driftPPMError, model, confidence, dropouts, headersAgree, disagreement, residualMs
        case reason, scatterMs, windows, agreeingWindows, curve
    }

    /// Every key is written, `null` where there is no value: scripts read a fixed shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(offsetMs, forKey: .offsetMs)
        try c.encode(driftPPM, forKey: .driftPPM)
        try c.encode(driftPPMError, forKey: .driftPPMError)
        try c.encode(model, forKey: .model)
        try c.encode(confidence, forKey: .confidence)
        try c.encode(dropouts, forKey: .dropouts)
        try c.encode(headersAgree, forKey: .headersAgree)
        try c.encode(disagreement, forKey: .disagreement)
        try c.encode(residualMs, forKey: .residualMs)
        try c.encode(reason, forKey: .reason)
        try c.encode(scatterMs, forKey: .scatterMs)
        try c.encode(windows, forKey: .windows)
        try c.encode(agreeingWindows, forKey: .agreeingWindows)
        try c.encode(curve, forKey: .curve)
    }

    /// Whether the numbers can plan a repair.
    public var isMeasured: Bool { model != .unmeasurable && offsetMs != nil && driftPPM != nil }

    /// The lag the model predicts at recording time `t` (seconds), ms.
    public func modelLagMs(at t: Double) -> Double? {
        guard let offsetMs, let driftPPM else { return nil }
        // lag(t) = offset + b·t with 1 + b = 1 / (1 + drift): a slow clock (negative drift) makes the lag grow.
        let b = 1 / (1 + driftPPM * 1e-6) - 1
        var lag = offsetMs + b * t * 1000
        for d in dropouts where d.atSeconds < t { lag += d.missingMs }
        return lag
    }

    /// Compares the headers' lengths with this measurement and names the disagreement, if any.
    ///
    /// A header plan assumes both files start together and differ only by a constant rate. The content shows the
    /// lag at the start (offset) and how it grows (drift, dropouts). The headers agree when their plan would line up
    /// the file: no start offset, and the same growth.
    public mutating func compare(headerDriftPPM: Double?, recordingSeconds: Double, referenceSeconds: Double?) {
        guard let headerDriftPPM, isMeasured, let driftPPM, let offsetMs else {
            headersAgree = nil
            disagreement = model == .unmeasurable && headerDriftPPM != nil && reason?.hasPrefix("no common sound") == true
                ? "wrong pairing" : nil
            return
        }
        let b = 1 / (1 + driftPPM * 1e-6) - 1
        let missing = dropouts.reduce(0) { $0 + $1.missingMs }
        let contentGrowthMs = b * recordingSeconds * 1000 + missing
        let reference = referenceSeconds ?? recordingSeconds / (1 + headerDriftPPM * 1e-6)
        let headerGrowthMs = (reference - recordingSeconds) * 1000
        // The content uncertainty over the file, the scatter of the windows, and 1 ms for how streams end.
        let slackMs = (driftPPMError ?? 0) * 1e-6 * recordingSeconds * 1000 + 3 * (scatterMs ?? 0) + 1
        let growthAgrees = abs(contentGrowthMs - headerGrowthMs) <= slackMs
        headersAgree = growthAgrees && abs(offsetMs) <= slackMs
        if headersAgree == true {
            disagreement = nil
        } else if abs(offsetMs + contentGrowthMs - headerGrowthMs) <= slackMs + abs(offsetMs) * 1e-3 {
            // The length difference is the start offset: the headers took a late (or early) start for drift.
            disagreement = offsetMs > 0 ? "late start" : "early start"
        } else if growthAgrees {
            // The drift matches but the sound starts elsewhere, and the ends differ by as much: part of the reference.
            disagreement = "partial recording"
        } else {
            disagreement = "lying header"
        }
    }
}
