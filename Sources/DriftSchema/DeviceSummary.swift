import DriftCore

/// One device (recorder) of the fleet in one report: what QA reads first.
public struct DeviceSummary: Codable, Sendable, Equatable {
    public var device: String
    /// Pairs whose recording came from this device.
    public var recordings: Int
    /// Recordings with a clock figure (measured by their sound, or lengths a clock explains): the drift statistics
    /// are theirs.
    public var measured: Int
    /// Of those, how many their sound measured (the rest, their lengths).
    public var measuredBySound: Int
    /// Seconds of recorded audio.
    package var audioSeconds: Double
    /// The median clock error of its recordings (ppm); null when none was measured.
    public var medianPPM: Double?
    /// The recording furthest from zero (ppm, signed).
    public var worstPPM: Double?
    /// How much its recordings disagree: the interquartile range of their drifts (ppm).
    public var spreadPPM: Double?
    /// The median sync at its recordings' first frames (ms; negative: the sound leads, the recorder started late),
    /// where their sound was measured: an operator's habit, not the clock's.
    package var medianStartOffsetMs: Double?
    /// Recordings whose sync is past a lip-sync limit somewhere (ITU-R BT.1359 or EBU R37).
    public var pastLimit: Int
    /// Pairs refused or unreadable (a wrong pairing, a broken file, ...).
    public var refused: Int
    /// Pairs whose repair failed or did not finish.
    public var failed: Int
    /// The device's median drift in each of the journal's recent runs, oldest first, this run last (null where it
    /// was not measured); empty without a journal (`scan`).
    public var trend: [Double?]
    /// The history's alert for this device ("started drifting: ...", "erratic: ..."); null when it is steady.
    public var alert: String?

    package init(
        device: String, recordings: Int, measured: Int, measuredBySound: Int = 0, audioSeconds: Double,
        medianPPM: Double?, worstPPM: Double?, spreadPPM: Double?, medianStartOffsetMs: Double? = nil, pastLimit: Int,
        refused: Int, failed: Int, trend: [Double?], alert: String?
    ) {
        self.device = device
        self.recordings = recordings
        self.measured = measured
        self.measuredBySound = measuredBySound
        self.medianStartOffsetMs = medianStartOffsetMs
        self.audioSeconds = audioSeconds
        self.medianPPM = medianPPM
        self.worstPPM = worstPPM
        self.spreadPPM = spreadPPM
        self.pastLimit = pastLimit
        self.refused = refused
        self.failed = failed
        self.trend = trend
        self.alert = alert
    }

    /// Whether QA should look at it: an alert, a pair past a limit, refused or failed.
    public var hasProblems: Bool { alert != nil || pastLimit > 0 || refused > 0 || failed > 0 }
}

extension PairReport {
    /// Whether the row's drift is a clock figure a device's statistics and history use: a clock's error, by its
    /// sound or by lengths a clock explains; never lengths no clock explains, nor a known ratio (a setting).
    public var isClockFigure: Bool { driftPPM != nil && cause?.isClock == true }
}

extension ScanReport {
    /// Every device of the report, worst first: alerting devices, then those with problems, then by the size of their
    /// median drift; the history (when the report has one) gives each its trend and alert.
    public func deviceSummaries() -> [DeviceSummary] {
        // Indices, not copies of the rows: a fleet's report is large.
        var groups: [String: [Int]] = [:]
        for (index, pair) in pairs.enumerated() { groups[pair.device, default: []].append(index) }
        var series: [String: DriftHistory.Series] = [:]
        for item in history?.devices ?? [] { series[item.name] = item }
        let summaries = groups.map { device, indices -> DeviceSummary in
            let rows = indices.lazy.map { pairs[$0] }
            let clocks = Array(rows.filter(\.isClockFigure))
            let drifts = clocks.compactMap(\.driftPPM)
            let statistics = drifts.isEmpty ? nil : DriftStatistics(drifts)
            let starts = clocks.compactMap(\.startOffsetMs)
            return DeviceSummary(
                device: device, recordings: rows.count, measured: drifts.count,
                measuredBySound: clocks.filter { $0.measuredBy == .content }.count,
                audioSeconds: rows.compactMap(\.recordingSeconds).reduce(0, +),
                medianPPM: statistics?.median, worstPPM: statistics?.worst, spreadPPM: statistics?.spread,
                medianStartOffsetMs: starts.isEmpty ? nil : DriftStatistics(starts).median,
                pastLimit: rows.filter { !$0.flags.isEmpty }.count,
                refused: rows.filter { $0.outcome == .refused || ($0.outcome == nil && $0.action == .refuse) }.count,
                failed: rows.filter { $0.outcome == .failed || $0.outcome == .unfinished }.count,
                trend: series[device]?.ppm ?? [], alert: series[device]?.alert)
        }
        return summaries.sorted(by: Self.worstDeviceFirst)
    }

    static func worstDeviceFirst(_ a: DeviceSummary, _ b: DeviceSummary) -> Bool {
        if (a.alert != nil) != (b.alert != nil) { return a.alert != nil }
        if a.hasProblems != b.hasProblems { return a.hasProblems }
        let x = abs(a.medianPPM ?? 0)
        let y = abs(b.medianPPM ?? 0)
        if x != y { return x > y }
        return a.device < b.device
    }
}
