import DriftCore

/// OpenTimelineIO's JSON (`.otio`), as its own library writes it (schema versions of 0.15 and later: Clip.2,
/// Marker.2, the rest 1): times as value and rate, the rate as the media's own (24000/1001 written as
/// 23.976023976023978, what OTIO reads as NTSC), sample positions as whole values at the sample rate.
public enum OTIOWriter {
    public static func text(_ timeline: EditTimeline) -> String {
        let tracks = timeline.tracks.map { track(timeline, $0) }
        let stack = object(
            "Stack.1", name: "tracks", metadata: [],
            [
                ("source_range", .null), ("effects", .list([])),
                ("markers", .list(timeline.markers.map { marker($0, at: $0.at, flicksAt: timeline.rate) })),
                ("enabled", .bool(true)), ("children", .list(tracks)),
            ])
        let root = object(
            "Timeline.1", name: timeline.name, metadata: timeline.metadata,
            [("global_start_time", time(0, rate: timeline.rate)), ("tracks", stack)])
        return root.pretty() + "\n"
    }

    private static func track(_ timeline: EditTimeline, _ track: EditTimeline.Track) -> TimelineValue {
        // Gaps at the track's rate: the timeline's for pictures, the first item's for sound (whole samples).
        let rate = track.kind == .video ? timeline.rate : (track.items.first?.media.rate ?? timeline.rate)
        var children: [TimelineValue] = []
        var cursor: Int64 = 0
        for item in track.items {
            if item.position > cursor {
                children.append(
                    object(
                        "Gap.1", name: "", metadata: [],
                        [
                            (
                                "source_range",
                                range(start: 0, duration: units(item.position - cursor, rate), rate: rate)
                            ),
                            ("effects", .list([])), ("markers", .list([])), ("enabled", .bool(true)),
                        ]))
            }
            children.append(clip(item))
            cursor = item.end
        }
        return object(
            "Track.1", name: track.name, metadata: [],
            [
                ("source_range", .null), ("effects", .list([])), ("markers", .list([])),
                ("enabled", .bool(true)), ("children", .list(children)),
                ("kind", .string(track.kind == .video ? "Video" : "Audio")),
            ])
    }

    private static func clip(_ item: EditTimeline.Item) -> TimelineValue {
        let media = item.media
        let reference = object(
            "ExternalReference.1", name: media.fileName, metadata: [],
            [
                (
                    "available_range",
                    range(start: Double(media.start), duration: Double(media.length), rate: media.rate)
                ),
                ("available_image_bounds", .null), ("target_url", .string(fileURL(media.path))),
            ])
        let markers = item.markers.map { marker($0, at: media.start + item.sourceStart + $0.at, rate: media.rate) }
        return object(
            "Clip.2", name: item.name, metadata: item.metadata,
            [
                (
                    "source_range",
                    range(
                        start: Double(media.start + item.sourceStart), duration: Double(item.duration),
                        rate: media.rate)
                ),
                ("effects", .list([])), ("markers", .list(markers)), ("enabled", .bool(true)),
                ("media_references", .object([("DEFAULT_MEDIA", reference)])),
                ("active_media_reference_key", .string("DEFAULT_MEDIA")),
            ])
    }

    private static func marker(_ marker: EditTimeline.Marker, at units: Int64, rate: Rational) -> TimelineValue {
        object(
            "Marker.2", name: marker.name, metadata: marker.metadata,
            [
                ("color", .string(marker.color.rawValue)),
                ("marked_range", range(start: Double(units), duration: 0, rate: rate)),
                ("comment", .string(marker.comment)),
            ])
    }

    private static func marker(_ marker: EditTimeline.Marker, at flicks: Int64, flicksAt rate: Rational)
        -> TimelineValue
    {
        self.marker(marker, at: Flicks.units(flicks, at: rate), rate: rate)
    }

    private static func object(
        _ schema: String, name: String, metadata: [(String, TimelineValue)], _ fields: [(String, TimelineValue)]
    ) -> TimelineValue {
        .object([("OTIO_SCHEMA", .string(schema)), ("metadata", .object(metadata)), ("name", .string(name))] + fields)
    }

    private static func range(start: Double, duration: Double, rate: Rational) -> TimelineValue {
        .object([
            ("OTIO_SCHEMA", .string("TimeRange.1")), ("duration", time(duration, rate: rate)),
            ("start_time", time(start, rate: rate)),
        ])
    }

    private static func time(_ value: Double, rate: Rational) -> TimelineValue {
        .object([
            ("OTIO_SCHEMA", .string("RationalTime.1")),
            ("rate", .number(Double(rate.numerator) / Double(rate.denominator))), ("value", .number(value)),
        ])
    }

    /// `flicks` at `rate`: whole where the rate divides them, else the exact fraction as near as a double holds it.
    private static func units(_ flicks: Int64, _ rate: Rational) -> Double {
        let whole = Flicks.units(flicks, at: rate)
        if Flicks.of(whole, at: rate) == flicks { return Double(whole) }
        return Double(flicks) * Double(rate.numerator) / (Double(rate.denominator) * Double(Flicks.perSecond))
    }

    /// A `file://` URL for an absolute path, every byte outside the unreserved set percent-encoded.
    public static func fileURL(_ path: String) -> String {
        var out = "file://"
        // The name's bytes (PathText), so a name that is not UTF-8 points at its file.
        for byte in PathText.bytes(of: path) {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}
