/// An iXML chunk as text, with its elements located, for edits that change a few values and leave every other
/// character as the recorder wrote it (its elements, their order, its vendors' sections, its white space, its
/// padding). Not a general XML parser: iXML is element-only text without mixed content, and that is what it reads;
/// anything it cannot follow (an unclosed element, a UTF-16 chunk) makes `init` fail, and the chunk is carried as it
/// was.
struct IXMLDocument {
    /// An element: its name and where its start tag, content and end tag lie (byte offsets in `text`).
    struct Element {
        var name: String
        /// The start tag, `<NAME ...>`.
        var open: Range<Int>
        /// Between the tags (empty for `<NAME/>`).
        var content: Range<Int>
        /// Start tag to end tag.
        var whole: Range<Int>
        var children: [Element]
        var selfClosing: Bool
    }

    /// The chunk's bytes up to its root element's end; what follows (padding, NULs) is kept apart.
    private(set) var text: [UInt8]
    let trailer: [UInt8]
    private(set) var root: Element

    private var edits: [(range: Range<Int>, replacement: [UInt8])] = []

    init?(_ bytes: [UInt8]) {
        // UTF-16 (a byte-order mark, or NULs between characters) is carried unedited.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return nil }
        if bytes.count >= 2, bytes[0] == 0x3C, bytes[1] == 0 { return nil }
        guard let (root, end) = Self.parse(bytes) else { return nil }
        text = Array(bytes[..<end])
        trailer = Array(bytes[end...])
        self.root = root
    }

