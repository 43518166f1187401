/// How a recording's length is repaired.
public enum RepairMethod: String, CaseIterable, Sendable, Codable {
    /// Band-limited resampling (varispeed): restores length and pitch together. The repair for clock faults.
    case resample
    /// Pitch-preserving time-stretch (WSOLA): for audio at the right pitch but the wrong length (dropped or
    /// repeated buffers) and for deliberate tempo changes.
    case stretch
}

/// The method chosen for one recording, and why, as `process` and the reports print it.
public struct MethodChoice: Sendable, Equatable, CustomStringConvertible {
    public var method: RepairMethod
    /// "default", "--method", "--tempo", or the config rule that matched.
    public var reason: String

    public init(method: RepairMethod, reason: String) {
        self.method = method
        self.reason = reason
    }

    public var description: String { "\(method.rawValue) (\(reason))" }
}

/// A configured exception to the default method: "recordings under this path come from a recorder that drops
/// samples; stretch them".
public struct MethodRule: Sendable, Equatable {
    public var pattern: GlobPattern
    public var method: RepairMethod
    public var reason: String?

    public init(pattern: GlobPattern, method: RepairMethod, reason: String? = nil) {
        self.pattern = pattern
        self.method = method
        self.reason = reason
    }
}

/// Which method repairs which recording: a default and an ordered list of rules (first match wins).
public struct RepairPolicy: Sendable, Equatable {
    public var defaultMethod: RepairMethod
    public var quality: ResampleQuality
    public var rules: [MethodRule]

    public init(defaultMethod: RepairMethod = .resample, quality: ResampleQuality = .default, rules: [MethodRule] = []) {
        self.defaultMethod = defaultMethod
        self.quality = quality
        self.rules = rules
    }

    /// The method for the recording at `path`.
    public func method(for path: String) -> MethodChoice {
        for rule in rules where rule.pattern.matches(path) {
            let why = rule.reason.map { ": \($0)" } ?? ""
            return MethodChoice(method: rule.method, reason: "config rule \"\(rule.pattern.text)\"\(why)")
        }
        return MethodChoice(method: defaultMethod, reason: defaultMethod == .resample ? "default" : "config default")
    }
}
