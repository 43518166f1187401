import DriftCore
import Foundation

/// Just enough XML for iXML's flat, vendor-written elements: the text of an element by its path.
public enum IXMLText {
    /// The chunk's bytes as text (UTF-8; a trailing NUL pad is dropped).
    public static func decode(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The tracks' names in an iXML TRACK_LIST, in the order their channels are interleaved in the file
    /// (`INTERLEAVE_INDEX`, else the list's order); empty when it names none.
    public static func trackNames(in xml: String) -> [String] {
        guard let document = IXMLDocument(Array(xml.utf8)) else { return [] }
        let tracks = document.elements(["TRACK_LIST", "TRACK"]).enumerated().map { index, track in
            func field(_ name: String) -> String? {
                track.children.first { $0.name == name }.flatMap { document.value(of: $0) }
            }
            return (order: field("INTERLEAVE_INDEX").flatMap { Int($0) } ?? index + 1, name: field("NAME") ?? "")
        }
        return tracks.sorted { $0.order < $1.order }.map(\.name)
    }

    /// The text of the first element at `path` below the root element (`["USER", "SERIAL"]`), entities decoded;
    /// nil when there is none or it has no text.
    public static func element(_ path: [String], in xml: String) -> String? {
        // Below the root: the first element's content.
        guard var scope = content(ofFirst: nil, in: Substring(xml)) else { return nil }
        for name in path {
            guard let inner = content(ofFirst: name, in: scope) else { return nil }
            scope = inner
        }
        let text = unescaped(String(scope)).trimmingCharacters(in: .whitespacesAndNewlines)
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

    /// `text` with its CDATA section's content, or its entities decoded.
    static func unescaped(_ text: String) -> String {
        var result = text
        if let start = result.range(of: "<![CDATA["),
            let end = result.range(of: "]]>", range: start.upperBound..<result.endIndex)
        {
            return String(result[start.upperBound..<end.lowerBound])
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }

    /// `text` as element content: `&`, `<` and `>` as entities.
    static func escaped(_ text: String) -> String { TextEscaping.markup(text, inAttribute: false) }
}
