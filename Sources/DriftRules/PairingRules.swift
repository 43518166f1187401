import DriftCore

/// A naming pattern that pairs a recording with its reference in the same folder (or a path relative to it):
/// `{stem}_audio.wav` with `{stem}.mp4`.
public struct PairPattern: Sendable, Equatable {
    public var recording: String
    public var reference: String

    public init(recording: String, reference: String) {
        self.recording = recording
        self.reference = reference
    }

    /// The stem when `name` matches the recording template.
    package func stem(of name: String) -> String? {
        guard let range = recording.range(of: "{stem}") else { return name == recording ? "" : nil }
        let prefix = recording[..<range.lowerBound]
        let suffix = recording[range.upperBound...]
        guard name.count > prefix.count + suffix.count, name.hasPrefix(prefix), name.hasSuffix(suffix) else {
            return nil
        }
        return String(name.dropFirst(prefix.count).dropLast(suffix.count))
    }

    package func reference(for stem: String) -> String { reference.replacingOccurrences(of: "{stem}", with: stem) }
}

/// What to do when a recording has several references of the same name (`take.mov` and `take.mp4`).
public enum AmbiguousReferences: String, Sendable, Equatable, CaseIterable {
    /// Take the first in `scan.references` order and warn on the pair, naming the others.
    case prefer
    /// Refuse the pair until the configuration chooses.
    case refuse
}

/// How the scanner finds and pairs files.
/// How recordings find their references (config `scan.pair-by`).
public enum PairBy: String, Sendable, Equatable, CaseIterable {
    /// By name: the same stem, or the configured patterns.
    case name
    /// By sound: every clip searched for in every recording of its group (`driftfix sync`).
    case sound
    /// By name first; the files names leave unpaired, by sound.
    case nameThenSound = "name-then-sound"
}

/// How a clip is searched for among its group's recordings (config `scan.sound-search`).
public enum SoundSearch: String, Sendable, Equatable, CaseIterable {
    /// Looked up in an index of the recordings' landmarks; the recordings it names searched (every recording where
    /// none of them holds a place worth measuring).
    case indexed
    /// Every recording searched for every clip.
    case exhaustive
}

public struct PairingRules: Sendable, Equatable {
    /// Indexed (the default) or every recording, for each clip found by sound.
    public var soundSearch = SoundSearch.indexed
    /// Names, sound, or both (`driftfix sync` and `scan --pair-by` read it).
    public var pairBy = PairBy.name
    /// Where a clip's audio cut from a recording goes, below the output root: `{folder}` is the clip's folder below
    /// its root, `{stem}` its name without extension, `{recording}` the recording's; the extension picks the format.
    public var soundOutput = "{folder}/{stem}.wav"
    /// Extensions (lower case, no dot) of recordings.
    public var recordingExtensions = [
        "wav", "bwf", "rf64", "w64", "aif", "aiff", "caf", "flac", "ogg", "opus", "mp3",
        "m4a", "mka", "aac",
    ]
    /// Extensions of references, most preferred first, for the default same-stem pairing.
    public var referenceExtensions = [
        "mov", "mp4", "m4v", "mkv", "webm", "mxf", "avi", "mts", "m2ts", "ts", "duration",
    ]
    /// Extra patterns, tried before the same-stem rule.
    public var patterns: [PairPattern] = []
    /// Paths to leave out.
    public var ignore: [GlobPattern] = []
    /// Use the movie header's duration when a reference has no video track.
    public var movieHeaderFallback = false
    /// Several references for one recording: prefer one (with a warning) or refuse the pair.
    public var ambiguousReferences = AmbiguousReferences.prefer
    /// A video file with its own audio track and no separate recording is a pair by itself: its audio track is the
    /// recording, its video track the reference.
    public var selfPairs = true
    /// How each recording's device is named (the folder, unless configured).
    public var device = DeviceRules()
    /// How pairing by sound splits a root into groups searched apart (none: the root is one group).
    public var soundGroup = SoundGroupRules()

    public init() {}
}
