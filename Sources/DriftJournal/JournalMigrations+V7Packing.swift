import Foundation
internal import GRDB

/// The v7 migration's SQL functions, as v7 packed: copies, not calls of the live packing (JournalPacking.swift), which
/// has changed since (an output checksum `xxh3:…` is a blob there now) and may change again, while a migration that
/// has run on users' journals must do the same thing on the next one it meets. Never edit these.
enum V7Packing {
    static let functions: [DatabaseFunction] = [
        DatabaseFunction("driftfix_hex", argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0]).map(hex) ?? DatabaseValue.null
        },
        DatabaseFunction("driftfix_print", argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0]).map(print) ?? DatabaseValue.null
        },
        DatabaseFunction("driftfix_plan_digest", argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0]).map { hex(planDigest($0)) } ?? DatabaseValue.null
        },
    ]

    /// Bare lowercase hex without leading zeros as one INTEGER; anything else as its text.
    static func hex(_ text: String) -> DatabaseValue {
        if let value = UInt64(text, radix: 16), String(value, radix: 16) == text {
            return Int64(bitPattern: value).databaseValue
        }
        return text.databaseValue
    }

    /// "SIZE:MTIME_NS:HASH" in its canonical form as a 24-byte blob of three big-endian words; anything else as text.
    static func print(_ text: String) -> DatabaseValue {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let size = UInt64(parts[0]), let modified = Int64(parts[1]),
            let hash = UInt64(parts[2], radix: 16), "\(size):\(modified):\(String(hash, radix: 16))" == text
        else { return text.databaseValue }
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        for word in [size, UInt64(bitPattern: modified), hash] {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Data(bytes).databaseValue
    }

    /// The plan's digest as v7 made it: FNV-1a 64 of the description's UTF-8, in bare hex.
    static func planDigest(_ description: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in description.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return String(hash, radix: 16)
    }
}
