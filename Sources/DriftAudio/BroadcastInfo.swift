/// The EBU Broadcast Wave `bext` chunk (EBU Tech 3285).
public struct BroadcastInfo: Equatable, Sendable {
    public var description: String
    public var originator: String
    public var originatorReference: String
    /// `yyyy-mm-dd`.
    public var originationDate: String
    /// `hh:mm:ss`.
    public var originationTime: String
    /// Frames since midnight at the file's sample rate for the first frame of the file.
    public var timeReference: UInt64
    public var version: Int16
    /// SMPTE UMID, 64 bytes.
    public var umid: [UInt8]
    public var loudnessValue: Int16
    public var loudnessRange: Int16
    public var maxTruePeakLevel: Int16
    public var maxMomentaryLoudness: Int16
    public var maxShortTermLoudness: Int16
    /// Free text, one line per process the audio went through (`A=PCM,F=48000,W=24,...`).
    public var codingHistory: String

    public init(
        description: String = "", originator: String = "", originatorReference: String = "",
        originationDate: String = "", originationTime: String = "", timeReference: UInt64 = 0, version: Int16 = 1,
        umid: [UInt8] = Array(repeating: 0, count: 64), loudnessValue: Int16 = 0, loudnessRange: Int16 = 0,
        maxTruePeakLevel: Int16 = 0, maxMomentaryLoudness: Int16 = 0, maxShortTermLoudness: Int16 = 0,
        codingHistory: String = ""
    ) {
        self.description = description
        self.originator = originator
        self.originatorReference = originatorReference
        self.originationDate = originationDate
        self.originationTime = originationTime
        self.timeReference = timeReference
        self.version = version
        self.umid = umid
        self.loudnessValue = loudnessValue
        self.loudnessRange = loudnessRange
        self.maxTruePeakLevel = maxTruePeakLevel
        self.maxMomentaryLoudness = maxMomentaryLoudness
        self.maxShortTermLoudness = maxShortTermLoudness
        self.codingHistory = codingHistory
    }

    /// Appends one coding-history line, CR/LF terminated as EBU Tech 3285 and EBU R98 ask. Every earlier line ends
    /// in CR LF too, so a history whose last line lacked its terminator is not glued to the new one.
    public mutating func appendCodingHistory(_ line: String) {
        codingHistory = BroadcastInfo.withCRLF(codingHistory) + line + "\r\n"
    }

    /// `text` with each line ending in CR LF (lone CR or LF, and LF CR, become CR LF; a missing final one is added).
    static func withCRLF(_ text: String) -> String {
        guard !text.isEmpty else { return text }
        var result = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            if scalar == "\r" || scalar == "\n" {
                // A pair (CR LF or LF CR) is one line end.
                if let next = pending, next == "\r" || next == "\n", next != scalar { pending = scalars.next() }
                result += "\r\n"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        if !result.hasSuffix("\r\n") { result += "\r\n" }
        return result
    }
}
