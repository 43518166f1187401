import DriftCore

/// What the two files' lengths say, kept apart from the row's drift: the row's drift, offsets and cause come from the
/// best measurement (`measuredBy`), and these stay the lengths whatever it was. The report's `lengths` object.
public struct PairLengths: Codable, Sendable, Equatable {
    package var recordingSeconds: Double
    package var referenceSeconds: Double
    /// Recording minus reference, seconds (exact to the frame before it is written as a double).
    package var differenceSeconds: Double
    /// (recording / reference − 1) × 10⁶.
    public var ratioPPM: Double

    package init(recordingSeconds: Double, referenceSeconds: Double, differenceSeconds: Double, ratioPPM: Double) {
        self.recordingSeconds = recordingSeconds
        self.referenceSeconds = referenceSeconds
        self.differenceSeconds = differenceSeconds
        self.ratioPPM = ratioPPM
    }
}

/// What the sound decided for a pair: the plan its measurement made (under the content policy), which replaces the
/// plan the lengths made.
public enum SoundPlan: Sendable, Equatable {
    /// Run these operations.
    case repair([RepairOperation])
    /// Nothing to do, and why.
    case skip(String)
    /// Not repaired, and why.
    case refuse(String)
}

extension PairReport {
    /// The two lengths (their difference exact to the frame where the row was measured); nil for a pair that could
    /// not be measured.
    public var lengths: PairLengths? {
        guard let recordingSeconds, let referenceSeconds, referenceSeconds > 0 else { return nil }
        return PairLengths(
            recordingSeconds: recordingSeconds, referenceSeconds: referenceSeconds,
            differenceSeconds: lengthDifferenceSeconds ?? recordingSeconds - referenceSeconds,
            ratioPPM: (recordingSeconds / referenceSeconds - 1) * 1e6)
    }

    /// Recording minus reference, exact: from the recording's frames and the reference's stated duration
    /// (`numerator/denominator`), for a row read back from where only those were kept (a journal).
    package static func lengthDifference(frames: Int64?, sampleRate: Int?, referenceDuration: String?) -> Double? {
        guard let frames, let rate = sampleRate, rate > 0, let duration = referenceDuration,
            let reference = try? Rational(parsing: duration)
        else { return nil }
        return Rational.difference(Rational(frames, Int64(rate)), reference).doubleValue
    }

    /// Puts `figures` in the row's drift, offset, limit and cause columns, and `measuredBy` with them.
    package mutating func show(_ figures: DriftFigures) {
        measuredBy = figures.measuredBy
        driftPPM = figures.driftPPM
        driftSeconds = figures.driftSeconds
        startOffsetMs = figures.startOffsetMs
        endOffsetMs = figures.endOffsetMs
        worstOffsetMs = figures.worstOffsetMs
        worstAtSeconds = figures.worstAtSeconds
        flags = figures.flags
        cause = figures.cause
        causeDetail = figures.causeDetail
        sync = Self.syncPhrase(cause: cause, startOffsetMs: startOffsetMs, endOffsetMs: endOffsetMs)
    }

    /// How a measured pair's sync reads: "in sync", "sound lags by 2.00 ms at the end", "sound leads by 300.0 ms at
    /// the start, 330.4 ms at the end", "the lengths cannot tell"; nil for a pair that was not measured.
    package static func syncPhrase(cause: DriftCause?, startOffsetMs: Double?, endOffsetMs: Double?) -> String? {
        guard let cause else { return nil }
        if cause == .inSync || cause == .earlyStop || cause == .lateStop { return "in sync" }
        guard let endOffsetMs else { return cause == .lengthsDiffer ? "the lengths cannot tell" : nil }
        func amount(_ ms: Double) -> String { abs(ms) >= 10 ? String(format1: abs(ms)) : String(format2: abs(ms)) }
        func way(_ ms: Double) -> String { ms < 0 ? "leads" : "lags" }
        guard let start = startOffsetMs, abs(start) >= 0.05 else {
            return "sound \(way(endOffsetMs)) by \(amount(endOffsetMs)) ms at the end"
        }
        let end =
            way(start) == way(endOffsetMs)
            ? "\(amount(endOffsetMs)) ms at the end" : "\(way(endOffsetMs)) by \(amount(endOffsetMs)) ms at the end"
        return "sound \(way(start)) by \(amount(start)) ms at the start, \(end)"
    }

    /// The row once its pair was measured by its sound: the measurement in `content`; where it is confident (at
    /// least `confidenceFloor`), the row's figures and cause from it (`measuredBy: content`); and `plan`, the plan the
    /// sound made, in place of the lengths' (its action, operations, target and method, a refusal's reason). A pair
    /// the sound could not measure keeps the lengths' figures, and the plan it fell back to.
    public mutating func revise(
        bySound measurement: ContentMeasurement?, plan: SoundPlan?, drift: DriftPolicy, confidenceFloor: Double
    ) {
        content = measurement
        if let measurement, measurement.confidence >= confidenceFloor, let recordingSeconds,
            let figures = DriftFigures(
                sound: measurement, recordingSeconds: recordingSeconds, referenceSeconds: referenceSeconds,
                sampleRate: sampleRate, policy: drift)
        {
            show(figures)
        }
        guard let plan else { return }
        switch plan {
        case .repair(let planned):
            let headersRefused = action == .refuse
            action = PlanAction(operations: planned)
            operations = planned
            if let frames = recordingFrames {
                targetFrames = planned.reduce(frames) { $1.frames(after: $0) }
            }
            switch action {
            case .stretch: method = .stretch
            case .resample: method = .resample
            default:
                method = nil
                methodReason = "by its sound: the start moved or lost sound put back, at the clock's own rate"
            }
            // The lengths' refusal does not stand: the sound explained them.
            if headersRefused { error = nil }
        case .skip:
            action = .skip
            operations = []
            method = nil
            methodReason = nil
            if error != nil, measuredBy == .content { error = nil }
        case .refuse(let why):
            action = .refuse
            operations = []
            method = nil
            methodReason = nil
            error = why
        }
    }
}
