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
    /// The recording's chunks (WAV, RF64, AIFF), carried into an output of the same family byte for byte; the bext
    /// and tags above are then what they say, not written a second time.
    public var chunks: RecordingChunks?

    public init(
        tags: [AudioTag: String] = [:], broadcastInfo: BroadcastInfo? = nil, channelLayout: ChannelLayout? = nil
    ) {
        self.tags = tags
        self.broadcastInfo = broadcastInfo
        self.channelLayout = channelLayout
    }

    /// The metadata for the repaired copy: the bext time reference moved to the output's first sample (at the
    /// output's rate) and its coding history extended, the chunks retimed (`RecordingChunks.retimed`). The notes
    /// say what could not stay as it was: chunks left out, marks moved off their sound.
    public func retimed(_ retiming: ChunkRetiming) -> (metadata: AudioMetadata, notes: [String]) {
        var copy = self
        if var bext = broadcastInfo {
            bext.timeReference = retiming.startSamples(
                recordingStart: bext.timeReference, countedAt: retiming.inputRate, newRate: retiming.outputRate)
            if let history = retiming.history { bext.appendCodingHistory(history) }
            copy.broadcastInfo = bext
        }
        guard let chunks else { return (copy, []) }
        let (retimed, notes) = chunks.retimed(retiming)
        copy.chunks = retimed
        return (copy, chunks.notCarried + chunks.carriedUnedited + notes)
    }
}

extension UInt64 {
    init(clamping value: Int128) {
        self = value < 0 ? 0 : value > Int128(UInt64.max) ? UInt64.max : UInt64(value)
    }
}
