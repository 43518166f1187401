/// One part of the name of the group a file is searched in when pairing by sound.
public enum SoundGroupPart: Sendable, Equatable {
    /// The day the file started: its BWF origination date, else its container's creation time (UTC, as cameras
    /// write it), else its modification date (this machine's time zone).
    case day
    /// The file's device, named as `scan.device` names one (a path template, a pattern, a metadata field, the
    /// folder).
    case device(DeviceSource)

    public var label: String {
        switch self {
        case .day: return "day"
        case .device(let source): return source.label
        }
    }
}

/// How pairing by sound splits a root into groups searched apart (`scan.sound-group`): clips are looked for only in
/// the recordings of their own group. A file's group is its parts' names joined by " · "; no parts (the default):
/// the whole root is one group.
public struct SoundGroupRules: Sendable, Equatable {
    public var parts: [SoundGroupPart]

    public init(parts: [SoundGroupPart] = []) {
        self.parts = parts
    }
}
