/// A place where a reference's sound was heard in a recording, found from their prints alone: the matcher's finding
/// as a job carries it (what makes it clear is `DriftSync`'s rule, `SoundCandidate.isClear`).
public struct SoundCandidate: Codable, Sendable, Equatable {
    /// The recording's index among the matcher's recordings.
    public var recording: Int
    /// Recording time of the reference's first moment, seconds, to 10 ms (negative: the recording started after the
    /// reference did).
    package var startSeconds: Double
    /// How far the place stands above every other place in this recording (a z-score; ~5 at random).
    public var clarity: Double
    /// The best other place, relative to this one (near 1: a repeating sound that fits in many places).
    public var ambiguity: Double
    /// The share of the reference the recording covers at this place (1: all of it).
    public var coverage: Double
    /// For a short clip whose place stood out a little: clarity and ambiguity of the full-rate prints within
    /// ±`SoundMatcher.sharpReach` of it (nil where not looked at).
    public var sharpClarity: Double?
    public var sharpAmbiguity: Double?
    /// Found by the pitch classes (music), not the onsets: `clarity` and `ambiguity` are theirs. nil: by the onsets.
    public var byHarmony: Bool?
    /// Other places in the same recording that stand out as clearly by the same print (the sound occurs there too):
    /// how many, the ones not listed included.
    public var rivals: Int?
    /// Not clear, but the best the pitch classes found for a clip no recording heard clearly: worth one measurement
    /// (music that repeats its harmony stands out less; the measurement, on the sound itself, decides).
    public var tentative: Bool?

    /// One of the places where a sound that stands out clearly is heard again and again (its best place as clear as a
    /// place must be, with rivals as high as itself): each is measured, and the measurement compares them.
    public var repeated: Bool?

    package init(
        recording: Int, startSeconds: Double, clarity: Double, ambiguity: Double, coverage: Double,
        sharpClarity: Double? = nil, sharpAmbiguity: Double? = nil
    ) {
        self.recording = recording
        self.startSeconds = startSeconds
        self.clarity = clarity
        self.ambiguity = ambiguity
        self.coverage = coverage
        self.sharpClarity = sharpClarity
        self.sharpAmbiguity = sharpAmbiguity
    }
}
