import DriftCore

/// Drift measured over the journal's recent runs, for QA: per folder (a folder is usually one recorder) and per
/// file, one value per run, with an alert when the newest value moved away from the earlier ones.
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

    /// A folder's or a file's drift in each run (aligned with `runs`; null when it was not measured in that run).
    public struct Series: Codable, Sendable, Equatable {
        public var name: String
        /// Drift in ppm: a file's own; for a folder, the median of its files in that run.
        public var ppm: [Double?]
        /// Files measured in each run (folders only; 1 or 0 for a file).
        public var files: [Int]
        /// Why this series is flagged ("started drifting: ..."); null when it is steady.
        public var alert: String?

        public init(name: String, ppm: [Double?], files: [Int], alertPPM: Double) {
            self.name = name
            self.ppm = ppm
            self.files = files
            alert = DriftTrend.alert(ppm, thresholdPPM: alertPPM)
        }
    }

    public var runs: [Run]
    /// The alert threshold used, ppm.
    public var alertPPM: Double
    public var folders: [Series]
    public var files: [Series]

    public init(runs: [Run], alertPPM: Double, folders: [Series], files: [Series]) {
        self.runs = runs
        self.alertPPM = alertPPM
        self.folders = folders
        self.files = files
    }

    /// Folders with an alert.
    public var alerts: [Series] { (folders + files).filter { $0.alert != nil } }
}

/// The rule that flags a recorder that started drifting.
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

    /// The median (mean of the middle two for an even count) of a non-empty list.
    public static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "median of nothing")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func signed(_ value: Double) -> String {
        (value >= 0 ? "+" : "-") + String(format1: abs(value))
    }
}
