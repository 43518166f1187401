/// A pair's drift as a report shows it, from the best measurement there is: the sound where it was measured
/// confidently, else the two files' lengths. Every figure of one row comes from the one measurement `measuredBy`
/// names; the lengths themselves stay apart (`PairLengths`).
///
/// Offsets follow the report's sign: positive, the sound lags the picture; negative, it leads. A lag of the sound
/// measurement (reference time less recording time) is the opposite: a recording started 300 ms after its camera has
/// a lag of +300 ms, and its sound, placed at the camera's start, leads the picture by 300 ms.
public struct DriftFigures: Sendable, Equatable {
    /// `content` (the sound) or `headers` (the two lengths).
    public var measuredBy: PlanMeasurement
    /// The clock's mean error, ppm: (recording rate / true rate − 1) × 10⁶, negative for a slow clock. Nil where the
    /// lengths differ by more than a clock drifts (`lengths-differ`): they are no clock figure.
    public var driftPPM: Double?
    /// What the clock lost (negative) or gained over the take, seconds: the recording's length less the reference
    /// time its sound spans, the start offset and lost buffers left out. Nil with `driftPPM`.
    package var driftSeconds: Double?
    /// The sync at the recording's first frame, ms (by the sound; nil by the lengths, which cannot tell a start).
    package var startOffsetMs: Double?
    /// The sync at the recording's last frame, ms: by the sound, from the fit at the end of the take; by the lengths,
    /// their difference (they are assumed to start together).
    package var endOffsetMs: Double?
    /// The sync at its worst moment, ms, and when (recording seconds): the lip-sync verdict's.
    package var worstOffsetMs: Double?
    package var worstAtSeconds: Double?
    /// The lip-sync limits the sync crosses anywhere in the take.
    public var flags: [SyncFlag]
    public var cause: DriftCause
    /// The cause in words, with what else was found ("recorder clock 131.00 ppm slow; started 300.0 ms after the
    /// reference").
    public var causeDetail: String

    /// The figures the two lengths give.
    public init(lengths analysis: DriftAnalysis) {
        measuredBy = .headers
        cause = analysis.cause
        causeDetail = analysis.causeDetail
        startOffsetMs = nil
        worstAtSeconds = nil
        if analysis.cause == .lengthsDiffer {
            // Started late, stopped early or drifted: the lengths cannot say which, so they say none.
            driftPPM = nil
            driftSeconds = nil
            endOffsetMs = nil
            worstOffsetMs = nil
            flags = []
        } else {
            driftPPM = analysis.driftPPM
            driftSeconds = analysis.driftSeconds.doubleValue
            endOffsetMs = analysis.endOffsetMilliseconds
            worstOffsetMs = endOffsetMs
            worstAtSeconds = analysis.recordingSeconds.doubleValue
            flags = analysis.flags
        }
    }

    /// The figures a confident sound measurement gives for a recording of `recordingSeconds` against a reference of
    /// `referenceSeconds` (its stated length); nil where the measurement has no line (unmeasurable).
    package init?(
        sound m: ContentMeasurement, recordingSeconds: Double, referenceSeconds: Double?, sampleRate: Int?,
        policy: DriftPolicy = DriftPolicy()
    ) {
        guard m.isMeasured, let offsetMs = m.offsetMs, var drift = m.driftPPM else { return nil }
        measuredBy = .content
        let track = LagTrack(m, offsetMs: offsetMs, driftPPM: drift)
        let end = max(recordingSeconds, 0)
        let startLag = track.lagMs(at: 0)
        let endLag = track.lagMs(at: end)
        startOffsetMs = -startLag
        endOffsetMs = -endLag
        let clockGrowth = (track.clockLagMs(at: end) - track.clockLagMs(at: 0)) / 1000
        driftSeconds = -clockGrowth
        // A clock that wandered or stepped: its mean error is the take's length against the reference time its
        // clock spanned, along its path (the fit's own rate is a line through it).
        if m.clock != nil, end > 0, end + clockGrowth > 0 { drift = (end / (end + clockGrowth) - 1) * 1e6 }
        driftPPM = drift
        // The raw windows, and the fit at both ends where no window reaches them.
        var points = m.curve.map { (at: $0.atSeconds, offset: -$0.lagMs) }
        points.append((0, -startLag))
        points.append((end, -endLag))
        let worst = points.max { abs($0.offset) < abs($1.offset) }
        worstOffsetMs = worst?.offset
        worstAtSeconds = worst?.at
        flags = SyncFlag.crossed(by: points.map(\.offset))
        (cause, causeDetail) = Self.cause(
            m, driftPPM: drift, clockMs: (driftSeconds ?? 0) * 1000, startOffsetMs: -startLag,
            recordingSeconds: recordingSeconds, sampleRate: sampleRate, policy: policy)
    }

