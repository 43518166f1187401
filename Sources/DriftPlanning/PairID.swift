/// A pair's identity across a scan, a run, the wire and the journal: the recording's absolute path. A recording pairs
/// with one reference at most, so the path names the pair; it stays the same when a resumed run reloads its plan and
/// when the next night scans the tree again.
public struct PairID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The recording's absolute path.
    public let recording: String

    public init(recording: String) {
        self.recording = recording
    }

    public static func < (a: PairID, b: PairID) -> Bool { a.recording < b.recording }

    public var description: String { recording }

    public init(from decoder: Decoder) throws {
        recording = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(recording)
    }
}
