internal import CXXHash
import Glibc

/// XXH3, 64 bits (xxHash 0.8, libxxhash): the checksum of repaired files and of copied packets. It runs at memory
/// speed (FNV-1a, before, went a byte at a time). Not cryptographic: it detects change, not tampering.
public enum XXH3 {
    /// The checksum of an open regular file's bytes as reports show it, `xxh3:` and 16 hex digits: the value
    /// `xxhsum -H3 FILE` prints. Nil if the file cannot be read to its end. The descriptor is closed.
    public static func file(descriptor: Int32) -> String? {
        defer { close(descriptor) }
        guard let state = XXH3_createState() else { return nil }
        defer { XXH3_freeState(state) }
        guard XXH3_64bits_reset(state) == XXH_OK else { return nil }
        let blockSize = 4 << 20
        let block = UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 64)
        defer { block.deallocate() }
        while true {
            let count = read(descriptor, block, blockSize)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            guard XXH3_64bits_update(state, block, count) == XXH_OK else { return nil }
        }
        return text(XXH3_64bits_digest(state))
    }

    /// `xxh3:` and the value as 16 hex digits, most significant first (xxHash's canonical form).
    public static func text(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "xxh3:" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The value of a text `text(_:)` made, or nil.
    public static func value(_ text: String) -> UInt64? {
        guard text.hasPrefix("xxh3:"), text.utf8.count == 21 else { return nil }
        let digits = text.dropFirst(5)
        guard digits.allSatisfy({ $0.isHexDigit && !$0.isUppercase }), let value = UInt64(digits, radix: 16) else {
            return nil
        }
        return value
    }

    /// A hash chained over a sequence of byte runs (packets, in order): each run is hashed seeded with the hash
    /// so far, so order and boundaries count.
    public struct Chain: Sendable, Equatable {
        public private(set) var value: UInt64 = 0

        public init() {}

        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            value = XXH3_64bits_withSeed(bytes.baseAddress, bytes.count, value)
        }
    }
}
