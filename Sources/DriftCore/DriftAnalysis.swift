public import struct SystemPackage.FilePath

/// The likely cause of a pair's drift: QA acts on causes.
public enum DriftCause: String, Codable, Sendable, CaseIterable {
    /// Within the tolerance.
    case inSync = "in-sync"
    /// A recorder's crystal running fast or slow: tens to a few hundred ppm.
    case clockDrift = "clock-drift"
    /// NTSC pull-down: the recording is 1000/1001 of the reference.
    case pullDown = "ntsc-pull-down"
    /// NTSC pull-up: the recording is 1001/1000 of the reference.
    case pullUp = "ntsc-pull-up"
    /// Audio at one common rate labelled as another (44.1 kHz tagged 48 kHz, ...).
    case rateMislabel = "rate-mislabel"
    /// By the sound: a rate no clock runs at and no known ratio explains.
    case unexplained
    /// By the sound: the recorder's clock rate moved during the take (warming, a heater cycling).
    case clockWander = "clock-wander"
    /// By the sound: the recorder's clock rate stepped during the take (re-disciplined: GPS, a timecode re-jam).
    case clockStep = "clock-step"
    /// By the lengths alone: they differ by more than a clock drifts (`DriftPolicy.clockDriftLimitPPM`) and by no known
    /// ratio. Started or stopped apart, a wrong pairing, a truncated file, dropped buffers: the lengths cannot tell.
    case lengthsDiffer = "lengths-differ"
    /// By the sound: the device lost buffers (the sound jumps; its pitch is right).
    case dropouts
    /// By the sound, its clock right: the recording started after its reference (a late press of record).
    case lateStart = "late-start"
    /// By the sound, its clock right: the recording started before its reference.
    case earlyStart = "early-start"
    /// By the sound, its clock and start right: the recording stopped before its reference (in sync, shorter).
    case earlyStop = "early-stop"
    /// By the sound, its clock and start right: the recording ran on after its reference (in sync, longer).
    case lateStop = "late-stop"

    /// Whether a row of this cause carries a clock figure a device's history may use: a crystal's error, however the
    /// take was started or stopped. Recognised ratios (pull-down, a mislabelled rate) are settings, not clocks, and
    /// lengths no clock explains are no clock figure at all.
    public var isClock: Bool {
        switch self {
        case .inSync, .clockDrift, .clockWander, .clockStep, .dropouts, .lateStart, .earlyStart, .earlyStop,
            .lateStop:
            true
        case .pullDown, .pullUp, .rateMislabel, .unexplained, .lengthsDiffer: false
        }
    }
}

/// What to do with a pair.
public enum PlanAction: String, Codable, Sendable, CaseIterable {
    case skip, resample, stretch, refuse
    /// By the sound: move the start and re-insert lost buffers, with no change of rate (a clock that runs right).
    case align

    /// Whether the pair is repaired.
    public var repairs: Bool { self == .resample || self == .stretch || self == .align }

    /// The action a plan's operations amount to: the rate change they hold (a warp resamples), else `align` for
    /// edits alone, else `skip`.
    public init(operations: [RepairOperation]) {
        if operations.contains(where: { if case .stretch = $0 { true } else { false } }) {
            self = .stretch
        } else if operations.contains(where: {
            switch $0 {
            case .resample, .warp: true
            default: false
            }
        }) {
            self = .resample
        } else {
            self = operations.isEmpty ? .skip : .align
        }
    }
}

/// A perceptibility limit the drift at the end of the file crosses.
public enum SyncFlag: String, Codable, Sendable, CaseIterable {
    /// ITU-R BT.1359 detectability: sound more than 45 ms early or 125 ms late.
    case ituBT1359 = "itu-r-bt1359"
    /// EBU R37: sound more than 40 ms early or 60 ms late.
    case ebuR37 = "ebu-r37"
}

