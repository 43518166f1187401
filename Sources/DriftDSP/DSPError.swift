/// A failure inside the signal-processing chain.
public enum DSPError: Error, Equatable, CustomStringConvertible {
    case invalidRatio(Double)
    /// A stretch outside 0.5x...2x.
    case invalidStretch(Double)
    case converter(String)
    /// The converter's total missed the target by more than the few frames the final pad or trim may fix:
    /// a bug, never papered over.
    case lengthMismatch(target: Int64, produced: Int64)

    public var description: String {
        switch self {
        case .invalidRatio(let r): return "resampling ratio \(r) is outside libsamplerate's range 1/256...256"
        case .invalidStretch(let r):
            return "stretch ratio \(r) is outside the time-stretcher's range 0.5...2.0"
        case .converter(let why): return "libsamplerate: \(why)"
        case .lengthMismatch(let target, let produced):
            return "converter produced \(produced) frames for a target of \(target): beyond the allowed end correction"
        }
    }
}
