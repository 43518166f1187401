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
        /// Drift in ppm: a file's own; for a device, the median of its recordings in that run.
        public var ppm: [Double?]
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

        public init(
            name: String, ppm: [Double?], files: [Int], spreadPPM: [Double?]? = nil, worstPPM: [Double?]? = nil,
            wandering: [Int]? = nil, wanderPPM: [Double?]? = nil, rule: AlertRule
        ) {
            self.name = name
            self.ppm = ppm
            self.files = files
            self.spreadPPM = spreadPPM
            self.worstPPM = worstPPM
            self.wandering = wandering
            self.wanderPPM = wanderPPM
            alert = rule.alert(ppm: ppm, spread: spreadPPM, counts: files)
            if let count = wandering?.last, count > 0, let files = files.last {
                let span = (wanderPPM?.last ?? nil).map { " (up to \(String(format1: $0)) ppm within a take)" } ?? ""
                let wanders =
                    "clock wanders: \(count) of \(files) recording\(files == 1 ? "" : "s") in the latest run\(span)"
                alert = alert.map { $0 + "; " + wanders } ?? wanders
            }
        }
    }

    public var runs: [Run]
    /// The alert thresholds used, ppm.
    public var alertPPM: Double
    public var alertSpreadPPM: Double
    /// Devices, alerting first, then by their latest drift's size (largest first).
    public var devices: [Series]
    /// How many devices there were before `--limit` or a device filter left some out.
    public var devicesTotal: Int
    public var files: [Series]

    public init(runs: [Run], rule: AlertRule, devices: [Series], devicesTotal: Int? = nil, files: [Series]) {
        self.runs = runs
        alertPPM = rule.driftPPM
        alertSpreadPPM = rule.spreadPPM
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
public struct AlertRule: Sendable, Equatable {
    public var driftPPM: Double
    public var spreadPPM: Double
    /// A spread is judged only from runs with at least this many recordings of the device.
    public static let spreadMinimumRecordings = 4

    public init(driftPPM: Double, spreadPPM: Double) {
        self.driftPPM = driftPPM
        self.spreadPPM = spreadPPM
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