    /// The text of `element` (entities decoded, trimmed), nil when it has child elements.
    func value(of element: Element) -> String? {
        guard element.children.isEmpty else { return nil }
        return IXMLText.unescaped(String(decoding: text[element.content], as: UTF8.self))
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first element at `path` below the root.
    func element(_ path: [String]) -> Element? {
        var scope = root
        for name in path {
            guard let next = scope.children.first(where: { $0.name == name }) else { return nil }
            scope = next
        }
        return scope
    }

    /// Every element at `path` below the root (repeated elements: each `TRACK` of `TRACK_LIST`).
    func elements(_ path: [String]) -> [Element] {
        guard let last = path.last else { return [root] }
        let parents = path.count == 1 ? [root] : elements(Array(path.dropLast()))
        return parents.flatMap { $0.children.filter { $0.name == last } }
    }

    // MARK: edits (applied by `bytes`, in any order; none may overlap another)

    /// Replaces `element`'s text.
    mutating func setValue(_ value: String, of element: Element) {
        let escaped = Array(IXMLText.escaped(value).utf8)
        if element.selfClosing {
            edits.append((element.whole, Array("<\(element.name)>".utf8) + escaped + Array("</\(element.name)>".utf8)))
        } else {
            edits.append((element.content, escaped))
        }
    }

    /// Sets the text of the element `name` in `parent`: replaced where it is, else added as its last child.
    mutating func set(_ name: String, to value: String, in parent: Element) {
        if let existing = parent.children.first(where: { $0.name == name }) {
            setValue(value, of: existing)
        } else {
            insert("<\(name)>\(IXMLText.escaped(value))</\(name)>", into: parent)
        }
    }

    /// Adds `markup` as the last child of `parent`, indented as its other children are.
    mutating func insert(_ markup: String, into parent: Element) {
        let indent = childIndent(of: parent)
        if parent.selfClosing {
            let open = String(decoding: text[parent.open.lowerBound..<(parent.open.upperBound - 2)], as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            edits.append(
                (parent.whole, Array("\(open)>\(indent.child)\(markup)\(indent.closing)</\(parent.name)>".utf8)))
            return
        }
        // After the last child (or the start tag), before the white space that leads to the end tag.
        let at = parent.children.last?.whole.upperBound ?? parent.content.lowerBound
        edits.append((at..<at, Array("\(indent.child)\(markup)".utf8)))
    }

    /// Removes `element` with the white space that leads to it.
    mutating func remove(_ element: Element) {
        var start = element.whole.lowerBound
        while start > 0, [0x20, 0x09, 0x0A, 0x0D].contains(text[start - 1]) { start -= 1 }
        edits.append((start..<element.whole.upperBound, []))
    }

    /// The chunk with every edit applied.
    var bytes: [UInt8] {
        var result = text
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            result.replaceSubrange(edit.range, with: edit.replacement)
        }
        return result + trailer
    }

    /// The line break and indentation before a child of `parent`, and before its end tag.
    private func childIndent(of parent: Element) -> (child: String, closing: String) {
        func leading(before offset: Int) -> String {
            var start = offset
            while start > 0, [0x20, 0x09, 0x0A, 0x0D].contains(text[start - 1]) { start -= 1 }
            return String(decoding: text[start..<offset], as: UTF8.self)
        }
        if let first = parent.children.first {
            return (leading(before: first.whole.lowerBound), "")
        }
        // No children to copy from: one more step than the parent's own indentation.
        let own = leading(before: parent.whole.lowerBound)
        guard own.contains(where: { $0 == "\n" || $0 == "\r" }) else { return ("", "") }
        let step = own.contains("\t") ? "\t" : "  "
        return (own + step, own)
    }

    // MARK: reading

    /// The root element and the offset just past it; nil where the text is not element markup this can follow.
    private static func parse(_ bytes: [UInt8]) -> (Element, Int)? {
        var stack: [Element] = []
        var index = 0
        let count = bytes.count
        func find(_ pattern: [UInt8], from start: Int) -> Int? {
            guard pattern.count <= count else { return nil }
            var at = start
            while at + pattern.count <= count {
                if bytes[at] == pattern[0], Array(bytes[at..<at + pattern.count]) == pattern { return at }
                at += 1
            }
            return nil
        }
        while index < count {
            guard bytes[index] == 0x3C else {  // "<"
                if stack.isEmpty, bytes[index] == 0 { return nil }  // NULs before any element
                index += 1
                continue
            }
            let rest = index + 1
            if rest < count, bytes[rest] == 0x3F {  // "<?...?>"
                guard let end = find([0x3F, 0x3E], from: rest) else { return nil }
                index = end + 2
            } else if bytes[index...].starts(with: Array("<!--".utf8)) {
                guard let end = find(Array("-->".utf8), from: index + 4) else { return nil }
                index = end + 3
            } else if bytes[index...].starts(with: Array("<![CDATA[".utf8)) {
                guard let end = find(Array("]]>".utf8), from: index + 9) else { return nil }
                index = end + 3
            } else if rest < count, bytes[rest] == 0x21 {  // "<!DOCTYPE ...>"
                guard let end = find([0x3E], from: rest) else { return nil }
                index = end + 1
            } else if rest < count, bytes[rest] == 0x2F {  // "</NAME>"
                guard let end = find([0x3E], from: rest), var element = stack.popLast() else { return nil }
                let name = String(decoding: bytes[(rest + 1)..<end], as: UTF8.self)
                    .trimmingCharacters(in: .whitespaces)
                guard name == element.name else { return nil }
                element.content = element.open.upperBound..<index
                element.whole = element.open.lowerBound..<(end + 1)
                index = end + 1
                if stack.isEmpty { return (element, index) }
                stack[stack.count - 1].children.append(element)
            } else {
                guard let end = tagEnd(bytes, from: rest) else { return nil }
                let selfClosing = bytes[end - 1] == 0x2F
                let nameEnd = bytes[rest..<end].firstIndex { [0x20, 0x09, 0x0A, 0x0D, 0x2F].contains($0) } ?? end
                let name = String(decoding: bytes[rest..<nameEnd], as: UTF8.self)
                guard !name.isEmpty else { return nil }
                let open = index..<(end + 1)
                let element = Element(
                    name: name, open: open, content: open.upperBound..<open.upperBound, whole: open, children: [],
                    selfClosing: selfClosing)
                index = end + 1
                if selfClosing {
                    if stack.isEmpty { return (element, index) }
                    stack[stack.count - 1].children.append(element)
                } else {
                    stack.append(element)
                }
            }
        }
        return nil
    }

    /// The `>` that ends a start tag from `start`, outside quoted attribute values.
    private static func tagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var quote: UInt8?
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == 0x22 || byte == 0x27 {
                quote = byte
            } else if byte == 0x3E {
                return index
            } else if byte == 0x3C {
                return nil
            }
            index += 1
        }
        return nil
    }
}
