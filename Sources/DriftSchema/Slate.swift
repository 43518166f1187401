/// What a recorder wrote of a take: its project, scene, take and tape (sound roll), and the name of each track, from
/// the recording's iXML (else the `sSCENE=`... keys recorders also write into the bext description). Editors name
/// takes and tracks by it; QA finds a take by it.
public struct Slate: Codable, Sendable, Hashable {
    public var project: String?
    public var scene: String?
    public var take: String?
    /// The sound roll the take is on (iXML TAPE).
    public var tape: String?
    /// Each track's name, in channel order (iXML TRACK_LIST); empty when the recording names none.
    public var tracks: [String]

    public init(
        project: String? = nil, scene: String? = nil, take: String? = nil, tape: String? = nil, tracks: [String] = []
    ) {
        self.project = project
        self.scene = scene
        self.take = take
        self.tape = tape
        self.tracks = tracks
    }

    /// Whether it says nothing.
    public var isEmpty: Bool { project == nil && scene == nil && take == nil && tape == nil && tracks.isEmpty }

    /// "Sc 12A Tk 3", "Sc 12A", "Tk 3"; nil without a scene or a take.
    public var label: String? {
        let parts = [scene.map { "Sc \($0)" }, take.map { "Tk \($0)" }].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// The label, the tape and the tracks in one line: "Sc 12A Tk 3, tape DAY04, tracks BOOM, LAV 1".
    public var summary: String? {
        let parts = [
            label, tape.map { "tape \($0)" }, tracks.isEmpty ? nil : "tracks " + tracks.joined(separator: ", "),
        ]
        .compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
