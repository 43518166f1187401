import Foundation

/// A value on its way to `PrettyJSON`. Objects and arrays are classes: a container handed out by an encoder keeps
/// adding to the same one.
enum JSONValue {
    case null
    case bool(Bool)
    case int(Int64)
    /// A number already written as JSON text (a floating-point value, an unsigned one too large for `int`).
    case number(String)
    case string(String)
    case array(JSONArray)
    case object(JSONObject)
    /// What a super-encoder was given, read when the tree is written.
    case deferred(JSONTreeEncoder)
}

final class JSONObject {
    var members: [(key: String, value: JSONValue)] = []
}

final class JSONArray {
    var elements: [JSONValue] = []
}

/// An `Encoder` that builds a `JSONValue` tree, with Foundation's `JSONEncoder` defaults for the types it treats
/// specially: a URL is its absolute string, Data is Base64, a Decimal its description; a Date (seconds since 2001)
/// and everything else encode themselves.
final class JSONTreeEncoder: Encoder {
    private let parent: JSONTreeEncoder?
    private let key: (any CodingKey)?
    var value: JSONValue?

    init(parent: JSONTreeEncoder? = nil, key: (any CodingKey)? = nil) {
        self.parent = parent
        self.key = key
    }

    // Worked out only when asked (an error message): most values are encoded without anyone asking.
    var codingPath: [any CodingKey] { (parent?.codingPath ?? []) + (key.map { [$0] } ?? []) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object(let object)? = value { return KeyedEncodingContainer(KeyedContainer(encoder: self, object)) }
        let object = JSONObject()
        value = .object(object)
        return KeyedEncodingContainer(KeyedContainer(encoder: self, object))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let array)? = value { return UnkeyedContainer(encoder: self, array) }
        let array = JSONArray()
        value = .array(array)
        return UnkeyedContainer(encoder: self, array)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }

    /// `value` as a tree, encoded at `key` below this encoder.
    func box<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> JSONValue {
        if let special = Self.special(value) { return special }
        let child = JSONTreeEncoder(parent: self, key: key)
        try value.encode(to: child)
        return child.value ?? .object(JSONObject())
    }

    /// Encodes `value` into this encoder itself (a single-value container's generic case).
    func encodeHere<T: Encodable>(_ value: T) throws {
        if let special = Self.special(value) {
            self.value = special
            return
        }
        try value.encode(to: self)
        if self.value == nil { self.value = .object(JSONObject()) }
    }

    private static func special<T: Encodable>(_ value: T) -> JSONValue? {
        // Comparing the static type first keeps the common case free of dynamic casts.
        if T.self == URL.self, let url = value as? URL { return .string(url.absoluteString) }
        if T.self == Data.self, let data = value as? Data { return .string(data.base64EncodedString()) }
        if T.self == Decimal.self, let decimal = value as? Decimal { return .number(decimal.description) }
        return nil
    }

    /// An optional string or number as a leaf, without an encoder of its own: a report row is mostly these.
    /// Recognised by its static type, so nothing is cast at run time.
    static func optionalLeaf<T: Encodable>(_ value: T, path: @autoclosure () -> [any CodingKey]) throws -> JSONValue? {
        if T.self == String?.self { return unsafeBitCast(value, to: String?.self).map(JSONValue.string) ?? .null }
        if T.self == Int?.self { return unsafeBitCast(value, to: Int?.self).map { .int(Int64($0)) } ?? .null }
        if T.self == Int64?.self { return unsafeBitCast(value, to: Int64?.self).map(JSONValue.int) ?? .null }
        if T.self == Double?.self {
            guard let number = unsafeBitCast(value, to: Double?.self) else { return .null }
            return try PrettyJSON.number(number, path: path())
        }
        return nil
    }

    static func integer<I: BinaryInteger>(_ number: I) -> JSONValue {
        Int64(exactly: number).map(JSONValue.int) ?? .number(String(number))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONTreeEncoder
    let object: JSONObject
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: JSONTreeEncoder, _ object: JSONObject) {
        self.encoder = encoder
        self.object = object
    }

    private func put(_ value: JSONValue, _ key: Key) { object.members.append((key.stringValue, value)) }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        put(try PrettyJSON.number(value, path: codingPath + [key]), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try PrettyJSON.number(value, path: codingPath + [key]), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(JSONTreeEncoder.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(JSONTreeEncoder.integer(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let leaf = try JSONTreeEncoder.optionalLeaf(value, path: codingPath + [key]) { return put(leaf, key) }
        put(try encoder.box(value, key: key), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = JSONObject()
        put(.object(nested), key)
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(encoder: JSONTreeEncoder(parent: encoder, key: key), nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONArray()
        put(.array(nested), key)
        return UnkeyedContainer(encoder: JSONTreeEncoder(parent: encoder, key: key), nested)
    }

    mutating func superEncoder() -> any Encoder {
        let child = JSONTreeEncoder(parent: encoder, key: SuperKey())
        object.members.append(("super", .deferred(child)))
        return child
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = JSONTreeEncoder(parent: encoder, key: key)
        put(.deferred(child), key)
        return child
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONTreeEncoder
    let array: JSONArray
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { array.elements.count }

    init(encoder: JSONTreeEncoder, _ array: JSONArray) {
        self.encoder = encoder
        self.array = array
    }

    private var key: IndexKey { IndexKey(intValue: count) }

    mutating func encodeNil() throws { array.elements.append(.null) }
    mutating func encode(_ value: Bool) throws { array.elements.append(.bool(value)) }
    mutating func encode(_ value: String) throws { array.elements.append(.string(value)) }
    mutating func encode(_ value: Double) throws {
        array.elements.append(try PrettyJSON.number(value, path: codingPath + [key]))
    }
    mutating func encode(_ value: Float) throws {
        array.elements.append(try PrettyJSON.number(value, path: codingPath + [key]))
    }
    mutating func encode(_ value: Int) throws { array.elements.append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { array.elements.append(.int(value)) }
    mutating func encode(_ value: UInt64) throws { array.elements.append(JSONTreeEncoder.integer(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        array.elements.append(try encoder.box(value, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = JSONObject()
        let child = JSONTreeEncoder(parent: encoder, key: key)
        array.elements.append(.object(nested))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: child, nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArray()
        let child = JSONTreeEncoder(parent: encoder, key: key)
        array.elements.append(.array(nested))
        return UnkeyedContainer(encoder: child, nested)
    }

    mutating func superEncoder() -> any Encoder {
        let child = JSONTreeEncoder(parent: encoder, key: key)
        array.elements.append(.deferred(child))
        return child
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let encoder: JSONTreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.value = .null }
    mutating func encode(_ value: Bool) throws { encoder.value = .bool(value) }
    mutating func encode(_ value: String) throws { encoder.value = .string(value) }
    mutating func encode(_ value: Double) throws { encoder.value = try PrettyJSON.number(value, path: codingPath) }
    mutating func encode(_ value: Float) throws { encoder.value = try PrettyJSON.number(value, path: codingPath) }
    mutating func encode(_ value: Int) throws { encoder.value = .int(Int64(value)) }
    mutating func encode(_ value: Int8) throws { encoder.value = .int(Int64(value)) }
    mutating func encode(_ value: Int16) throws { encoder.value = .int(Int64(value)) }
    mutating func encode(_ value: Int32) throws { encoder.value = .int(Int64(value)) }
    mutating func encode(_ value: Int64) throws { encoder.value = .int(value) }
    mutating func encode(_ value: UInt) throws { encoder.value = JSONTreeEncoder.integer(value) }
    mutating func encode(_ value: UInt8) throws { encoder.value = .int(Int64(value)) }
    mutating func encode(_ value: UInt16) throws { encoder.value = .int(Int64(value)) }
    mutating func encode(_ value: UInt32) throws { encoder.value = .int(Int64(value)) }
    mutating func encode(_ value: UInt64) throws { encoder.value = JSONTreeEncoder.integer(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeHere(value) }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}
