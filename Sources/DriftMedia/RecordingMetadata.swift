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
    public var tags: [String: String]

    public init(originator: String? = nil, originatorReference: String? = nil, bextDescription: String? = nil,
                ixml: String? = nil, tags: [String: String] = [:]) {
        self.originator = originator
        self.originatorReference = originatorReference
        self.bextDescription = bextDescription
        self.ixml = ixml
        self.tags = tags
    }

    /// A non-empty tag value by its lower-cased key.
    func tag(_ key: String) -> String? {
        tags[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What libsndfile read of a file: its string tags and bext, and the iXML chunk when `ixml` is asked for.
    init(reader: AudioFileReader, ixml wantIXML: Bool) {
        let (tags, bext) = reader.descriptiveMetadata()
        var named: [String: String] = [:]
        for (tag, value) in tags { named[String(describing: tag).lowercased()] = value }
        self.init(originator: bext.map(\.originator), originatorReference: bext.map(\.originatorReference),
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

/// Just enough XML for iXML's flat, vendor-written elements: the text of an element by its path.
enum IXMLText {
    /// The chunk's bytes as text (UTF-8; a trailing NUL pad is dropped).
    static func decode(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The text of the first element at `path` below the root element (`["USER", "SERIAL"]`), entities decoded;
    /// nil when there is none or it has no text.
    static func element(_ path: [String], in xml: String) -> String? {
        // Below the root: the first element's content.
        guard var scope = content(ofFirst: nil, in: Substring(xml)) else { return nil }
        for name in path {
            guard let inner = content(ofFirst: name, in: scope) else { return nil }
            scope = inner
        }
        let text = unescape(String(scope)).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || text.contains("<") ? nil : text
    }

    /// The content between `<name ...>` and its `</name>` (the first element of any name when nil; comments,
    /// declarations and processing instructions skipped).
    private static func content(ofFirst name: String?, in text: Substring) -> Substring? {
        var rest = text
        while let open = rest.firstIndex(of: "<") {
            let tag = rest[rest.index(after: open)...]
            if tag.hasPrefix("?") || tag.hasPrefix("!") || tag.hasPrefix("/") {
                guard let end = tag.firstIndex(of: ">") else { return nil }
                rest = rest[rest.index(after: end)...]
                continue
            }
            guard let end = tag.firstIndex(of: ">") else { return nil }
            let header = tag[..<end]
            let elementName = String(header.prefix { !$0.isWhitespace && $0 != "/" })
            let selfClosing = header.hasSuffix("/")
            if name == nil || elementName == name {
                if selfClosing { return Substring("") }
                let body = tag[tag.index(after: end)...]
                guard let close = body.range(of: "</" + elementName + ">") else { return nil }
                return body[..<close.lowerBound]
            }
            // Another element: skip it whole, so a nested element of the same name further in is not taken first.
            let body = tag[tag.index(after: end)...]
            if selfClosing {
                rest = body
            } else if let close = body.range(of: "</" + elementName + ">") {
                rest = body[close.upperBound...]
            } else {
                return nil
            }
        }
        return nil
    }

    private static func unescape(_ text: String) -> String {
        var result = text
        if let start = result.range(of: "<![CDATA["), let end = result.range(of: "]]>", range: start.upperBound..<result.endIndex) {
            return String(result[start.upperBound..<end.lowerBound])
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }
}
