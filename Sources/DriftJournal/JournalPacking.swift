import DriftJobs
import DriftSupport
import Foundation
internal import GRDB

// Compact column values: a journal keeps one row per pair per night, so a hex digest kept as text (16 bytes) or a
// fingerprint kept as "SIZE:MTIME_NS:HASH" (about 45 bytes) costs more than the facts it holds. Each packs the
// canonical form into an integer or a fixed blob and stores anything else as the text it was, so packing never loses
// a value.

/// A 64-bit digest in one of driftfix's forms: bare hex (`FNV1a64.hex`: lowercase, no leading zeros; plan digests
/// and the output checksums of earlier releases), stored as one INTEGER, or an output checksum `xxh3:` and 16 hex
/// digits (`XXH3.text`), stored as an 8-byte BLOB, so the storage class keeps the algorithm.
struct PackedHex: Codable, DatabaseValueConvertible, Equatable {
    var text: String

    init(_ text: String) { self.text = text }

    var databaseValue: DatabaseValue {
        if let value = UInt64(text, radix: 16), String(value, radix: 16) == text {
            return Int64(bitPattern: value).databaseValue
        }
        if let value = XXH3.value(text) {
            return Data((0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) }).databaseValue
        }
        return text.databaseValue
    }

    static func fromDatabaseValue(_ value: DatabaseValue) -> PackedHex? {
        switch value.storage {
        case .int64(let number): PackedHex(String(UInt64(bitPattern: number), radix: 16))
        case .string(let text): PackedHex(text)
        case .blob(let data) where data.count == 8: PackedHex(XXH3.text(data.reduce(0) { $0 << 8 | UInt64($1) }))
        default: nil
        }
    }

    init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// A `FileFingerprint` ("SIZE:MTIME_NS:HASH"), stored as a 24-byte blob of three big-endian 64-bit words.
struct PackedPrint: Codable, DatabaseValueConvertible, Equatable {
    var text: String

    init(_ text: String) { self.text = text }

    var databaseValue: DatabaseValue {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 3, let size = UInt64(parts[0]), let modified = Int64(parts[1]),
            let hash = UInt64(parts[2], radix: 16), Self.render(size, modified, hash) == text
        {
            var bytes = [UInt8]()
            bytes.reserveCapacity(24)
            for word in [size, UInt64(bitPattern: modified), hash] {
                for shift in stride(from: 56, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
                }
            }
            return Data(bytes).databaseValue
        }
        return text.databaseValue
    }

    static func fromDatabaseValue(_ value: DatabaseValue) -> PackedPrint? {
        switch value.storage {
        case .blob(let data) where data.count == 24:
            let bytes = [UInt8](data)
            func word(_ index: Int) -> UInt64 { bytes[index * 8..<index * 8 + 8].reduce(0) { $0 << 8 | UInt64($1) } }
            return PackedPrint(render(word(0), Int64(bitPattern: word(1)), word(2)))
        case .string(let text): return PackedPrint(text)
        default: return nil
        }
    }

    private static func render(_ size: UInt64, _ modified: Int64, _ hash: UInt64) -> String {
        "\(size):\(modified):\(String(hash, radix: 16))"
    }

    init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

extension JobFingerprints {
    /// The plan's fingerprint: a digest of its description (the output path in it alone is longer than the digest).
    public static func digest(_ description: String) -> String {
        var hash = FNV1a64()
        var text = description
        text.withUTF8 { hash.update(UnsafeRawBufferPointer($0)) }
        return hash.hex
    }
}
