/// Reads and writes the fixed-width integers of a chunk's payload in one byte order (RIFF's little, IFF's big),
/// bounds-checked: a read past the end is nil, never a trap.
struct ChunkBytes {
    var bytes: [UInt8]
    let bigEndian: Bool

    init(_ bytes: [UInt8], bigEndian: Bool = false) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    var count: Int { bytes.count }

    func unsigned(at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, width > 0, offset + width <= bytes.count else { return nil }
        var value: UInt64 = 0
        for index in 0..<width {
            let byte = UInt64(bytes[bigEndian ? offset + index : offset + width - 1 - index])
            value = value << 8 | byte
        }
        return value
    }

    func u16(at offset: Int) -> UInt16? { unsigned(at: offset, width: 2).map { UInt16($0) } }
    func u32(at offset: Int) -> UInt32? { unsigned(at: offset, width: 4).map { UInt32($0) } }
    func u64(at offset: Int) -> UInt64? { unsigned(at: offset, width: 8) }

    /// Four characters at `offset`.
    func fourCC(at offset: Int) -> String? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    mutating func set(_ value: UInt64, at offset: Int, width: Int) {
        precondition(offset >= 0 && offset + width <= bytes.count, "field outside the payload")
        for index in 0..<width {
            let shift = UInt64(8 * (bigEndian ? width - 1 - index : index))
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> shift)
        }
    }

    static func encode(_ value: UInt64, width: Int, bigEndian: Bool) -> [UInt8] {
        var field = ChunkBytes([UInt8](repeating: 0, count: width), bigEndian: bigEndian)
        field.set(value, at: 0, width: width)
        return field.bytes
    }

    /// A chunk with its 8-byte header (`id`, size in this order) and the pad byte an odd payload needs.
    static func framed(_ id: String, _ payload: [UInt8], bigEndian: Bool) -> [UInt8] {
        Array(id.utf8.prefix(4)) + encode(UInt64(payload.count), width: 4, bigEndian: bigEndian) + payload
            + (payload.count % 2 == 1 ? [0] : [])
    }
}
