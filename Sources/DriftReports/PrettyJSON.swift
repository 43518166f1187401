import Foundation

/// The JSON Foundation's `JSONEncoder` writes with `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`, byte
/// for byte, written straight into a byte buffer one value at a time. A report of 100,000 rows spent most of its time
/// in Foundation's encoder (a tree of boxed values, dynamic casts, a locale-aware key comparison per pair of keys);
/// this one builds a small tree per row and writes it. Keys are sorted by their UTF-8 bytes, as Foundation sorts them
/// on Linux; non-finite numbers are refused, as Foundation refuses them.
public struct PrettyJSON {
    /// The order of each set of keys seen: the rows of a report share a few, and sorting them again for each row was
    /// a third of the writing.
    private var orders = KeyOrders()

    public init() {}

    /// `value` as JSON appended to `out`, its lines after the first indented by `depth` spaces (where it sits in the
    /// document around it).
    public mutating func write<T: Encodable>(_ value: T, depth: Int = 0, into out: inout [UInt8]) throws {
        let encoder = JSONTreeEncoder()
        try encoder.encodeHere(value)
        write(encoder.value ?? .object(JSONObject()), indent: depth, into: &out)
    }

    /// `value` as a document of its own, as `JSONEncoder.encode` gives it.
    public static func data<T: Encodable>(_ value: T) throws -> Data {
        var json = PrettyJSON()
        var out: [UInt8] = []
        try json.write(value, into: &out)
        return Data(out)
    }

    mutating func write(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): Self.appendDecimal(number, to: &out)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let text): Self.appendString(text, to: &out)
        case .deferred(let encoder): write(encoder.value ?? .object(JSONObject()), indent: indent, into: &out)
        case .array(let array):
            out.append(UInt8(ascii: "["))
            out.append(UInt8(ascii: "\n"))
            if array.elements.isEmpty { out.append(UInt8(ascii: "\n")) }
            for (index, element) in array.elements.enumerated() {
                Self.spaces(indent + 2, into: &out)
                write(element, indent: indent + 2, into: &out)
                if index < array.elements.count - 1 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\n"))
            }
            Self.spaces(indent, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            out.append(UInt8(ascii: "\n"))
            let order = orders.order(of: object.members)
            if order.isEmpty { out.append(UInt8(ascii: "\n")) }
            for (index, position) in order.enumerated() {
                let member = object.members[position]
                Self.spaces(indent + 2, into: &out)
                Self.appendString(member.key, to: &out)
                out.append(contentsOf: " : ".utf8)
                write(member.value, indent: indent + 2, into: &out)
                if index < order.count - 1 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\n"))
            }
            Self.spaces(indent, into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    static func spaces(_ count: Int, into out: inout [UInt8]) {
        for _ in 0..<count { out.append(UInt8(ascii: " ")) }
    }

    static func appendDecimal(_ number: Int64, to out: inout [UInt8]) {
        guard number != 0 else { return out.append(UInt8(ascii: "0")) }
        if number < 0 { out.append(UInt8(ascii: "-")) }
        // Digits from the low end, by magnitude (Int64.min has none of its own as a positive number).
        var magnitude = number.magnitude
        let start = out.count
        while magnitude > 0 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        out[start...].reverse()
    }

    /// A JSON string: quote, backslash and control characters escaped as Foundation escapes them; `/` as itself.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        // Runs of bytes that need no escape are copied whole.
        text.withUTF8 { bytes in
            var mark = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[mark..<index]))
                appendEscape(byte, to: &out)
                mark = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[mark...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
        case 0x0A: out.append(contentsOf: "\\n".utf8)
        case 0x0D: out.append(contentsOf: "\\r".utf8)
        case 0x09: out.append(contentsOf: "\\t".utf8)
        case 0x08: out.append(contentsOf: "\\b".utf8)
        case 0x0C: out.append(contentsOf: "\\f".utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: "\\u00".utf8)
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
    }

    /// A number as Foundation writes a floating-point one: its shortest description, without a trailing `.0`.
    static func number<F: BinaryFloatingPoint & CustomStringConvertible>(
        _ value: F, path: @autoclosure () -> [any CodingKey]
    ) throws
        -> JSONValue
    {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path(), debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(text)
    }
}

/// Sorted orders of key lists, most recent first: the members by their keys' UTF-8 bytes (Foundation's sorted-keys
/// order on Linux), and a key given twice only at its last place, as Foundation's dictionary keeps it.
struct KeyOrders {
    private var known: [(keys: [String], order: [Int])] = []

    mutating func order(of members: [(key: String, value: JSONValue)]) -> [Int] {
        if let found = known.firstIndex(where: { entry in
            entry.keys.count == members.count && zip(entry.keys, members).allSatisfy { $0 == $1.key }
        }) {
            return known[found].order
        }
        let sorted = members.indices.sorted { a, b in
            members[a].key == members[b].key
                ? a < b : members[a].key.utf8.lexicographicallyPrecedes(members[b].key.utf8)
        }
        var order: [Int] = []
        order.reserveCapacity(sorted.count)
        for position in sorted {
            if let last = order.last, members[last].key == members[position].key {
                order[order.count - 1] = position
            } else {
                order.append(position)
            }
        }
        // A handful of shapes per document; an encoder that makes up keys as it goes does not grow this without end.
        if known.count == 64 { known.removeLast() }
        known.insert((members.map(\.key), order), at: 0)
        return order
    }
}
