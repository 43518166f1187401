import DriftAV
import DriftAudio
import Foundation

/// What a recording's metadata says that may name its device: the BWF `bext` fields, the iXML chunk and the
/// container's tags (lower-cased keys: `make`, `model`, `com.apple.quicktime.model`, `encoder`, `software`, ...).
public struct RecordingMetadata: Sendable, Equatable {
    public var originator: String?
    public var originatorReference: String?
    public var bextDescription: String?
    /// The iXML chunk's text, when it was read.
    public var ixml: String?
    public var tags: [String: String] = [:]

    /// A non-empty tag value by its lower-cased key.
    func tag(_ key: String) -> String? {
        tags[key].flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension RecordingMetadata {
    /// What libsndfile read of a file: its string tags and bext, and the iXML chunk when `ixml` is asked for.
    init(reader: AudioFileReader, ixml wantIXML: Bool) {
        let (tags, bext) = reader.descriptiveMetadata()
        var named: [String: String] = [:]
        for (tag, value) in tags { named[String(describing: tag).lowercased()] = value }
        self.init(
            originator: bext.map(\.originator), originatorReference: bext.map(\.originatorReference),
            bextDescription: bext.map(\.description), ixml: wantIXML ? reader.chunk("iXML").map(IXMLText.decode) : nil,
            tags: named)
    }

    /// What FFmpeg read of a container: its tags, and its first audio stream's beneath them (Ogg and Matroska keep
    /// the encoder there).
    init(media: MediaInfo) {
        var tags: [String: String] = [:]
        for (key, value) in media.audioStreams.first?.tags ?? [:] { tags[key.lowercased()] = value }
        for (key, value) in media.tags { tags[key.lowercased()] = value }
        self.init(tags: tags)
    }
}
