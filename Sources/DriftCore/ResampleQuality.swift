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
    /// libsamplerate's sinc converters: the project's reference for quality, and the default.
    case libsamplerate
    /// libsoxr (what sox's `rate` effect is built on): the same measured quality at several times the speed per core.
    case soxr

    public static let `default`: ResampleEngine = .libsamplerate
}
