/// The string tags libsndfile reads and writes (WAV LIST/INFO, AIFF, FLAC/Vorbis comments, ...).
public enum AudioTag: Int32, CaseIterable, Sendable, Codable {
    case title = 0x01
    case copyright = 0x02
    case software = 0x03
    case artist = 0x04
    case comment = 0x05
    case date = 0x06
    case album = 0x07
    case license = 0x08
    case trackNumber = 0x09
    case genre = 0x10
}

/// Metadata that driftfix carries from a recording to its repaired copy.
public struct AudioMetadata: Equatable, Sendable {
    public var tags: [AudioTag: String] = [:]
    /// The BWF `bext` chunk, when present.
    public var broadcastInfo: BroadcastInfo?
    /// The loudspeaker layout, when the file states one.
    public var channelLayout: ChannelLayout?

    public init(
        tags: [AudioTag: String] = [:], broadcastInfo: BroadcastInfo? = nil, channelLayout: ChannelLayout? = nil
    ) {
        self.tags = tags
        self.broadcastInfo = broadcastInfo
        self.channelLayout = channelLayout
    }

    /// The metadata for a copy made by resampling or
    /// stretching: the bext time reference (the first sample's time of day, in samples at the file's rate) keeps
    /// meaning the same instant, so it scales only with a change of sample rate; `history` is appended to the
    /// bext coding history.
    public func adapted(inputRate: Int, outputRate: Int, history: String?) -> AudioMetadata {
        var copy = self
        if var bext = broadcastInfo {
            if inputRate != outputRate {
                let scaled = Int128(bext.timeReference) * Int128(outputRate) / Int128(inputRate)
                bext.timeReference = UInt64(clamping: scaled)
            }
            if let history {
                bext.appendCodingHistory(history)
            }
            copy.broadcastInfo = bext
        }
        return copy
    }
}

extension UInt64 {
    init(clamping value: Int128) {
        self = value < 0 ? 0 : value > Int128(UInt64.max) ? UInt64.max : UInt64(value)
    }
}