/// Thresholds for measuring and planning.
public struct DriftPolicy: Sendable, Equatable {
    /// |drift| at or below this is in sync: skipped.
    public var tolerance: Rational = Rational(1, 1000)
    /// |ratio − 1| beyond this, unexplained, is refused as a probable wrong pairing or truncated file.
    public var refuseLimit: Rational = Rational(5, 100)
    /// The largest length difference still called crystal clock drift, in ppm. A crystal's tolerance, temperature
    /// and ageing together stay within ±100 ppm in the recorders and cameras measured (the fleets' worst so far is
    /// −131 ppm); three times that leaves room for a poor one. Beyond it, and matching no known ratio, two lengths
    /// are no clock figure: a recording started or stopped apart from its reference differs by the whole gap (300 ms
    /// in a 2-minute take is 2,500 ppm).
    public var clockDriftLimitPPM: Double = 300
    /// How close (ppm) a ratio must be to a known pull-down or rate ratio to be named after it.
    public var recognitionWindowPPM: Double = 100

    public init() {}
}

/// A pair's drift, its likely cause and the plan, all exact where it matters.
public struct DriftAnalysis: Sendable, Equatable {
    /// Recording duration (frames / rate).
    public let recordingSeconds: Rational
    public let referenceSeconds: Rational
    /// Recording minus reference.
    public let driftSeconds: Rational
    /// (recording / reference − 1) × 10⁶.
    public let driftPPM: Double
    /// Positive: at the end the sound comes late (lags the picture); negative: early (leads).
    package var endOffsetMilliseconds: Double { driftSeconds.doubleValue * 1000 }
    public let flags: [SyncFlag]
    public let cause: DriftCause
    /// Human words for the cause ("44100 Hz audio labelled 48000 Hz", "recorder clock 131 ppm slow").
    public let causeDetail: String
    public let action: PlanAction
    /// The method and why, when the action repairs.
    public let method: MethodChoice?
    /// Frames the repaired recording must have: round(reference seconds × rate).
    public let targetFrames: Int64
    /// Why a pair is refused, or nil.
    public let refusal: String?

    /// Measures a pair and plans its repair; `recordingPath` picks the repair rule that applies.
    public init(
        recordingFrames: Int64, sampleRate: Int, referenceSeconds: Rational, recordingPath: FilePath,
        drift policy: DriftPolicy = DriftPolicy(), repair: RepairPolicy = RepairPolicy()
    ) {
        self.init(
            recordingFrames: recordingFrames, sampleRate: sampleRate, referenceSeconds: referenceSeconds,
            recordingPath: recordingPath.pathText, drift: policy, repair: repair)
    }

    /// The same, for a recording named by its `PathText` (how the scan carries it).
    package init(
        recordingFrames: Int64, sampleRate: Int, referenceSeconds: Rational, recordingPath: String,
        drift policy: DriftPolicy = DriftPolicy(), repair: RepairPolicy = RepairPolicy()
    ) {
        precondition(recordingFrames > 0 && sampleRate > 0 && referenceSeconds.numerator > 0)
        let recording = Rational(recordingFrames, Int64(sampleRate))
        recordingSeconds = recording
        self.referenceSeconds = referenceSeconds
        let drift = Rational.difference(recording, referenceSeconds)
        driftSeconds = drift
        let ratio = recording.doubleValue / referenceSeconds.doubleValue
        driftPPM = (ratio - 1) * 1e6
        targetFrames = referenceSeconds.multipliedRounded(by: Int64(sampleRate)) ?? 0

        let offset = drift.doubleValue * 1000
        var flags: [SyncFlag] = []
        if offset < -45 || offset > 125 { flags.append(.ituBT1359) }
        if offset < -40 || offset > 60 { flags.append(.ebuR37) }

        let (cause, detail) = DriftAnalysis.classify(ratio: ratio, sampleRate: sampleRate, drift: drift, policy: policy)
        self.cause = cause
        causeDetail = detail
        // Within the tolerance the ends differ by how streams can end (a codec frame, a picture), not by drift.
        self.flags = cause == .inSync ? [] : flags

        let limit = referenceSeconds.multipliedExactly(by: policy.refuseLimit) ?? referenceSeconds
        let beyondLimit = limit < Rational.magnitude(drift)
        if cause == .inSync {
            action = .skip
            method = nil
            refusal = nil
        } else if cause == .lengthsDiffer && beyondLimit {
            action = .refuse
            method = nil
            let percent = String(format2: abs(ratio - 1) * 100)
            let limit = (policy.refuseLimit.multipliedExactly(by: Rational(100, 1)) ?? policy.refuseLimit)
                .decimalString(maxFractionDigits: 4)
            refusal =
                "lengths differ by \(percent)%, beyond the \(limit)% limit: probably a wrong pairing or a truncated file"
        } else if targetFrames <= 0 {
            action = .refuse
            method = nil
            refusal = "target length rounds to 0 frames"
        } else {
            // Pull-down and mislabels shift the pitch with the length: always resample. Rules choose the method only
            // for drift the recorder itself may have caused.
            var choice = repair.method(forPathText: recordingPath)
            if cause == .pullDown || cause == .pullUp || cause == .rateMislabel {
                choice = MethodChoice(method: .resample, reason: "\(cause.rawValue) shifts the pitch")
            } else if choice.method == .stretch && !(0.5...2.0).contains(1 / ratio) {
                choice = MethodChoice(method: .resample, reason: "stretch limited to 0.5x...2x")
            }
            action = choice.method == .stretch ? .stretch : .resample
            method = choice
            refusal = nil
        }
    }

