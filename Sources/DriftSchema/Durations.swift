import DriftCore

// The report's times as spans (`DriftCore/Durations.swift` says why the rows keep them as their JSON numbers).

extension PairReport {
    /// The recording's length (frames / rate); nil for a pair that could not be measured.
    public var recordingLength: Duration? { Duration(seconds: recordingSeconds) }
    /// The reference's stated length.
    public var referenceLength: Duration? { Duration(seconds: referenceSeconds) }
    /// What the clock lost (negative) or gained over the take, from the measurement `measuredBy` names.
    public var drift: Duration? { Duration(seconds: driftSeconds) }
    /// The sync at the recording's first frame: positive, the sound lags the picture; negative, it leads.
    public var startOffset: Duration? { Duration(milliseconds: startOffsetMs) }
    /// The sync at the recording's last frame.
    public var endOffset: Duration? { Duration(milliseconds: endOffsetMs) }
    /// The sync at its worst moment, and when (`worstAt`, recording time).
    public var worstOffset: Duration? { Duration(milliseconds: worstOffsetMs) }
    public var worstAt: Duration? { Duration(seconds: worstAtSeconds) }
    /// Recording minus reference by their lengths, exact to the frame before it became a report's number.
    public var lengthDifference: Duration? { Duration(seconds: lengthDifferenceSeconds) }
    /// What the accepted attempt took on its worker.
    public var processingTime: Duration? { Duration(seconds: processingSeconds) }
    /// For a pair found by sound: recording time of the reference's first and last moments.
    public var recordingStart: Duration? { Duration(seconds: recordingStartSeconds) }
    public var recordingEnd: Duration? { Duration(seconds: recordingEndSeconds) }
}

extension PairLengths {
    public var recordingLength: Duration { .seconds(recordingSeconds) }
    public var referenceLength: Duration { .seconds(referenceSeconds) }
    /// Recording minus reference.
    public var difference: Duration { .seconds(differenceSeconds) }
}

extension ScanSummary {
    /// Recorded audio in the report's pairs.
    public var totalAudio: Duration { .seconds(totalAudioSeconds) }
}

extension SoundCandidate {
    /// Recording time of the reference's first moment, to 10 ms (negative: the recording started after it).
    public var start: Duration { .seconds(startSeconds) }
}

extension ClipTask {
    /// The clip's sound (from its print).
    public var clipLength: Duration { .seconds(clipSeconds) }
    /// The lag a written clip may keep against the clip.
    public var residualLimit: Duration { .milliseconds(residualLimitMs) }
}

extension ClipTask.Place {
    /// Where the timecodes put the clip in this recording; nil where either carries none.
    public var timecodeStart: Duration? { Duration(seconds: timecodeStartSeconds) }
}

extension SoundPairingReport.Match {
    /// Recording time of the clip's first and last moments (before 0 or past the recording's end where it started
    /// late or stopped early).
    public var recordingStart: Duration? { Duration(seconds: recordingStartSeconds) }
    public var recordingEnd: Duration? { Duration(seconds: recordingEndSeconds) }
    /// Where the files' start timecodes put the clip, recording time; nil where either carries none.
    public var timecodeStart: Duration? { Duration(seconds: timecodeStartSeconds) }
}

extension DeviceSummary {
    /// Recorded audio from this device.
    public var recordedAudio: Duration { .seconds(audioSeconds) }
    /// The median sync at its recordings' first frames, where their sound was measured (negative: the sound leads).
    public var medianStartOffset: Duration? { Duration(milliseconds: medianStartOffsetMs) }
}

extension DriftHistory {
    /// The start alert's threshold; nil when it is off (the default).
    public var alertStart: Duration? { Duration(milliseconds: alertStartMs) }
}

extension DriftHistory.Series {
    /// The sync at the recordings' first frames in each run (a device's median), by the sound only; nil where no
    /// recording's sound was measured.
    public var startOffsets: [Duration?]? { startOffsetMs?.map { Duration(milliseconds: $0) } }
}

extension AlertRule {
    /// Alerts past these drifts (ppm), and, where `start` is given, a device whose recordings' median sync at their
    /// first frames is further than it from zero.
    public init(driftPPM: Double, spreadPPM: Double, start: Duration? = nil) {
        self.init(driftPPM: driftPPM, spreadPPM: spreadPPM, startMs: start?.inMilliseconds)
    }

    /// The start alert's threshold; nil: never (the default).
    public var start: Duration? {
        get { Duration(milliseconds: startMs) }
        set { startMs = newValue?.inMilliseconds }
    }
}

extension SoundPairingReport {
    /// About the shortest clip the measurement confirms: five windows of sound of about 0.77 s each.
    public static var shortestMeasurable: Duration { .seconds(shortestMeasurableSeconds) }
}
