internal import CSndFile

// The bext struct has a variable-length coding history, so it is handled as raw bytes at the offsets of the C
// struct, with room for a long history (SF_BROADCAST_INFO_VAR).
extension SndFile {
    private static let maxCodingHistory = 16 * 1024
    /// The byte offset of a field of the C struct (all are stored properties, so the offset always exists).
    private static func at(_ field: PartialKeyPath<SF_BROADCAST_INFO>) -> Int {
        guard let offset = MemoryLayout<SF_BROADCAST_INFO>.offset(of: field) else {
            preconditionFailure("SF_BROADCAST_INFO field without a stored offset")
        }
        return offset
    }

    private static let historyOffset = at(\.coding_history)
    private static let historySizeOffset = at(\.coding_history_size)

    private struct Field {
        let offset: Int
        let length: Int
    }
    private static let description = Field(offset: at(\.description), length: 256)
    private static let originator = Field(offset: at(\.originator), length: 32)
    private static let originatorReference = Field(offset: at(\.originator_reference), length: 32)
    private static let originationDate = Field(offset: at(\.origination_date), length: 10)
    private static let originationTime = Field(offset: at(\.origination_time), length: 8)
    private static let umid = Field(offset: at(\.umid), length: 64)

    static func readBroadcastInfo(_ handle: OpaquePointer) -> BroadcastInfo? {
        let size = historyOffset + maxCodingHistory
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0)
        guard sf_command(handle, Int32(SFC_GET_BROADCAST_INFO), raw.baseAddress, Int32(size)) == SF_TRUE else {
            return nil
        }
        func text(_ field: Field) -> String {
            let bytes = raw[field.offset..<field.offset + field.length]
            let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
            return String(decoding: raw[field.offset..<end], as: UTF8.self)
        }
        func load<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
            raw.loadUnaligned(fromByteOffset: offset, as: T.self)
        }
        let low = UInt64(load(at(\.time_reference_low), as: UInt32.self))
        let high = UInt64(load(at(\.time_reference_high), as: UInt32.self))
        let historyLength = min(Int(load(historySizeOffset, as: UInt32.self)), maxCodingHistory)
        let historyBytes = raw[historyOffset..<historyOffset + historyLength]
        let historyEnd = historyBytes.firstIndex(of: 0) ?? historyBytes.endIndex
        return BroadcastInfo(
            description: text(description),
            originator: text(originator),
            originatorReference: text(originatorReference),
            originationDate: text(originationDate),
            originationTime: text(originationTime),
            timeReference: high << 32 | low,
            version: load(at(\.version), as: Int16.self),
            umid: Array(raw[umid.offset..<umid.offset + umid.length]),
            loudnessValue: load(at(\.loudness_value), as: Int16.self),
            loudnessRange: load(at(\.loudness_range), as: Int16.self),
            maxTruePeakLevel: load(
                at(\.max_true_peak_level), as: Int16.self),
            maxMomentaryLoudness: load(
                at(\.max_momentary_loudness), as: Int16.self),
            maxShortTermLoudness: load(
                at(\.max_shortterm_loudness), as: Int16.self),
            codingHistory: String(decoding: raw[historyOffset..<historyEnd], as: UTF8.self)
        )
    }

    static func writeBroadcastInfo(_ handle: OpaquePointer, _ info: BroadcastInfo) -> Bool {
        let history = Array(info.codingHistory.utf8.prefix(maxCodingHistory))
        // The chunk's history is padded to an even length; libsndfile expects the size it should write.
        let size = historyOffset + max(history.count + 1, 256)
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0)
        func put(_ text: String, _ field: Field) {
            for (i, byte) in text.utf8.prefix(field.length).enumerated() { raw[field.offset + i] = byte }
        }
        func store<T: FixedWidthInteger>(_ value: T, _ offset: Int) {
            raw.storeBytes(of: value, toByteOffset: offset, as: T.self)
        }
        put(info.description, description)
        put(info.originator, originator)
        put(info.originatorReference, originatorReference)
        put(info.originationDate, originationDate)
        put(info.originationTime, originationTime)
        store(UInt32(truncatingIfNeeded: info.timeReference), at(\.time_reference_low))
        store(UInt32(truncatingIfNeeded: info.timeReference >> 32), at(\.time_reference_high))
        store(info.version, at(\.version))
        for (i, byte) in info.umid.prefix(umid.length).enumerated() { raw[umid.offset + i] = byte }
        store(info.loudnessValue, at(\.loudness_value))
        store(info.loudnessRange, at(\.loudness_range))
        store(info.maxTruePeakLevel, at(\.max_true_peak_level))
        store(info.maxMomentaryLoudness, at(\.max_momentary_loudness))
        store(info.maxShortTermLoudness, at(\.max_shortterm_loudness))
        store(UInt32(history.count), historySizeOffset)
        for (i, byte) in history.enumerated() { raw[historyOffset + i] = byte }
        return sf_command(handle, Int32(SFC_SET_BROADCAST_INFO), raw.baseAddress, Int32(size)) == SF_TRUE
    }
}
