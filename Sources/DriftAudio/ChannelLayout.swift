/// Which loudspeaker each channel feeds, as the file states it.
public struct ChannelLayout: Equatable, Sendable, CustomStringConvertible {
    /// libsndfile's channel positions (its SF_CHANNEL_MAP values), one per channel.
    let positions: [Int32]
    /// The WAVE_FORMAT_EXTENSIBLE speaker mask exactly as stored, for WAV files that have one.
    public let waveMask: UInt32?

    /// Short speaker names (L R C LFE BL BR, SL SR for side channels), then the WAV mask in hex.
    public var description: String {
        let names = positions.map { ChannelLayout.names.indices.contains(Int($0)) ? ChannelLayout.names[Int($0)] : "?" }
        return names.joined(separator: " ")
            + (waveMask.map { " (mask 0x" + String($0, radix: 16, uppercase: true) + ")" } ?? "")
    }

    /// Whether this is what a file with this many channels means by default (the WAV masks libsndfile and ffmpeg
    /// write for the count; mono or stereo positions): losing it loses nothing, so it draws no warning.
    var isDefault: Bool {
        if let waveMask { return ChannelLayout.defaultMasks[positions.count] == waveMask }
        let plain: [[Int32]] = [[0], [1], [4], [7], [2, 3], [5, 6]]
        return positions.allSatisfy { $0 == 0 } || plain.contains(positions)
    }

    /// WAVE_FORMAT_EXTENSIBLE masks for 1, 2, 4, 6 and 8 channels (mono, stereo, quad, 5.1, 7.1).
    static let defaultMasks: [Int: UInt32] = [1: 0x4, 2: 0x3, 4: 0x33, 6: 0x3F, 8: 0xFF]

    /// By SF_CHANNEL_MAP value (0 is "unassigned").
    static let names = [
        "-", "M", "L", "R", "C", "FL", "FR", "FC", "BC", "BL", "BR", "LFE", "FLC", "FRC", "SL", "SR", "TC",
        "TFL", "TFR", "TFC", "TBL", "TBR", "TBC", "W", "X", "Y", "Z",
    ]
}
