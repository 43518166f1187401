/// The pitch-preserving stretch's engine.
///
/// Measured with ViSQOL against ideal stretches rendered from scores (docs/performance.md, scripts/stretch-quality.py):
/// the phase vocoder scores higher than WSOLA on music, drums and mixtures at every ratio, and on speech away from 1;
/// WSOLA scores higher on speech within a few tenths of a percent of 1, where its rare splices leave a voice as it was
/// and a vocoder's phases, however coherent, do not.
public enum StretchEngine: String, CaseIterable, Sendable, Codable {
    /// Phase-vocoder time-scale modification (phase-gradient heap integration, transients kept where they fall).
    case vocoder
    /// Waveform-similarity overlap-add: windows spliced where they best continue each other.
    case wsola
}

/// The stretch engine asked for: one of the two, or `auto`, the default, which takes the one measured better for the
/// ratio and the sound.
public enum StretchChoice: String, CaseIterable, Sendable, Codable {
    case auto
    case vocoder
    case wsola

    public static let `default`: StretchChoice = .auto

    /// Ratios (output / input) this close to 1 are where WSOLA may serve speech better: its splices are then a few
    /// samples' shifts tens of milliseconds apart.
    public static let nearOne = 0.998...1.002

    /// Whether the choice depends on the sound at `ratio` (only `auto`, only near 1): the caller measures the sound only
    /// then.
    public func needsSound(ratio: Double) -> Bool { self == .auto && Self.nearOne.contains(ratio) }

    /// The engine that runs at `ratio` for a sound that is, or is not, speech-like.
    public func engine(ratio: Double, speechLike: Bool) -> StretchEngine {
        switch self {
        case .vocoder: .vocoder
        case .wsola: .wsola
        case .auto: speechLike && Self.nearOne.contains(ratio) ? .wsola : .vocoder
        }
    }
}
