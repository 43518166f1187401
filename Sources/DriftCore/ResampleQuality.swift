/// The band-limited converter used for a resample repair, on either engine.
///
/// Measured here against an analytic ideal (tones up to 0.3 × the rate), libsamplerate: `best` 141 dB, `medium`
/// 125 dB, `fast` 100.5 dB; `medium` is about three times as fast as `best` and far beyond what 24-bit audio carries,
/// so it is the default. `fast` cuts the top 20% of the band, which real recordings do use. libsoxr's recipes for the
/// same names are at least as clean (see `SoxrResampler`).
public enum ResampleQuality: String, CaseIterable, Sendable, Codable {
    /// libsamplerate SINC_BEST_QUALITY: 97% bandwidth, highest stop-band rejection; libsoxr 28-bit, passband 0.99.
    case best
    /// libsamplerate SINC_MEDIUM_QUALITY: 90% bandwidth; libsoxr 28-bit, passband 0.97.
    case medium
    /// libsamplerate SINC_FASTEST: 80% bandwidth; libsoxr 20-bit, passband 0.90.
    case fast

    /// The default for repairs.
    public static let `default`: ResampleQuality = .medium
}

/// The library that resamples. Both keep every exactness rule (the ratio from the two frame counts, no leading delay,
/// the exact length, state across blocks); they differ in speed per core.
public enum ResampleEngine: String, CaseIterable, Sendable, Codable {
    /// libsamplerate's sinc converters: the project's reference for quality (the flattest passband at `best`).
    case libsamplerate
    /// libsoxr (what sox's `rate` effect is built on): the same measured quality at several times the speed per core.
    case soxr
    /// driftfix's own polyphase kernel for ratios near 1 (1/2 to 2): a table of Kaiser-windowed sinc phases with
    /// linear interpolation between them, vectorised; beyond those ratios libsoxr runs in its place.
    case polyphase

    /// The engine a job runs when none is named (the wire's and the journal's absent value).
    public static let `default`: ResampleEngine = .libsamplerate

    /// The ratios (output / input) the polyphase kernel takes.
    public static let polyphaseRatios: ClosedRange<Double> = 0.5...2.0

    /// The engine that actually converts at `ratio`: the polyphase kernel hands ratios beyond 1/2...2 to libsoxr.
    public func running(ratio: Double) -> ResampleEngine {
        self == .polyphase && !Self.polyphaseRatios.contains(ratio) ? .soxr : self
    }
}

/// The engine asked for: one of the three, or `auto`, the default, which takes per quality the one measured fastest
/// at equal or better quality against the ideal (docs/performance.md's engine table): the polyphase kernel at
/// `medium` and `best` (libsoxr beyond its ratios), libsoxr at `fast` (its 20-bit recipe is cleaner below 0.3 of the
/// rate than the 100 dB design: 132 against 113 dB).
public enum EngineChoice: String, CaseIterable, Sendable, Codable {
    case auto
    case libsamplerate
    case soxr
    case polyphase

    public static let `default`: EngineChoice = .auto

    /// The engine that runs at `quality`.
    public func engine(for quality: ResampleQuality) -> ResampleEngine {
        switch self {
        case .libsamplerate: .libsamplerate
        case .soxr: .soxr
        case .polyphase: .polyphase
        case .auto: quality == .fast ? .soxr : .polyphase
        }
    }

    /// The engine a plan's fingerprint names: only soxr and polyphase chosen by name. libsamplerate (what every
    /// release before `auto` ran by default) and `auto` stay unnamed, so an earlier night's outputs stay current when
    /// the default changes; asking for an engine by name is a change of plan.
    public var namedInPlan: ResampleEngine {
        switch self {
        case .soxr: .soxr
        case .polyphase: .polyphase
        case .auto, .libsamplerate: .libsamplerate
        }
    }
}
