import DriftCore

extension String {
    /// The text with control characters made visible, so a file name holding a newline (or an escape sequence) stays
    /// on its line in a table or a log and cannot drive the terminal: `\n`, `\r`, `\t`, `\\` are written as such,
    /// other control characters as `\u{1B}`.
    public var escapedForTerminal: String {
        if isPrintableASCII && !utf8.contains(UInt8(ascii: "\\")) { return self }
        guard unicodeScalars.contains(where: { $0.isControlCharacter || $0 == "\\" || Self.isEscapedByte($0) }) else {
            return self
        }
        var result = ""
        // A file name's bytes carried as PathText does: shown as people read them (`PathText.shown`).
        for piece in PathText.readable(self) {
            guard case .scalar(let scalar) = piece else {
                if case .byte(let byte) = piece { result += "\\x" + String(byte, radix: 16, uppercase: true) }
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            case _ where scalar.isControlCharacter:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `scalar` is a byte `PathText` carries as a private-use character (U+F780…U+F7FF).
    static func isEscapedByte(_ scalar: Unicode.Scalar) -> Bool { (0xF780...0xF7FF).contains(scalar.value) }

    /// Columns the text takes in a terminal: wide (East Asian) characters and emoji take two, combining marks and
    /// other zero-width characters none.
    public var terminalWidth: Int {
        // Printable ASCII, nearly every cell of a fleet's table, is one column a byte.
        if isPrintableASCII { return utf8.count }
        return reduce(0) { $0 + $1.terminalWidth }
    }

    var isPrintableASCII: Bool { utf8.allSatisfy { (0x20..<0x7F).contains($0) } }

    /// The longest prefix that fits in `columns`.
    func prefix(columns: Int) -> Substring {
        var used = 0
        var end = startIndex
        for index in indices {
            let width = self[index].terminalWidth
            if used + width > columns { break }
            used += width
            end = self.index(after: index)
        }
        return self[..<end]
    }

    /// The longest suffix that fits in `columns`.
    func suffix(columns: Int) -> Substring {
        var used = 0
        var start = endIndex
        for index in indices.reversed() {
            let width = self[index].terminalWidth
            if used + width > columns { break }
            used += width
            start = index
        }
        return self[start...]
    }

    /// The text fitted into `columns`, shortened in the middle (`/media/cam…/take01.wav`) so that both the start and
    /// the file name stay readable.
    public func fitted(toColumns columns: Int) -> String {
        guard terminalWidth > columns else { return self }
        guard columns > 1 else { return String(prefix(columns: columns)) }
        let tail = (columns - 1) * 3 / 5
        return String(prefix(columns: columns - 1 - tail)) + "…" + String(suffix(columns: tail))
    }

    /// The text padded with spaces to `columns` display columns.
    public func padded(toColumns columns: Int) -> String {
        self + String(repeating: " ", count: max(0, columns - terminalWidth))
    }
}

extension Character {
    /// 0, 1 or 2 terminal columns (the rules of wcwidth, per grapheme cluster).
    var terminalWidth: Int {
        let scalars = unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation })
            || (scalars.contains("\u{FE0F}") && first.properties.isEmoji)
        {
            return 2
        }
        if scalars.allSatisfy(Character.isZeroWidth) { return 0 }
        return Character.isWide(first) ? 2 : 1
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return scalar.value == 0x200B || (0x1160...0x11FF).contains(scalar.value)
        }
    }

    /// East Asian Wide and Fullwidth ranges (Unicode 15, as wcwidth implementations list them).
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (0x1100...0x115F).contains(v) || (0x231A...0x231B).contains(v) || (0x2329...0x232A).contains(v)
            || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v) || (0x3400...0x4DBF).contains(v)
            || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v) || (0xA960...0xA97F).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE10...0xFE19).contains(v)
            || (0xFE30...0xFE6F).contains(v) || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v)
            || (0x1F300...0x1F64F).contains(v) || (0x1F900...0x1F9FF).contains(v) || (0x20000...0x2FFFD).contains(v)
            || (0x30000...0x3FFFD).contains(v)
    }
}

extension Unicode.Scalar {
    /// C0, DEL and C1 controls.
    var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
