/// The band-limited converter used for a resample repair.
///
/// Measured here (see README, "Benchmarks"): `medium` matches `best` within a fraction of a dB on content below
/// 0.9 × Nyquist at about three times the speed, so it is the default; `fast` cuts the top 20% of the band.
public enum ResampleQuality: String, CaseIterable, Sendable, Codable {
    /// libsamplerate SINC_BEST_QUALITY: 97% bandwidth, highest stop-band rejection.
    case best
    /// libsamplerate SINC_MEDIUM_QUALITY: 90% bandwidth.
    case medium
    /// libsamplerate SINC_FASTEST: 80% bandwidth.
    case fast

    /// The default for repairs.
    public static let `default`: ResampleQuality = .medium
}
