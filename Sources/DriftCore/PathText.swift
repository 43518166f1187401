import Foundation
public import SystemPackage

/// A file name's bytes as text that loses none of them. The kernel's names are bytes; driftfix carries paths as text
/// (on the wire, in the journal, in reports), so a name that is not UTF-8, or not in Unicode's composed form (NFC),
/// is carried with the bytes text cannot hold, or would merge, as private-use characters: byte `b` is U+F700 + `b`.
///
/// - A name in NFC, of valid UTF-8, is itself (almost every name).
/// - A byte that is not part of valid UTF-8 (`take\xFF.wav`) is U+F7FF.
/// - A name not in NFC (`cafe` + U+0301, as macOS writes it) has every byte past ASCII so, so that it stays apart from
///   its composed twin: Swift compares text by canonical equivalence, the kernel by bytes.
/// - A name holding one of U+F780…U+F7FF itself has that character's bytes so, so that the mapping runs both ways.
///
/// `bytes(of:)` gives the kernel its bytes back (`withCString`, `FilePath(pathText:)`); `shown(_:)` writes them as
/// `\xFF` for people (tables, logs, HTML).
public enum PathText {
    static let base: UInt32 = 0xF700

    /// The text of a name or path's bytes.
    public static func text<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // The common case: ASCII.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        let array = Array(bytes)
        // Component by component: one name's form does not change another's.
        var out = String.UnicodeScalarView()
        var start = 0
        for end in array.indices where array[end] == UInt8(ascii: "/") {
            append(array[start..<end], to: &out)
            out.append("/")
            start = end + 1
        }
        append(array[start...], to: &out)
        return String(out)
    }

    private static func append(_ name: ArraySlice<UInt8>, to out: inout String.UnicodeScalarView) {
        guard name.contains(where: { $0 >= 0x80 }) else {
            out.append(contentsOf: String(decoding: name, as: UTF8.self).unicodeScalars)
            return
        }
        if let valid = String(validating: name, as: UTF8.self),
            Array(valid.precomposedStringWithCanonicalMapping.utf8) == Array(name)
        {
            // Valid and composed: each scalar itself, but one in the private range this mapping uses.
            for scalar in valid.unicodeScalars {
                if (base + 0x80...base + 0xFF).contains(scalar.value) {
                    for byte in String(scalar).utf8 { out.append(escaped(byte)) }
                } else {
                    out.append(scalar)
                }
            }
            return
        }
        if String(validating: name, as: UTF8.self) != nil {
            // Valid but not composed: every byte past ASCII escaped, so it stays apart from its composed twin.
            for byte in name { out.append(byte < 0x80 ? Unicode.Scalar(byte) : escaped(byte)) }
            return
        }
        // Not UTF-8: the valid runs as themselves, each other byte escaped.
        var i = name.startIndex
        while i < name.endIndex {
            let length = sequenceLength(name, at: i)
            if length > 0, let scalar = String(validating: name[i..<i + length], as: UTF8.self)?.unicodeScalars.first,
                !(base + 0x80...base + 0xFF).contains(scalar.value)
            {
                out.append(scalar)
                i += length
            } else {
                out.append(escaped(name[i]))
                i += 1
            }
        }
    }

    /// The length of the valid UTF-8 sequence at `i`, or 0.
    private static func sequenceLength(_ bytes: ArraySlice<UInt8>, at i: Int) -> Int {
        let lead = bytes[i]
        let length =
            lead < 0x80
            ? 1
            : lead >= 0xC2 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3 : lead >= 0xF0 && lead < 0xF5 ? 4 : 0
        guard length > 0, i + length <= bytes.endIndex else { return 0 }
        return String(validating: bytes[i..<i + length], as: UTF8.self) == nil ? 0 : length
    }

    private static func escaped(_ byte: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(base + UInt32(byte)) ?? "?"
    }

    /// Whether `text` holds an escaped byte (most paths do not: they are their own bytes).
    public static func hasEscapes(_ text: String) -> Bool {
        // U+F780…U+F7FF are EF 9E 80…EF 9F BF in UTF-8.
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if previous == 0xEF && (byte == 0x9E || byte == 0x9F) { return true }
            previous = byte
        }
        return false
    }

    /// The bytes `text` stands for.
    public static func bytes(of text: String) -> [UInt8] {
        guard hasEscapes(text) else { return Array(text.utf8) }
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            if (base + 0x80...base + 0xFF).contains(scalar.value) {
                out.append(UInt8(scalar.value - base))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// Calls `body` with the path's bytes as a C string (what a system call takes).
    @discardableResult
    package static func withCString<Result>(_ text: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows
        -> Result
    {
        guard hasEscapes(text) else { return try text.withCString(body) }
        let bytes = bytes(of: text).map { CChar(bitPattern: $0) } + [0]
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The name for people (tables, the HTML, logs, iXML, timelines): its bytes as text where they are valid UTF-8
    /// - a name in decomposed form (NFD, as macOS writes it) included, which shows as it does in a file manager -
    /// and each byte that is not UTF-8 as `\xHH`. Only machines' formats (the wire, the journal, JSON, CSV) carry the
    /// escape that keeps every byte.
    public static func shown(_ text: String) -> String {
        guard hasEscapes(text) else { return text }
        var out = ""
        for piece in readable(text) {
            switch piece {
            case .scalar(let scalar): out.unicodeScalars.append(scalar)
            case .byte(let byte): out += "\\x" + String(format: "%02X", byte)
            }
        }
        return out
    }

    /// A piece of a name as people read it: a character, or a byte that is not UTF-8.
    public enum ReadablePiece: Equatable, Sendable {
        case scalar(Unicode.Scalar)
        case byte(UInt8)
    }

    /// `text` as people read it: each run of escaped bytes decoded where it is valid UTF-8, else byte by byte.
    public static func readable(_ text: String) -> [ReadablePiece] {
        var pieces: [ReadablePiece] = []
        var run: [UInt8] = []
        func flush() {
            guard !run.isEmpty else { return }
            let bytes = run[...]
            var i = bytes.startIndex
            while i < bytes.endIndex {
                let length = sequenceLength(bytes, at: i)
                if length > 0,
                    let scalar = String(validating: bytes[i..<i + length], as: UTF8.self)?.unicodeScalars.first
                {
                    pieces.append(.scalar(scalar))
                    i += length
                } else {
                    pieces.append(.byte(bytes[i]))
                    i += 1
                }
            }
            run.removeAll()
        }
        for scalar in text.unicodeScalars {
            if (base + 0x80...base + 0xFF).contains(scalar.value) {
                run.append(UInt8(scalar.value - base))
            } else {
                flush()
                pieces.append(.scalar(scalar))
            }
        }
        flush()
        return pieces
    }
}

extension FilePath {
    /// The path whose bytes `text` stands for (`PathText`).
    public init(pathText text: String) {
        guard PathText.hasEscapes(text) else {
            self.init(text)
            return
        }
        let bytes = PathText.bytes(of: text).map { CChar(bitPattern: $0) } + [0]
        self = bytes.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
    }

    /// The path's bytes as text that loses none of them (`PathText`); `string` repairs what is not UTF-8.
    public var pathText: String {
        withPlatformString { pointer in
            PathText.text(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
        }
    }
}

// The system calls on text paths are the engines' own (`package`): a library caller holds a `FilePath`, which asks the
// kernel for its bytes itself; C types stay out of the public API.
extension PathText {
    /// The path with its links resolved (`FilePath.resolvingLinks()`), on the bytes `text` stands for: `FilePath(text)`
    /// would ask the kernel about the escapes' UTF-8 instead.
    package static func resolvingLinks(_ text: String) -> String { FilePath(pathText: text).resolvingLinks().pathText }

    /// The real path of an existing file (`FilePath.realPath()`), on the bytes `text` stands for; nil when it does
    /// not exist.
    package static func realPath(_ text: String) -> String? { FilePath(pathText: text).realPath()?.pathText }

    /// `open(2)` on the path's bytes.
    package static func open(_ text: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        withCString(text) { Glibc.open($0, flags, mode) }
    }

    /// A whole small file's bytes (a sidecar), or nil with `errno` set.
    package static func contents(of text: String) -> Data? {
        let descriptor = open(text, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return data }
            data.append(buffer, count: count)
        }
    }
}

extension PathText {
    /// Calls `body` with two paths' bytes as C strings (a rename, a link).
    @discardableResult
    package static func withCStrings<Result>(
        _ a: String, _ b: String, _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) throws -> Result
    ) rethrows -> Result {
        try withCString(a) { first in try withCString(b) { second in try body(first, second) } }
    }
}
