import DriftCore

/// Drift measured over the journal's recent runs, for QA: per device (the recorder a file came from) and per file,
/// one value per run, with an alert when a device's drift moved away from its own past or its recordings started to
/// disagree with each other.
public struct DriftHistory: Codable, Sendable, Equatable {
    /// One run, oldest first.
    public struct Run: Codable, Sendable, Equatable {
        public var id: Int64
        /// ISO 8601, UTC.
        public var started: String
        public var status: String

        public init(id: Int64, started: String, status: String) {
            self.id = id
            self.started = started
            self.status = status
        }
    }

    /// A device's or a file's drift in each run (aligned with `runs`; null where it was not measured in that run).
    public struct Series: Codable, Sendable, Equatable {
        public var name: String
        /// The clock's error in ppm: a file's own; for a device, the median of its recordings' in that run. Clock
        /// figures only: by the sound, or by lengths a clock explains (never lengths that differ by more).
        public var ppm: [Double?]
        /// Which measurement each run's figure came from: `content` (every recording by its sound), `headers` (by its
        /// lengths), `mixed`; null where there was none.
        public var measuredBy: [String?]?
        /// The sync at the recordings' first frames in each run, ms (a device's median; negative: the sound leads, the
        /// recorder started late): by the sound only, and apart from the clock, for an operator's habit is no clock
        /// fault. Null where no recording's sound was measured.
        package var startOffsetMs: [Double?]?
        /// An alerting device's recordings in each run, each its clock error (ppm): the points its chart draws.
        public var recordings: [[Double]]?
        /// Recordings measured in each run (1 or 0 for a file).
        public var files: [Int]
        /// Devices: the spread between its recordings in each run (interquartile range, ppm).
        public var spreadPPM: [Double?]?
        /// Devices: the recording furthest from zero in each run (ppm, signed).
        public var worstPPM: [Double?]?
        /// Devices: recordings in each run whose clock wandered or stepped during the take (by their sound), and the
        /// widest span of drift within one of them (ppm; null where none).
        public var wandering: [Int]?
        public var wanderPPM: [Double?]?
        /// Why this series is flagged ("started drifting: ...", "erratic: ...", "clock wanders: ..."); null when it
        /// is steady.
        public var alert: String?

        package init(
            name: String, ppm: [Double?], files: [Int], spreadPPM: [Double?]? = nil, worstPPM: [Double?]? = nil,
            wandering: [Int]? = nil, wanderPPM: [Double?]? = nil, measuredBy: [String?]? = nil,
            startOffsetMs: [Double?]? = nil, rule: AlertRule
        ) {
            self.name = name
            self.ppm = ppm
            self.files = files
            self.spreadPPM = spreadPPM
            self.worstPPM = worstPPM
            self.wandering = wandering
            self.wanderPPM = wanderPPM
            self.measuredBy = measuredBy
            self.startOffsetMs = startOffsetMs
            alert = rule.alert(ppm: ppm, spread: spreadPPM, counts: files)
            if let starts = startOffsetMs, let late = rule.startAlert(starts) {
                alert = alert.map { $0 + "; " + late } ?? late
            }
            if let wanders = rule.wanderAlert(wandering: wandering ?? [], spans: wanderPPM ?? [], files: files) {
                alert = alert.map { $0 + "; " + wanders } ?? wanders
            }
        }
    }

    public var runs: [Run]
    /// The alert thresholds used, ppm.
    public var alertPPM: Double
    public var alertSpreadPPM: Double
    /// The start alert's threshold, ms; null when it is off (the default).
    package var alertStartMs: Double?
    /// Devices, alerting first, then by their latest drift's size (largest first).
    public var devices: [Series]
    /// How many devices there were before `--limit` or a device filter left some out.
    public var devicesTotal: Int
    public var files: [Series]

    package init(runs: [Run], rule: AlertRule, devices: [Series], devicesTotal: Int? = nil, files: [Series]) {
        self.runs = runs
        alertPPM = rule.driftPPM
        alertSpreadPPM = rule.spreadPPM
        alertStartMs = rule.startMs
        self.devices = devices.sorted(by: Self.worstFirst)
        self.devicesTotal = devicesTotal ?? devices.count
        self.files = files.sorted(by: Self.worstFirst)
    }

    /// Devices and files with an alert.
    public var alerts: [Series] { (devices + files).filter { $0.alert != nil } }

    /// Alerting first, then the largest latest drift, then by name.
    public static func worstFirst(_ a: Series, _ b: Series) -> Bool {
        if (a.alert != nil) != (b.alert != nil) { return a.alert != nil }
        let x = abs(a.ppm.last.flatMap { $0 } ?? 0)
        let y = abs(b.ppm.last.flatMap { $0 } ?? 0)
        if x != y { return x > y }
        return a.name < b.name
    }
}

/// When a device or a file alerts: its drift in the latest run moved more than `driftPPM` from the median of its own
/// earlier runs (a recorder that started drifting), or, for a device, the spread between its recordings grew by more
/// than `spreadPPM` over its earlier runs' (a failing clock is often erratic before it is off).
///
/// Both come from clock figures alone. A device whose recordings start late or early (by their sound) may alert too,
/// when `startMs` is set: an operator's habit, not a clock fault, so it is off by default.
public struct AlertRule: Sendable, Equatable {
    public var driftPPM: Double
    public var spreadPPM: Double
    /// A device alerts when the median sync at its recordings' first frames in the latest run is further than this
    /// from zero, ms; nil: never (the default).
    package var startMs: Double?
    /// A spread is judged only from runs with at least this many recordings of the device.
    public static let spreadMinimumRecordings = 4