    /// Names the cause from the length ratio recording / reference.
    static func classify(ratio: Double, sampleRate: Int, drift: Rational, policy: DriftPolicy) -> (DriftCause, String) {
        if !(policy.tolerance < Rational.magnitude(drift)) {
            return (.inSync, "within \(policy.tolerance.decimalString()) s")
        }
        let ppm = (ratio - 1) * 1e6
        let window = policy.recognitionWindowPPM
        func near(_ target: Double) -> Bool { abs(ratio / target - 1) * 1e6 <= window }
        if near(1000.0 / 1001.0) { return (.pullDown, "NTSC pull-down: 1000/1001 of the reference") }
        if near(1001.0 / 1000.0) { return (.pullUp, "NTSC pull-up: 1001/1000 of the reference") }
        if abs(ppm) <= policy.clockDriftLimitPPM {
            let speed = ppm < 0 ? "slow" : "fast"
            return (.clockDrift, "recorder clock \(String(format2: abs(ppm))) ppm \(speed)")
        }
        if let mislabel = mislabel(ratio: ratio, sampleRate: sampleRate, policy: policy) { return mislabel }
        let gap = String(format1: abs(drift.doubleValue) * 1000)
        return (
            .lengthsDiffer,
            "lengths differ by \(gap) ms (\(String(format1: ppm)) ppm), more than a clock drifts: started or stopped apart?"
        )
    }

    /// Audio sampled at one common rate but labelled another lasts actual/labelled of its true duration.
    static func mislabel(ratio: Double, sampleRate: Int, policy: DriftPolicy) -> (DriftCause, String)? {
        for actual in DriftAnalysis.commonRates {
            for labelled in DriftAnalysis.commonRates where labelled != actual && labelled == sampleRate {
                if abs(ratio / (Double(actual) / Double(labelled)) - 1) * 1e6 <= policy.recognitionWindowPPM {
                    return (.rateMislabel, "\(actual) Hz audio labelled \(labelled) Hz")
                }
            }
        }
        return nil
    }

    /// Sample rates recorders and editors commonly use (including NTSC-adjusted 47.952 and 48.048 kHz).
    public static let commonRates = [
        8000, 11_025, 16_000, 22_050, 24_000, 32_000, 44_100, 47_952, 48_000, 48_048, 88_200, 96_000, 176_400, 192_000,
    ]
}

extension Rational {
    /// a − b, exact (saturating to a coarser value only on overflow, which durations never reach).
    public static func difference(_ a: Rational, _ b: Rational) -> Rational {
        let top = Int128(a.numerator) * Int128(b.denominator) - Int128(b.numerator) * Int128(a.denominator)
        let bottom = Int128(a.denominator) * Int128(b.denominator)
        return Rational.reduced(top, bottom) ?? Rational(Int64(Double(top) / Double(bottom) * 1e9), 1_000_000_000)
    }

    /// a + b, exact (as `difference`).
    public static func sum(_ a: Rational, _ b: Rational) -> Rational {
        difference(a, Rational(-b.numerator, b.denominator))
    }

    /// |a|.
    public static func magnitude(_ a: Rational) -> Rational { Rational(abs(a.numerator), a.denominator) }
}
