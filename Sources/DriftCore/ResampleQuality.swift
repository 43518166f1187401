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

    /// The engine a job runs when none is named (the wire's and the journal's absent value).
    public static let `default`: ResampleEngine = .libsamplerate
}

/// The engine asked for: one of the two, or `auto`, the default, which takes per quality the one measured fastest at
/// equal or better quality against the ideal (docs/performance.md's engine table; `SoxrResampler.soxrRecipe`): libsoxr for
/// `fast` and `medium` (as clean or cleaner everywhere, 4-15x the speed), libsamplerate for `best` (19-41 dB
/// cleaner near the band edge).
public enum EngineChoice: String, CaseIterable, Sendable, Codable {
    case auto
    case libsamplerate
    case soxr

    public static let `default`: EngineChoice = .auto

    /// The engine that runs at `quality`.
    public func engine(for quality: ResampleQuality) -> ResampleEngine {
        switch self {
        case .libsamplerate: .libsamplerate
        case .soxr: .soxr
        case .auto: quality == .best ? .libsamplerate : .soxr
        }
    }

    /// The engine a plan's fingerprint names: only soxr chosen by name. libsamplerate (what every release before
    /// `auto` ran by default) and `auto` stay unnamed, so an earlier night's outputs stay current when the default
    /// changes; asking for an engine by name is a change of plan.
    public var namedInPlan: ResampleEngine { self == .soxr ? .soxr : .libsamplerate }
}
