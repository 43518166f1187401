import DriftFixtures
import DriftReports
import Foundation
import Testing

/// The report's own JSON writer against Foundation's `JSONEncoder` (pretty, sorted keys, slashes unescaped), byte for
/// byte, on random trees of every kind of value a Codable type can hand an encoder: each primitive through its own
/// container method, nested and super containers, keys that sort differently by bytes and by locale, strings with
/// control characters, quotes and emoji, and floating-point numbers from their bits.
@Suite("PrettyJSON: the same bytes as JSONEncoder")
struct PrettyJSONTests {
    static let foundation: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func same<T: Encodable>(_ value: T, _ comment: Comment? = nil) throws {
        let ours = try PrettyJSON.data(value)
        let theirs = try foundation.encode(value)
        #expect(
            ours == theirs,
            "\(comment?.rawValue ?? "")\n\(String(decoding: ours, as: UTF8.self))\n---\n\(String(decoding: theirs, as: UTF8.self))"
        )
    }

    @Test("random trees, seeded")
    func randomTrees() throws {
        var bytes = 0
        for seed in UInt64(0)..<300 {
            var generator = SplitMix64(seed: seed &+ 1)
            let tree = Node.random(depth: 0, using: &generator)
            try Self.same(tree, "seed \(seed)")
            bytes += try PrettyJSON.data(tree).count
        }
        #expect(bytes > 30_000, "the trees are big enough to say something")
    }

    @Test("floating-point numbers from random bits, and the awkward ones")
    func numbers() throws {
        var generator = SplitMix64(seed: 99)
        var doubles: [Double] = [
            0, -0.0, 1, -1, 0.1, 1e16, 1e-7, 123_456_789_012_345_680, .ulpOfOne, .leastNonzeroMagnitude,
            .leastNormalMagnitude, .greatestFiniteMagnitude, 100, -2.5, 1e21, 1e22, 5e-324,
        ]
        while doubles.count < 2_000 {
            let value = Double(bitPattern: generator.next())
            if value.isFinite { doubles.append(value) }
        }
        try Self.same(doubles)
        try Self.same(doubles.map { Float($0) }.filter(\.isFinite))
        try Self.same([Int64.min, Int64.max, 0, -1])
        try Self.same([UInt64.max, 0])
    }

    @Test("special types keep Foundation's defaults: URL, Data, Date, Decimal")
    func specialTypes() throws {
        try Self.same(Special())
    }

    @Test("optional strings and numbers given explicitly: null when absent, the value when present")
    func optionals() throws {
        try Self.same(Optionals(text: "a/b", count: -3, frames: .max, seconds: 1e-9))
        try Self.same(Optionals(text: nil, count: nil, frames: nil, seconds: nil))
        #expect(throws: EncodingError.self) {
            try PrettyJSON.data(Optionals(text: nil, count: nil, frames: nil, seconds: .nan))
        }
    }

    @Test("a non-finite number is refused, as Foundation refuses it")
    func nonFinite() {
        #expect(throws: EncodingError.self) { try PrettyJSON.data([Double.nan]) }
        #expect(throws: EncodingError.self) { try PrettyJSON.data(["x": Double.infinity]) }
    }

    @Test("a key encoded twice keeps its last value")
    func duplicateKeys() throws {
        try Self.same(Node.object([("a", .int(1)), ("b", .string("x")), ("a", .string("last"))]))
    }
}

struct Special: Encodable {
    let url = URL(string: "https://example.invalid/a b?c=d")
    let file = URL(fileURLWithPath: "/media/cam/take 1.wav")
    let data = Data([0, 1, 2, 250, 251, 255])
    let date = Date(timeIntervalSinceReferenceDate: 12_345.678)
    let decimal = Decimal(string: "12345.678901234567890")
    let optionalURL: URL? = URL(string: "file:///x")
    let urls = [URL(string: "a/b")!]
}

/// A row's shape: optionals encoded with `encode`, not `encodeIfPresent`, so that absent ones are null.
struct Optionals: Encodable {
    let text: String?
    let count: Int?
    let frames: Int64?
    let seconds: Double?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(text, forKey: AnyKey("text"))
        try container.encode(count, forKey: AnyKey("count"))
        try container.encode(frames, forKey: AnyKey("frames"))
        try container.encode(seconds, forKey: AnyKey("seconds"))
    }
}

struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A random value, encoded through every container method Codable offers.
indirect enum Node: Encodable {
    case null
    case bool(Bool)
    case int(Int)
    case int8(Int8)
    case uint32(UInt32)
    case uint64(UInt64)
    case double(Double)
    case float(Float)
    case string(String)
    case array([Node])
    case object([(String, Node)])
    case nested([(String, Node)])
    case withSuper(Node)
    case optional(Node?)

    static let keys = [
        "a", "B", "b", "a1", "a10", "a2", "_x", "é", "Z", "", "key with space", "super", "Ab", "aB", "x-y", "ä", "0",
    ]
    static let pieces = [
        "a", "é", "😀", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{8}", "\u{C}", "x",
    ]

    static func random(depth: Int, using generator: inout SplitMix64) -> Node {
        let leaf = depth > 3 || Int.random(in: 0..<3, using: &generator) == 0
        if leaf {
            switch Int.random(in: 0..<9, using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .int(Int.random(in: Int.min...Int.max, using: &generator))
            case 3: return .int8(Int8.random(in: Int8.min...Int8.max, using: &generator))
            case 4: return .uint64(UInt64.random(in: UInt64.min...UInt64.max, using: &generator))
            case 5: return .double(Double.random(in: -1e6...1e6, using: &generator))
            case 6: return .float(Float.random(in: -1e3...1e3, using: &generator))
            case 7: return .uint32(UInt32.random(in: 0...UInt32.max, using: &generator))
            default:
                return .string(
                    (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                        .joined())
            }
        }
        let count = Int.random(in: 0...4, using: &generator)
        let children = (0..<count).map { _ in random(depth: depth + 1, using: &generator) }
        var names = keys.shuffled(using: &generator).prefix(count).makeIterator()
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: return .array(children)
        case 1: return .nested(children.map { (names.next()!, $0) })
        case 2: return .withSuper(children.first ?? .null)
        case 3: return .optional(children.first)
        default: return .object(children.map { (names.next()!, $0) })
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try element.encodeElement(into: &container) }
        case .object(let members):
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in members { try value.encodeMember(AnyKey(key), into: &container) }
        case .nested(let members):
            var container = encoder.container(keyedBy: AnyKey.self)
            var inner = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("inner"))
            for (key, value) in members { try value.encodeMember(AnyKey(key), into: &inner) }
            var list = container.nestedUnkeyedContainer(forKey: AnyKey("list"))
            for (_, value) in members { try value.encodeElement(into: &list) }
        case .withSuper(let value):
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(1, forKey: AnyKey("own"))
            try value.encode(to: container.superEncoder())
            try value.encode(to: container.superEncoder(forKey: AnyKey("parent")))
        case .optional(let value):
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encodeIfPresent(value, forKey: AnyKey("maybe"))
            try container.encode(value, forKey: AnyKey("always"))
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .int8(let value): try container.encode(value)
            case .uint32(let value): try container.encode(value)
            case .uint64(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .float(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            default: break
            }
        }
    }

    /// A leaf through the keyed container's own method for its type; anything else through the generic one.
    func encodeMember(_ key: AnyKey, into container: inout KeyedEncodingContainer<AnyKey>) throws {
        switch self {
        case .null: try container.encodeNil(forKey: key)
        case .bool(let value): try container.encode(value, forKey: key)
        case .int(let value): try container.encode(value, forKey: key)
        case .int8(let value): try container.encode(value, forKey: key)
        case .uint32(let value): try container.encode(value, forKey: key)
        case .uint64(let value): try container.encode(value, forKey: key)
        case .double(let value): try container.encode(value, forKey: key)
        case .float(let value): try container.encode(value, forKey: key)
        case .string(let value): try container.encode(value, forKey: key)
        default: try container.encode(self, forKey: key)
        }
    }

    func encodeElement(into container: inout any UnkeyedEncodingContainer) throws {
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .int8(let value): try container.encode(value)
        case .uint32(let value): try container.encode(value)
        case .uint64(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .float(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let elements):
            var nested = container.nestedUnkeyedContainer()
            for element in elements { try element.encodeElement(into: &nested) }
        case .object(let members):
            var nested = container.nestedContainer(keyedBy: AnyKey.self)
            for (key, value) in members { try value.encodeMember(AnyKey(key), into: &nested) }
        default: try container.encode(self)
        }
    }
}
