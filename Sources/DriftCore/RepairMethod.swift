public import struct SystemPackage.FilePath

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
    /// Asked for on the command line (`--method`), not chosen by a rule: a refusal names the option.
    public var byOption: Bool

    public init(method: RepairMethod, reason: String, byOption: Bool = false) {
        self.method = method
        self.reason = reason
        self.byOption = byOption
    }

    public var description: String { "\(method.rawValue) (\(reason))" }
}

/// A configured exception to the default method: "recordings under this path come from a recorder that drops
/// samples; stretch them".
public struct MethodRule: Sendable, Equatable {
    public var pattern: GlobPattern
    /// The method for matching recordings; nil leaves the method to later rules or the default.
    public var method: RepairMethod?
    public var reason: String?
    /// The resampling engine for matching recordings; nil leaves it to later rules or the default.
    public var engine: EngineChoice?

    public init(pattern: GlobPattern, method: RepairMethod?, reason: String? = nil, engine: EngineChoice? = nil) {
        self.pattern = pattern
        self.method = method
        self.reason = reason
        self.engine = engine
    }
}

/// Which method repairs which recording: a default and an ordered list of rules (first match wins).
public struct RepairPolicy: Sendable, Equatable {
    public var defaultMethod: RepairMethod
    public var quality: ResampleQuality
    /// The resampling engine, unless a rule names another (`auto`: per quality, see `EngineChoice`).
    public var engine: EngineChoice
    public var rules: [MethodRule]
    /// Pairing by sound: a clip's synced audio goes into a copy of the clip in place of its own audio (video copied
    /// packet for packet), not into an audio file.
    public var mux = false

    public init(
        defaultMethod: RepairMethod = .resample, quality: ResampleQuality = .default,
        engine: EngineChoice = .default, rules: [MethodRule] = []
    ) {
        self.defaultMethod = defaultMethod
        self.quality = quality
        self.engine = engine
        self.rules = rules
    }

    /// The method for `recording`: the first rule whose pattern matches it that names one, else the default.
    public func method(for recording: FilePath) -> MethodChoice { method(forPathText: recording.pathText) }

    /// The method for the recording whose path `path` stands for (`PathText`).
    package func method(forPathText path: String) -> MethodChoice {
        for rule in rules where rule.pattern.matches(pathText: path) {
            guard let method = rule.method else { continue }
            let why = rule.reason.map { ": \($0)" } ?? ""
            return MethodChoice(method: method, reason: "config rule \"\(rule.pattern.text)\"\(why)")
        }
        return MethodChoice(method: defaultMethod, reason: defaultMethod == .resample ? "default" : "config default")
    }

    /// One engine for every recording (`--engine`): the rules' engines give way.
    public mutating func choose(_ choice: EngineChoice) {
        engine = choice
        for index in rules.indices { rules[index].engine = nil }
    }

    /// The resampling engine for `recording`: the first matching rule that names one, else `engine`.
    public func engine(for recording: FilePath) -> EngineChoice { engine(forPathText: recording.pathText) }

    /// The resampling engine for the recording whose path `path` stands for (`PathText`).
    package func engine(forPathText path: String) -> EngineChoice {
        rules.first { $0.engine != nil && $0.pattern.matches(pathText: path) }?.engine ?? engine
    }
}
