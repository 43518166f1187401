public import SystemPackage

/// The path questions a scan asks of every one of 100,000 files, answered from the path's UTF-8 bytes. Building a
/// `FilePath` for each (parsing, normalising, checking invariants) cost more than reading the file's header. Each
/// answer is the one `FilePath` gives; a path that is not already lexically normal goes the `FilePath` way.
extension FilePath {
    /// `FilePath(path).lowercasedExtension`, without building the path.
    public static func lowercasedExtension(of path: String) -> String? {
        let bytes = path.utf8
        let slash = UInt8(ascii: "/")
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == slash { end = bytes.index(before: end) }
        let nameStart = bytes[..<end].lastIndex(of: slash).map { bytes.index(after: $0) } ?? bytes.startIndex
        // After the name's last dot, when that dot is not the name's first byte and something follows it.
        guard let dot = extensionDot(bytes[nameStart..<end]) else { return nil }
        let extensionStart = bytes.index(after: dot)
        guard extensionStart < end else { return nil }
        let ext = bytes[extensionStart..<end]
        guard ext.allSatisfy({ $0 < 0x80 }) else { return String(Substring(ext)).lowercased() }
        return String(decoding: ext.lazy.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// `FilePath(name).lastComponent?.stem ?? name` for a file's name (no slash in it), without building the path.
    public static func stem(ofName name: String) -> String {
        let bytes = name.utf8
        guard !bytes.contains(UInt8(ascii: "/")), bytes.count > 2 || !bytes.allSatisfy({ $0 == UInt8(ascii: ".") })
        else { return FilePath(name).lastComponent?.stem ?? name }
        guard let dot = extensionDot(bytes[...]) else { return name }
        return String(Substring(bytes[..<dot]))
    }

    /// The dot that starts a name's extension: its last, unless that is its first byte.
    private static func extensionDot(_ name: Substring.UTF8View) -> String.Index? {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return nil }
        return dot
    }
}

/// A folder that paths are shown below (a report's table, a night's outputs): normalised once, then asked of each
/// path by its bytes.
package struct FolderPrefix: Sendable {
    /// The folder, lexically normal.
    package let folder: FilePath
    private let prefix: [UInt8]

    package init(_ folder: String) {
        self.folder = FilePath(folder).lexicallyNormalized()
        let text = self.folder.string
        prefix = text.isEmpty || text.hasSuffix("/") ? Array(text.utf8) : Array(text.utf8) + [UInt8(ascii: "/")]
    }

    /// `path`'s part below the folder, as `FilePath(path).relative(to: folder)` gives it when `path` lies strictly
    /// below it; nil when it does not.
    package func relative(_ path: String) -> String? {
        guard Self.isPlain(path) else {
            let normal = FilePath(path).lexicallyNormalized()
            guard normal != folder, let relative = normal.relative(to: folder) else { return nil }
            return relative.string
        }
        let bytes = path.utf8
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        return String(Substring(bytes.dropFirst(prefix.count)))
    }

    /// Whether the path is already lexically normal: no empty, `.` or `..` component, no trailing slash.
    static func isPlain(_ path: String) -> Bool {
        var length = 0
        var dots = 0
        var atStart = true
        for byte in path.utf8 {
            defer { atStart = false }
            if byte == UInt8(ascii: "/") {
                if atStart { continue }  // the root
                if length == 0 || (length == dots && dots <= 2) { return false }
                length = 0
                dots = 0
            } else {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return length > 0 && !(length == dots && dots <= 2)
    }
}
