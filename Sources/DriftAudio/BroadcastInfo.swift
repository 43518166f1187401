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

    /// Appends one coding-history line, CR/LF terminated as EBU Tech 3285 asks.
    public mutating func appendCodingHistory(_ line: String) {
        codingHistory += line + "\r\n"
    }
}
