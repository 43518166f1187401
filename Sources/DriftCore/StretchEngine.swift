/// The pitch-preserving stretch's engine.
///
/// Measured with ViSQOL against ideal stretches rendered from scores, and by round trips of a real song
/// (docs/performance.md, scripts/stretch-quality.py): the phase vocoder scores higher than WSOLA on sustained music at
/// every ratio and on every sound when it lengthens it or shortens it by more than a fifth; WSOLA scores higher when it
/// shortens sound with gaps between its events (speech, drums, a beat) by up to a fifth, for it removes whole stretches
/// in the gaps, and within 0.2 % of 1, where its rare splices leave a voice as it was.
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

    /// Ratios (output / input) at which `auto` may take WSOLA: shortening by up to a fifth, and lengthening by up to
    /// 0.2 %. The sound is measured only there.
    public static let wsolaRatios = 0.8...1.002

    /// At or above this share of low-energy frames WSOLA takes every ratio in `wsolaRatios`: speech and drums
    /// (measured 0.35 and 0.66) and music with a beat (a song 0.21); sustained music lies below 0.1.
    public static let gappyShare = 0.15

    /// Whether the choice depends on the sound at `ratio`: the caller measures it only then.
    public func needsSound(ratio: Double) -> Bool { self == .auto && Self.wsolaRatios.contains(ratio) }

    /// The engine that runs at `ratio` for a sound with `lowEnergyShare` (nil: not measured, or silent).
    public func engine(ratio: Double, lowEnergyShare: Double?) -> StretchEngine {
        switch self {
        case .vocoder: return .vocoder
        case .wsola: return .wsola
        case .auto:
            guard Self.wsolaRatios.contains(ratio), let share = lowEnergyShare else { return .vocoder }
            return share >= Self.gappyShare ? .wsola : .vocoder
        }
    }
}
