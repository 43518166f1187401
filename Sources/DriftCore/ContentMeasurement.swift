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
        /// The clock's rate changes smoothly during the take (warming, cycling): `clock` has its path.
        case wander
        /// The clock's rate stepped during the take (re-disciplined: GPS, a timecode re-jam): `clock` says where.
        case steps
        /// No common sound, silence, periodic sound without a unique alignment, or a wrong pairing.
        case unmeasurable
    }

    /// Why a pair could not be measured.
    public enum Unmeasurable: String, Codable, Sendable, CaseIterable {
        /// Under a second of recording.
        case tooShort = "too-short"
        case silentRecording = "silent-recording"
        case silentReference = "silent-reference"
        /// Several places in the reference match equally well (a loop, a steady beat).
        case repetitive
        /// Both files have sound, and none of it is shared (a wrong pairing, another take).
        case noCommonSound = "no-common-sound"
    }

    /// A place where the recording lost sound.
    public struct Dropout: Codable, Sendable, Equatable {
        /// Recording time of the gap, seconds from the recording's first frame.
        package var atSeconds: Double
        /// Sound missing there, milliseconds (negative: sound repeated, which re-insertion cannot repair).
        package var missingMs: Double
        /// How far the gap may lie from `atSeconds`, ms: a few ms where there is sound, the pause's length where the
        /// gap fell into a pause (anywhere in it lines up the same).
        package var uncertaintyMs: Double

        package init(atSeconds: Double, missingMs: Double, uncertaintyMs: Double = 0) {
            self.atSeconds = atSeconds
            self.missingMs = missingMs
            self.uncertaintyMs = uncertaintyMs
        }
    }

    /// One correlation window: where in the recording, and the lag found there.
    public struct LagPoint: Codable, Sendable, Equatable {
        /// Recording time of the window's centre, seconds.
        package var atSeconds: Double
        /// Lag, milliseconds.
        package var lagMs: Double

        package init(atSeconds: Double, lagMs: Double) {
            self.atSeconds = atSeconds
            self.lagMs = lagMs
        }
    }

    /// Reference time of the recording's first frame, ms: positive, the recording started after the reference.
    package var offsetMs: Double?
    /// Half-width of the 95 % interval of `offsetMs`.
    package var offsetMsError: Double?
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
    /// Why the headers disagree: "late start", "early start", "early stop", "late stop", "lying header", "wrong
    /// pairing"; nil when they agree.
    public var disagreement: String?
    /// After a repair: the worst lag left across the output (windows smoothed over ~7 s), ms; nil where not measured.
    package var residualMs: Double?
    /// The limit the residual was held to, ms (the configured one, or the sound's own precision where coarser).
    package var residualLimitMs: Double?
    /// After a repair: the lag left across the output, per stretch of windows (the report draws it).
    public var residualCurve: [LagPoint]?
    /// Why the pair is unmeasurable, in words; nil otherwise.
    public var reason: String?
    /// Why the pair is unmeasurable, as a stable name; nil otherwise.
    public var unmeasurable: Unmeasurable?
    /// How long the reference's sound lasts, seconds (its audio track, which may differ from its stated length).
    package var referenceSoundSeconds: Double?
    /// Spread of the windows about the model (RMS), ms.
    package var scatterMs: Double?
    /// Windows correlated, and how many agreed with the model.
    public var windows: Int
    public var agreeingWindows: Int
    /// The lag curve, thinned to at most a few hundred points (the report draws it).
    public var curve: [LagPoint]
    /// How the clock ran where it did not run straight (`wander`, `steps`): its lag and drift along the take, where
    /// its rate stepped; nil for a straight clock, whose line `offsetMs` and `driftPPM` are. `driftPPM` is then the
    /// take's average (its length against the reference's).
    public var clock: ClockPath?

    package init(
        offsetMs: Double?, driftPPM: Double?, driftPPMError: Double?, model: Model, confidence: Double,
        dropouts: [Dropout] = [], headersAgree: Bool? = nil, disagreement: String? = nil, residualMs: Double? = nil,
        reason: String? = nil, unmeasurable: Unmeasurable? = nil, scatterMs: Double? = nil, windows: Int = 0,
        agreeingWindows: Int = 0, curve: [LagPoint] = []
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
        self.unmeasurable = unmeasurable
        self.scatterMs = scatterMs
        self.windows = windows
        self.agreeingWindows = agreeingWindows
        self.curve = curve
    }

    private enum CodingKeys: String, CodingKey {
        case offsetMs, offsetMsError, driftPPM, driftPPMError, model, confidence, dropouts, headersAgree, disagreement,
            residualMs
        case residualLimitMs, residualCurve, reason, unmeasurable, referenceSoundSeconds, scatterMs, windows,
            agreeingWindows, curve, clock
    }

    /// Every key is written, `null` where there is no value: scripts read a fixed shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(offsetMs, forKey: .offsetMs)
        try c.encode(offsetMsError, forKey: .offsetMsError)
        try c.encode(driftPPM, forKey: .driftPPM)
        try c.encode(driftPPMError, forKey: .driftPPMError)
        try c.encode(model, forKey: .model)
        try c.encode(confidence, forKey: .confidence)
        try c.encode(dropouts, forKey: .dropouts)
        try c.encode(headersAgree, forKey: .headersAgree)
        try c.encode(disagreement, forKey: .disagreement)
        try c.encode(residualMs, forKey: .residualMs)
        try c.encode(residualLimitMs, forKey: .residualLimitMs)
        try c.encode(residualCurve, forKey: .residualCurve)
        try c.encode(reason, forKey: .reason)
        try c.encode(unmeasurable, forKey: .unmeasurable)
        try c.encode(referenceSoundSeconds, forKey: .referenceSoundSeconds)
        try c.encode(scatterMs, forKey: .scatterMs)
        try c.encode(windows, forKey: .windows)
        try c.encode(agreeingWindows, forKey: .agreeingWindows)
        try c.encode(curve, forKey: .curve)
        try c.encode(clock, forKey: .clock)
    }

    /// The measurement in words: "offset +2000.02 ms, drift -131.00 ± 0.01 ppm, 2 dropouts (52.0 ms)".
    public var summary: String {
        guard let offsetMs, let driftPPM else { return "nothing measurable (\(reason ?? "no clear match"))" }
        var text =
            "offset \(offsetMs >= 0 ? "+" : "")\(String(offsetMs, decimals: 2)) ms, drift \(String(driftPPM, decimals: 2))"
        text += driftPPMError.map { " ± \(String($0, decimals: 2)) ppm" } ?? " ppm"
        if let clock, let last = curve.last ?? clock.lag.last {
            text += " (on average); " + clock.summary(seconds: last.atSeconds)
        }
        if !dropouts.isEmpty {
            let missing = dropouts.reduce(0) { $0 + $1.missingMs }
            text += ", \(dropouts.count) dropout\(dropouts.count == 1 ? "" : "s") (\(String(missing, decimals: 1)) ms)"
        }
        return text
    }

    /// This measurement of a stretch of a longer recording, moved onto the whole recording's timeline: the stretch
    /// began `seconds` into it.
    package func shifted(bySeconds seconds: Double) -> ContentMeasurement {
        var moved = self
        if let offsetMs, let driftPPM {
            moved.offsetMs = offsetMs - seconds * 1000 / (1 + driftPPM * 1e-6)
        }
        moved.dropouts = dropouts.map {
            var d = $0
            d.atSeconds += seconds
            return d
        }
        // A lag is reference time less recording time: the same moment is `seconds` later in the recording.
        moved.curve = curve.map { LagPoint(atSeconds: $0.atSeconds + seconds, lagMs: $0.lagMs - seconds * 1000) }
        moved.clock = clock?.shifted(bySeconds: seconds)
        return moved
    }

    /// Whether the numbers can plan a repair.
    public var isMeasured: Bool { model != .unmeasurable && offsetMs != nil && driftPPM != nil }

    /// Compares the headers' lengths with this measurement and names the disagreement, if any.
    ///
    /// A header plan assumes both files start together and differ only by a constant rate. The content shows the
    /// lag at the start (offset) and how it grows (drift, dropouts). The headers agree when their plan would line up
    /// the file: no start offset, and the same growth - to within the content's uncertainty plus the headers' own
    /// precision (`headerPrecisionMs`: a video's length is known to a frame, and streams end a frame apart).
    ///
    /// A disagreement is named by where the recording lies in the reference: `late start` / `early start` (it began
    /// after / before the reference), `early stop` / `late stop` (it began with the reference but ended before / after
    /// it), `lying header` (it ends where the reference's own sound ends, but the reference's stated length is
    /// another), `wrong pairing` (no common sound).
    package mutating func compare(
        headerDriftPPM: Double?, recordingSeconds: Double, referenceSeconds: Double?,
        headerPrecisionMs: Double = 50
    ) {
        guard let headerDriftPPM, isMeasured, let driftPPM, let offsetMs else {
            headersAgree = nil
            disagreement = unmeasurable == .noCommonSound ? "wrong pairing" : nil
            return
        }
        let b = 1 / (1 + driftPPM * 1e-6) - 1
        let missing = dropouts.reduce(0) { $0 + $1.missingMs }
        let contentGrowthMs = b * recordingSeconds * 1000 + missing
        let reference = referenceSeconds ?? recordingSeconds / (1 + headerDriftPPM * 1e-6)
        let headerGrowthMs = (reference - recordingSeconds) * 1000
        let slackMs =
            (driftPPMError ?? 0) * 1e-6 * recordingSeconds * 1000 + 3 * (scatterMs ?? 0)
            + (offsetMsError ?? 0) + headerPrecisionMs
        let startAgrees = abs(offsetMs) <= slackMs
        let growthAgrees = abs(contentGrowthMs - headerGrowthMs) <= slackMs
        headersAgree = startAgrees && growthAgrees
        // Reference time of the recording's end, against the reference's stated end and its sound's end.
        let endMs = offsetMs + recordingSeconds * 1000 + contentGrowthMs
        if headersAgree == true {
            disagreement = nil
        } else if !startAgrees {
            disagreement = offsetMs > 0 ? "late start" : "early start"
        } else if let sound = referenceSoundSeconds, abs(endMs - sound * 1000) <= slackMs,
            abs(endMs - reference * 1000) > slackMs
        {
            disagreement = "lying header"
        } else {
            disagreement = endMs < reference * 1000 ? "early stop" : "late stop"
        }
    }
}

/// A repaired file correlated with its reference again: the lag left across it.
public struct SyncVerification: Codable, Sendable, Equatable {
    /// The worst lag left (windows smoothed over ~7 s), ms; nil when the output could not be measured.
    package var residualMs: Double?
    /// The limit applied, ms: the configured one, or the sound's own precision where that is coarser.
    package var limitMs: Double
    public var passed: Bool
    /// The lag left, per stretch of windows, ms.
    public var curve: [ContentMeasurement.LagPoint]
    /// Why it failed; nil when it passed.
    public var reason: String?
    /// The output's own measurement against the reference.
    public var measurement: ContentMeasurement

    package init(
        residualMs: Double?, limitMs: Double, passed: Bool, curve: [ContentMeasurement.LagPoint], reason: String?,
        measurement: ContentMeasurement
    ) {
        self.residualMs = residualMs
        self.limitMs = limitMs
        self.passed = passed
        self.curve = curve
        self.reason = reason
        self.measurement = measurement
    }
}