    package init(driftPPM: Double, spreadPPM: Double, startMs: Double?) {
        self.driftPPM = driftPPM
        self.spreadPPM = spreadPPM
        self.startMs = startMs
    }

    /// Flags a device whose clocks began to wander within their takes: some recordings of the latest run wandered
    /// or stepped (by their sound), where none of its earlier runs' did, or the widest span within a take grew by
    /// more than `driftPPM` over its earlier runs' (median). A recorder that warms up in every take, night after
    /// night, is its character, not news: its takes are repaired along their clocks, and the rows say so.
    public func wanderAlert(wandering: [Int], spans: [Double?], files: [Int]) -> String? {
        guard let count = wandering.last, count > 0, let total = files.last else { return nil }
        let earlier = wandering.indices.dropLast().filter { $0 < files.count && files[$0] > 0 }
        guard !earlier.isEmpty else { return nil }
        let span = spans.last ?? nil
        let earlierSpans = earlier.map { wandering[$0] > 0 ? ($0 < spans.count ? spans[$0] : nil) ?? 0 : 0 }
        let wanderedBefore = earlier.contains { wandering[$0] > 0 }
        let grew = (span ?? 0) - DriftTrend.median(earlierSpans) > driftPPM
        guard !wanderedBefore || grew else { return nil }
        let within = span.map { " (up to \(String(format1: $0)) ppm within a take)" } ?? ""
        return "clock wanders: \(count) of \(total) recording\(total == 1 ? "" : "s") in the latest run\(within)"
    }

    /// "starts late: the sound leads by 812.0 ms at the first frame (median of the latest run)"; nil when off or
    /// within the limit.
    package func startAlert(_ starts: [Double?]) -> String? {
        guard let startMs, let latest = starts.last ?? nil, abs(latest) > startMs else { return nil }
        let ms = String(format1: abs(latest))
        return latest < 0
            ? "starts late: its sound leads by \(ms) ms at the first frame (median of the latest run)"
            : "starts early: its sound lags by \(ms) ms at the first frame (median of the latest run)"
    }

    public func alert(ppm: [Double?], spread: [Double?]?, counts: [Int]) -> String? {
        var reasons: [String] = []
        if let moved = DriftTrend.alert(ppm, thresholdPPM: driftPPM) { reasons.append(moved) }
        if let spread, let grew = DriftTrend.spreadAlert(spread, counts: counts, thresholdPPM: spreadPPM) {
            reasons.append(grew)
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}

/// The rules that flag a recorder that started drifting, or turned erratic.
public enum DriftTrend {
    /// Flags the series when its newest value differs from the median of the earlier values by more than
    /// `thresholdPPM`. A median baseline ignores one odd night; comparing with the recorder's own past (not with
    /// zero) leaves alone a recorder whose steady drift is already being repaired every night.
    public static func alert(_ values: [Double?], thresholdPPM: Double) -> String? {
        guard let latest = values.last ?? nil else { return nil }
        let earlier = values.dropLast().compactMap { $0 }
        guard !earlier.isEmpty else { return nil }
        let baseline = median(earlier)
        guard abs(latest - baseline) > thresholdPPM else { return nil }
        return "started drifting: \(signed(latest)) ppm in the latest run, \(signed(baseline)) ppm before "
            + "(median of \(earlier.count) run\(earlier.count == 1 ? "" : "s"))"
    }

    /// Flags a device whose spread between recordings in the newest run exceeds the median of its earlier spreads by
    /// more than `thresholdPPM`, counting only runs with enough recordings to have a spread.
    public static func spreadAlert(_ spreads: [Double?], counts: [Int], thresholdPPM: Double) -> String? {
        let usable = zip(spreads, counts).map { $1 >= AlertRule.spreadMinimumRecordings ? $0 : nil }
        guard let latest = usable.last ?? nil else { return nil }
        let earlier = usable.dropLast().compactMap { $0 }
        guard !earlier.isEmpty else { return nil }
        let baseline = median(earlier)
        guard latest - baseline > thresholdPPM else { return nil }
        return "erratic: its recordings spread over \(String(format1: latest)) ppm in the latest run, "
            + "\(String(format1: baseline)) ppm before (interquartile range)"
    }

    /// The median (mean of the middle two for an even count) of a non-empty list.
    public static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "median of nothing")
        return DriftStatistics(values).median
    }

    static func signed(_ value: Double) -> String {
        (value >= 0 ? "+" : "-") + String(format1: abs(value))
    }
}

/// Median, quartiles and the value furthest from zero of a list of drifts, computed once from the sorted values.
public struct DriftStatistics: Sendable, Equatable {
    public var count: Int
    public var median: Double
    /// First and third quartiles (linear interpolation between order statistics, as numpy's default).
    public var lowerQuartile: Double
    public var upperQuartile: Double
    /// The value with the largest magnitude (signed).
    public var worst: Double

    /// - Precondition: `values` is not empty.
    public init(_ values: [Double]) {
        precondition(!values.isEmpty, "statistics of nothing")
        let sorted = values.sorted()
        func quantile(_ q: Double) -> Double {
            let position = q * Double(sorted.count - 1)
            let low = Int(position.rounded(.down))
            let high = min(low + 1, sorted.count - 1)
            return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
        }
        count = sorted.count
        median = quantile(0.5)
        lowerQuartile = quantile(0.25)
        upperQuartile = quantile(0.75)
        worst = abs(sorted[0]) > abs(sorted[sorted.count - 1]) ? sorted[0] : sorted[sorted.count - 1]
    }

    /// The interquartile range: how far the middle half of the recordings disagree.
    public var spread: Double { upperQuartile - lowerQuartile }
}
