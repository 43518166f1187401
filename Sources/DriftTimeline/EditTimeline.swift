import DriftCore
import DriftSchema

/// A timeline an editor opens: tracks of clips placed in time, each clip a stretch of a media file, with markers and
/// metadata. Times are exact: places on the timeline in flicks (1/705,600,000 s, which every film, video and audio
/// rate in use divides: 24000/1001 fps is 29,429,400 flicks a frame, 48 kHz 14,700 a sample), stretches of media as
/// whole frames or samples at the media's own rate. The writers turn it into OpenTimelineIO, FCPXML or CMX3600.
public struct EditTimeline: Sendable, Equatable {
    public var name: String
    /// The edit rate: frames per second of the timeline (its first camera's).
    public var rate: Rational
    /// Video tracks first, then audio; items in each in time order, never overlapping.
    public var tracks: [Track]
    /// Markers on the timeline itself, at timeline places.
    public var markers: [Marker] = []
    public var metadata: [(String, TimelineValue)] = []

    public static func == (lhs: EditTimeline, rhs: EditTimeline) -> Bool {
        lhs.name == rhs.name && lhs.rate == rhs.rate && lhs.tracks == rhs.tracks && lhs.markers == rhs.markers
            && TimelineValue.object(lhs.metadata) == TimelineValue.object(rhs.metadata)
    }

    /// Where the timeline ends, flicks.
    public var end: Int64 { tracks.flatMap(\.items).map(\.end).max() ?? 0 }

    public struct Track: Sendable, Equatable {
        public enum Kind: String, Sendable { case video, audio }
        public var name: String
        public var kind: Kind
        public var items: [Item]
    }

    /// A stretch of a media file placed on a track.
    public struct Item: Sendable, Equatable {
        public var name: String
        public var media: Media
        /// The timeline place of its first moment, flicks.
        public var position: Int64
        /// Its first frame or sample in the media, counted from the media's first (0), at the media's rate.
        public var sourceStart: Int64
        /// Frames or samples, at the media's rate.
        public var duration: Int64
        /// Markers at places in the item, counted from its first frame or sample (units of the media's rate).
        public var markers: [Marker] = []
        public var metadata: [(String, TimelineValue)] = []
        /// The clip (its media's path) this audio belongs to, for formats that group them (an EDL per camera).
        public var clip: String?

        /// Where it ends on the timeline, flicks.
        public var end: Int64 { position + Flicks.of(duration, at: media.rate) }

        public static func == (lhs: Item, rhs: Item) -> Bool {
            lhs.name == rhs.name && lhs.media == rhs.media && lhs.position == rhs.position
                && lhs.sourceStart == rhs.sourceStart && lhs.duration == rhs.duration && lhs.markers == rhs.markers
                && lhs.clip == rhs.clip
                && TimelineValue.object(lhs.metadata) == TimelineValue.object(rhs.metadata)
        }
    }

    /// A media file as the timeline refers to it.
    public struct Media: Sendable, Equatable, Hashable {
        public var path: String
        /// Frames per second (video) or samples per second (audio): the unit of its items' times.
        public var rate: Rational
        /// Its length in those units.
        public var length: Int64
        /// Its first unit's time by the device's clock (start timecode, BWF time reference), in those units; 0 where
        /// it carries none.
        public var start: Int64
        public var hasVideo: Bool
        public var hasAudio: Bool
        public var sampleRate: Int?
        public var channels: Int?
        public var width: Int?
        public var height: Int?
        /// The take as its recorder slated it (scene, take, tape, track names), where it did.
        public var slate: Slate?

        public init(
            path: String, rate: Rational, length: Int64, start: Int64 = 0, hasVideo: Bool, hasAudio: Bool,
            sampleRate: Int? = nil, channels: Int? = nil, width: Int? = nil, height: Int? = nil, slate: Slate? = nil
        ) {
            self.path = path
            self.rate = rate
            self.length = length
            self.start = start
            self.hasVideo = hasVideo
            self.hasAudio = hasAudio
            self.sampleRate = sampleRate
            self.channels = channels
            self.width = width
            self.height = height
            self.slate = slate
        }

