/// FNV-1a, 64 bits: the checksum of sampled blocks in journal fingerprints (and of repaired files before XXH3). Not
/// cryptographic: it detects change, not tampering.
public struct FNV1a64: Sendable, Equatable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        value = hash
    }

    /// The value in lowercase hex, as reports show it.
    public var hex: String { String(value, radix: 16) }
}
