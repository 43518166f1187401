/// Measurements and reports keep their times as the numbers their JSON prints, ms or s, exactly as measured (a
/// `Duration` rounds to the attosecond, so a figure carried in one would lose its last digits on every round trip
/// through a report or the journal). The public API reads and sets them as `Duration`s; these convert at that line.
extension Duration {
    /// `seconds` as a span; nil for no figure, or one no span can be (not finite).
    package init?(seconds: Double?) {
        guard let seconds, seconds.isFinite else { return nil }
        self = .seconds(seconds)
    }

    /// `milliseconds` as a span; nil for no figure, or one no span can be (not finite).
    package init?(milliseconds: Double?) {
        guard let milliseconds, milliseconds.isFinite else { return nil }
        self = .milliseconds(milliseconds)
    }

    /// The span in milliseconds, as a report prints it.
    package var inMilliseconds: Double { self / .milliseconds(1) }
}

extension ContentMeasurement {
    /// Reference time of the recording's first frame: positive, the recording started after the reference.
    public var offset: Duration? { Duration(milliseconds: offsetMs) }
    /// Half-width of the 95 % interval of `offset`.
    public var offsetError: Duration? { Duration(milliseconds: offsetMsError) }
    /// After a repair: the worst lag left across the output (windows smoothed over ~7 s); nil where not measured.
    public var residual: Duration? { Duration(milliseconds: residualMs) }
    /// The limit the residual was held to (the configured one, or the sound's own precision where coarser).
    public var residualLimit: Duration? { Duration(milliseconds: residualLimitMs) }
    /// How long the reference's sound lasts (its audio track, which may differ from its stated length).
    public var referenceSoundLength: Duration? { Duration(seconds: referenceSoundSeconds) }
    /// Spread of the windows about the model (RMS).
    public var scatter: Duration? { Duration(milliseconds: scatterMs) }
}

extension ContentMeasurement.Dropout {
    /// Recording time of the gap, from the recording's first frame.
    public var at: Duration { .seconds(atSeconds) }
    /// Sound missing there (negative: sound repeated, which re-insertion cannot repair).
    public var missing: Duration { .milliseconds(missingMs) }
    /// How far the gap may lie from `at`: a few ms where there is sound, the pause's length where the gap fell into a
    /// pause.
    public var uncertainty: Duration { .milliseconds(uncertaintyMs) }
}

extension ContentMeasurement.LagPoint {
    /// Recording time of the window's centre.
    public var at: Duration { .seconds(atSeconds) }
    /// Reference time less recording time there.
    public var lag: Duration { .milliseconds(lagMs) }
}

extension SyncVerification {
    /// The worst lag left (windows smoothed over ~7 s); nil when the output could not be measured.
    public var residual: Duration? { Duration(milliseconds: residualMs) }
    /// The limit applied: the configured one, or the sound's own precision where that is coarser.
    public var limit: Duration { .milliseconds(limitMs) }
}

extension ContentPolicy {
    /// A policy: its mode, the confidence below which the sound is not used, where a content repair starts the
    /// output, the residual lag it may leave, and how precisely the headers know a reference's length.
    public init(
        mode: Mode = .auto, confidenceFloor: Double = 0.5, start: ContentRepairPlan.Start = .reference,
        residualLimit: Duration = .milliseconds(1), headerPrecision: Duration = .milliseconds(50)
    ) {
        self.init(
            mode: mode, confidenceFloor: confidenceFloor, start: start, residualLimitMs: residualLimit.inMilliseconds,
            headerPrecisionMs: headerPrecision.inMilliseconds)
    }

    /// The largest residual lag a content repair may leave anywhere in the file (raised to what the sound's own
    /// precision allows where that is coarser).
    public var residualLimit: Duration {
        get { .milliseconds(residualLimitMs) }
        set { residualLimitMs = newValue.inMilliseconds }
    }

    /// How precisely the headers know a reference's length: differences within it are no disagreement.
    public var headerPrecision: Duration {
        get { .milliseconds(headerPrecisionMs) }
        set { headerPrecisionMs = newValue.inMilliseconds }
    }
}

extension HeaderPlan {
    /// The recording's length (frames / rate).
    public var recordingLength: Duration { .seconds(recordingSeconds) }
    /// The reference's stated length; nil where it has none.
    public var referenceLength: Duration? { Duration(seconds: referenceSeconds) }
}

extension DriftFigures {
    /// What the clock lost (negative) or gained over the take; nil with `driftPPM`.
    public var drift: Duration? { Duration(seconds: driftSeconds) }
    /// The sync at the recording's first frame (by the sound; nil by the lengths, which cannot tell a start).
    public var startOffset: Duration? { Duration(milliseconds: startOffsetMs) }
    /// The sync at the recording's last frame.
    public var endOffset: Duration? { Duration(milliseconds: endOffsetMs) }
    /// The sync at its worst moment, and when (`worstAt`, recording time).
    public var worstOffset: Duration? { Duration(milliseconds: worstOffsetMs) }
    public var worstAt: Duration? { Duration(seconds: worstAtSeconds) }
}

extension ClockPath {
    /// The first and the last moment the sound was measured (recording time).
    public var from: Duration { .seconds(fromSeconds) }
    public var to: Duration { .seconds(toSeconds) }
}

extension ClockPath.DriftPoint {
    /// Recording time of the point.
    public var at: Duration { .seconds(atSeconds) }
}

extension ClockPath.RateStep {
    /// Recording time of the step.
    public var at: Duration { .seconds(atSeconds) }
    /// How far the step may lie from `at` (95 %).
    public var uncertainty: Duration { .seconds(uncertaintySeconds) }
}

extension DriftAnalysis {
    /// The sync at the end by the two lengths: positive, the sound comes late (lags the picture); negative, early.
    public var endOffset: Duration { .seconds(driftSeconds.doubleValue) }
}