        /// The file's name, as editors show a clip.
        public var fileName: String { Self.fileName(path) }

        /// What an editor shows for it: its slate and track names where its recorder wrote them ("Sc 12A Tk 3 (BOOM,
        /// LAV 1)"), else its file's name.
        public var displayName: String {
            guard let slate, let label = slate.label else { return fileName }
            return slate.tracks.isEmpty ? label : label + " (" + slate.tracks.joined(separator: ", ") + ")"
        }

        /// The slate as item metadata, in a `slate` object of its own: project, scene, take, tape and the tracks'
        /// names, where known.
        public var slateMetadata: [(String, TimelineValue)] {
            guard let slate else { return [] }
            let fields: [(String, String?)] = [
                ("project", slate.project), ("scene", slate.scene), ("take", slate.take), ("tape", slate.tape),
            ]
            let known = fields.compactMap { key, value in value.map { (key, TimelineValue.string($0)) } }
            let tracks = slate.tracks.isEmpty ? [] : [("tracks", TimelineValue.list(slate.tracks.map { .string($0) }))]
            return [("slate", .object(known + tracks))]
        }

        /// The last component of `path`, as people read it (`PathText.shown`: its bytes where they are UTF-8, a byte
        /// that is not as `\xHH`).
        public static func fileName(_ path: String) -> String {
            PathText.shown(String(path.split(separator: "/").last ?? Substring(path)))
        }
    }

    public struct Marker: Sendable, Equatable {
        /// The colours every editor knows (OpenTimelineIO's names).
        public enum Color: String, Sendable, CaseIterable {
            case red = "RED"
            case orange = "ORANGE"
            case yellow = "YELLOW"
            case green = "GREEN"
            case cyan = "CYAN"
            case blue = "BLUE"
            case
                purple = "PURPLE"
            case magenta = "MAGENTA"
            case white = "WHITE"
            case black = "BLACK"
        }

        public var name: String
        public var comment: String = ""
        public var color: Color
        /// On an item: frames or samples from its first (the media's units); on the timeline: flicks.
        public var at: Int64 = 0
        public var metadata: [(String, TimelineValue)] = []

        public static func == (lhs: Marker, rhs: Marker) -> Bool {
            lhs.name == rhs.name && lhs.comment == rhs.comment && lhs.color == rhs.color && lhs.at == rhs.at
                && TimelineValue.object(lhs.metadata) == TimelineValue.object(rhs.metadata)
        }
    }
}

/// Flicks: 1/705,600,000 s, the unit Facebook's Oculus team chose so that every common frame and sample rate is a
/// whole number of them.
public enum Flicks {
    public static let perSecond: Int64 = 705_600_000

    /// `units` at `rate` (units per second) in flicks, rounded to the nearest where the rate does not divide evenly.
    public static func of(_ units: Int64, at rate: Rational) -> Int64 {
        // units / rate s = units · den / num s.
        let product = Int128(units) * Int128(rate.denominator) * Int128(perSecond)
        return Int64(divideRounded(product, Int128(rate.numerator)))
    }

    /// `flicks` in units of `rate`, rounded to the nearest (`.up`, `.down` as asked).
    public static func units(
        _ flicks: Int64, at rate: Rational, rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero
    )
        -> Int64
    {
        let numerator = Int128(flicks) * Int128(rate.numerator)
        let denominator = Int128(rate.denominator) * Int128(perSecond)
        switch rounding {
        case .down: return Int64(floorDivide(numerator, denominator))
        case .up: return -Int64(floorDivide(-numerator, denominator))
        default: return Int64(divideRounded(numerator, denominator))
        }
    }

    /// Whole seconds from `seconds`, in flicks.
    public static func of(seconds: Double) -> Int64 { Int64((seconds * Double(perSecond)).rounded()) }

    /// `flicks` as seconds, for words and metadata.
    public static func seconds(_ flicks: Int64) -> Double { Double(flicks) / Double(perSecond) }

    private static func floorDivide(_ a: Int128, _ b: Int128) -> Int128 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func divideRounded(_ a: Int128, _ b: Int128) -> Int128 {
        floorDivide(2 * a + b, 2 * b)
    }
}