    /// The clock's part of the cause alone (a clip found in a longer recording, whose start is its place, not a
    /// fault): a rate step, a wander, lost buffers, a steady error or a known ratio, else in sync.
    package static func clockCause(
        of m: ContentMeasurement, recordingSeconds: Double, sampleRate: Int?, policy: DriftPolicy = DriftPolicy()
    ) -> (DriftCause, String)? {
        guard m.isMeasured, let drift = m.driftPPM else { return nil }
        var clockOnly = m
        clockOnly.disagreement = nil
        return cause(
            clockOnly, driftPPM: drift, clockMs: drift * 1e-6 * recordingSeconds * 1000, startOffsetMs: 0,
            recordingSeconds: recordingSeconds, sampleRate: sampleRate, policy: policy)
    }

    /// The cause the sound names: the clock's fault first (a rate step, a wander, lost buffers, a steady error or a
    /// known ratio), else how the take was started or stopped, else in sync. What else was found goes into the words.
    static func cause(
        _ m: ContentMeasurement, driftPPM: Double, clockMs: Double, startOffsetMs: Double, recordingSeconds: Double,
        sampleRate: Int?, policy: DriftPolicy
    ) -> (DriftCause, String) {
        let toleranceMs = policy.tolerance.doubleValue * 1000
        let clockFine = abs(clockMs) <= toleranceMs || abs(driftPPM) <= (m.driftPPMError ?? 0)
        let speed = driftPPM < 0 ? "slow" : "fast"
        let clockWords = "recorder clock \(String(format2: abs(driftPPM))) ppm \(speed)"
        var start: String?
        if abs(startOffsetMs) > toleranceMs {
            // A lag > 0 (sound leads) is a recording started after its reference.
            let ms = String(format1: abs(startOffsetMs))
            start = startOffsetMs < 0 ? "started \(ms) ms after the reference" : "started \(ms) ms before the reference"
        }
        func with(_ words: String, _ more: String?...) -> String {
            ([words] + more.compactMap { $0 }).joined(separator: "; ")
        }
        let seconds = m.curve.last?.atSeconds ?? recordingSeconds
        if let clock = m.clock {
            return (m.model == .steps ? .clockStep : .clockWander, with(clock.summary(seconds: seconds), start))
        }
        if !m.dropouts.isEmpty {
            let missing = m.dropouts.reduce(0) { $0 + $1.missingMs }
            let count = m.dropouts.count
            let lost = "\(count) dropout\(count == 1 ? "" : "s"), \(String(format1: missing)) ms of sound lost"
            return (.dropouts, with(lost, clockFine ? nil : clockWords, start))
        }
        if !clockFine {
            let ratio = 1 + driftPPM * 1e-6
            let window = policy.recognitionWindowPPM
            if abs(ratio / (1000.0 / 1001.0) - 1) * 1e6 <= window {
                return (.pullDown, with("NTSC pull-down: 1000/1001 of the reference", start))
            }
            if abs(ratio / (1001.0 / 1000.0) - 1) * 1e6 <= window {
                return (.pullUp, with("NTSC pull-up: 1001/1000 of the reference", start))
            }
            if abs(driftPPM) <= policy.clockDriftLimitPPM { return (.clockDrift, with(clockWords, start)) }
            if let sampleRate,
                let (cause, words) = DriftAnalysis.mislabel(
                    ratio: ratio, sampleRate: sampleRate, policy: policy)
            {
                return (cause, with(words, start))
            }
            return (
                .unexplained,
                with(
                    "the sound runs \(String(format1: driftPPM)) ppm from its reference: no clock or known ratio", start
                )
            )
        }
        if let start { return (startOffsetMs < 0 ? .lateStart : .earlyStart, start) }
        switch m.disagreement {
        case "early stop"?: return (.earlyStop, "stopped before the reference; in sync")
        case "late stop"?: return (.lateStop, "ran on after the reference; in sync")
        case "lying header"?: return (.inSync, "in sync; the reference's stated length is not its sound's")
        default: return (.inSync, "in sync by its sound")
        }
    }
}

extension SyncFlag {
    /// The limits any of these sync offsets (ms; negative: sound leads) crosses.
    package static func crossed(by offsets: [Double]) -> [SyncFlag] {
        let leads = -(offsets.min() ?? 0)
        let lags = offsets.max() ?? 0
        var flags: [SyncFlag] = []
        if leads > 45 || lags > 125 { flags.append(.ituBT1359) }
        if leads > 40 || lags > 60 { flags.append(.ebuR37) }
        return flags
    }
}

/// The lag a sound measurement describes along the recording (ms at recording seconds): its clock's, plus the time
/// each dropout lost before that moment.
struct LagTrack {
    let measurement: ContentMeasurement
    let offsetMs: Double
    let slope: Double

    init(_ measurement: ContentMeasurement, offsetMs: Double, driftPPM: Double) {
        self.measurement = measurement
        self.offsetMs = offsetMs
        // Reference seconds per recording second, less one.
        slope = 1 / (1 + driftPPM * 1e-6) - 1
    }

    /// The clock's own lag (dropouts left out).
    func clockLagMs(at t: Double) -> Double {
        if let clock = measurement.clock { return clock.lagSeconds(at: t) * 1000 }
        return offsetMs + slope * t * 1000
    }

    func lagMs(at t: Double) -> Double {
        clockLagMs(at: t) + measurement.dropouts.filter { $0.atSeconds <= t }.reduce(0) { $0 + $1.missingMs }
    }
}
