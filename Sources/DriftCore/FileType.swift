/// The kinds of file driftfix writes, by the names users give them: a file extension, or `--format`.
public enum FileType: String, CaseIterable, Sendable {
    case wav, wavex, rf64, w64, aiff, caf, flac, ogg, opus, mp3

    /// The type a file extension names, as sox and ffmpeg read them; nil for an extension driftfix cannot write.
    public init?(extension ext: String) {
        switch ext.lowercased() {
        case "wav", "wave", "bwf": self = .wav
        case "rf64": self = .rf64
        case "w64": self = .w64
        case "aif", "aiff", "aifc": self = .aiff
        case "caf": self = .caf
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        case "opus": self = .opus
        case "mp3": self = .mp3
        default: return nil
        }
    }

    /// Extensions `init(extension:)` knows, for messages.
    public static let knownExtensions = [
        "wav", "wave", "bwf", "rf64", "w64", "aif", "aiff", "aifc", "caf", "flac", "ogg",
        "oga", "opus", "mp3",
    ]
}
