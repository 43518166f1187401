import DriftCore

/// Final Cut Pro X XML 1.10 (`.fcpxml`), which Final Cut Pro, Resolve and Premiere import: the timeline as one gap in
/// the primary storyline with every track's items connected to it, cameras on lanes 1, 2… and recorders on lanes
/// −1, −2…, times as rational seconds (`1001/24000s`, `123457/48000s`): exact to the frame and the sample.
public enum FCPXMLWriter {
    public static let version = "1.10"

    public static func text(_ timeline: EditTimeline) -> String {
        var resources = Resources(rate: timeline.rate, tracks: timeline.tracks)
        // Every asset is declared before the story uses it; `asset(for:)` below only looks their ids up.
        let total = timeline.end
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#, "<!DOCTYPE fcpxml>", #"<fcpxml version="\#(version)">"#,
            "  <resources>",
        ]
        lines += resources.lines.map { "    " + $0 }
        lines += [
            "  </resources>", "  <library>", #"    <event name="driftfix">"#,
            #"      <project name="\#(escaped(timeline.name))">"#,
            "        <sequence format=\"\(resources.sequenceFormat)\" duration=\"\(seconds(total))\" tcStart=\"0s\" tcFormat=\"NDF\" audioLayout=\"stereo\" audioRate=\"\(audioRate(timeline))\">",
            "          <spine>",
            "            <gap name=\"\(escaped(timeline.name))\" offset=\"0s\" start=\"0s\" duration=\"\(seconds(total))\">",
        ]
        var videoLane = 0
        var audioLane = 0
        for track in timeline.tracks {
            let lane: Int
            if track.kind == .video {
                videoLane += 1
                lane = videoLane
            } else {
                audioLane -= 1
                lane = audioLane
            }
            for item in track.items {
                lines += clip(item, lane: lane, asset: resources.asset(for: item.media), timeline: timeline)
                    .map { "              " + $0 }
            }
        }
        // The timeline's own markers, on the gap (whose time is the timeline's).
        for marker in timeline.markers {
            lines.append(
                "              " + self.marker(marker, start: seconds(marker.at), frame: frame(timeline.rate)))
        }
        lines += ["            </gap>", "          </spine>"]
        lines += metadata(timeline.metadata).map { "          " + $0 }
        lines += ["        </sequence>", "      </project>", "    </event>", "  </library>", "</fcpxml>"]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func clip(_ item: EditTimeline.Item, lane: Int, asset: String, timeline: EditTimeline) -> [String] {
        let media = item.media
        let open =
            "<asset-clip ref=\"\(asset)\" lane=\"\(lane)\" offset=\"\(seconds(item.position))\" name=\"\(escaped(item.name))\" start=\"\(seconds(media.start + item.sourceStart, at: media.rate))\" duration=\"\(seconds(item.duration, at: media.rate))\""
            // A clip's copy used for its sound plays on an audio lane: its sound only.
            + (lane < 0 && media.hasVideo ? " srcEnable=\"audio\"" : "")
        let inner =
            item.markers.map {
                "  "
                    + marker(
                        $0, start: seconds(media.start + item.sourceStart + $0.at, at: media.rate),
                        frame: frame(timeline.rate))
            } + metadata(item.metadata).map { "  " + $0 }
        return inner.isEmpty ? [open + "/>"] : [open + ">"] + inner + ["</asset-clip>"]
    }

    private static func marker(_ marker: EditTimeline.Marker, start: String, frame: String) -> String {
        "<marker start=\"\(start)\" duration=\"\(frame)\" value=\"\(escaped(marker.name))\""
            + (marker.comment.isEmpty ? "" : " note=\"\(escaped(marker.comment))\"") + "/>"
    }

    /// Metadata as `md` entries keyed `com.driftfix.…` (nested entries by dotted keys).
    private static func metadata(_ entries: [(String, TimelineValue)]) -> [String] {
        var flat: [(String, String)] = []
        func walk(_ prefix: String, _ value: TimelineValue) {
            if case .object(let inner) = value {
                for (key, value) in inner { walk(prefix + "." + key, value) }
            } else {
                flat.append((prefix, value.text))
            }
        }
        for (key, value) in entries {
            // The tool's own namespace is the key's start already.
            walk(key == "driftfix" ? "com.driftfix" : "com.driftfix." + key, value)
        }
        guard !flat.isEmpty else { return [] }
        return ["<metadata>"] + flat.map { "  <md key=\"\(escaped($0.0))\" value=\"\(escaped($0.1))\"/>" }
            + ["</metadata>"]
    }

    /// The formats (one per picture rate and size) and assets (one per file) the items use.
    private struct Resources {
        var lines: [String] = []
        var sequenceFormat = ""
        private var formats: [String: String] = [:]
        private var assets: [String: String] = [:]
        private var next = 1

        init(rate: Rational, tracks: [EditTimeline.Track]) {
            let first = tracks.flatMap(\.items).first { $0.media.hasVideo && $0.media.rate == rate }?.media
            sequenceFormat = format(rate: rate, width: first?.width, height: first?.height)
            for item in tracks.flatMap(\.items) { _ = asset(for: item.media) }
        }

        mutating func asset(for media: EditTimeline.Media) -> String {
            if let id = assets[media.path] { return id }
            let format = media.hasVideo ? format(rate: media.rate, width: media.width, height: media.height) : nil
            let id = newID()
            assets[media.path] = id
            var attributes =
                "id=\"\(id)\" name=\"\(escaped(media.fileName))\" start=\"\(seconds(media.start, at: media.rate))\" duration=\"\(seconds(media.length, at: media.rate))\""
            attributes += " hasVideo=\"\(media.hasVideo ? 1 : 0)\""
            if let format { attributes += " format=\"\(format)\" videoSources=\"1\"" }
            attributes += " hasAudio=\"\(media.hasAudio ? 1 : 0)\""
            if media.hasAudio {
                attributes += " audioSources=\"1\""
                if let channels = media.channels { attributes += " audioChannels=\"\(channels)\"" }
                if let rate = media.sampleRate { attributes += " audioRate=\"\(rate)\"" }
            }
            lines += [
                "<asset \(attributes)>",
                "  <media-rep kind=\"original-media\" src=\"\(escaped(OTIOWriter.fileURL(media.path)))\"/>", "</asset>",
            ]
            return id
        }

        private mutating func format(rate: Rational, width: Int?, height: Int?) -> String {
            let key = "\(rate) \(width ?? 0)x\(height ?? 0)"
            if let id = formats[key] { return id }
            let id = newID()
            formats[key] = id
            var attributes = "id=\"\(id)\" frameDuration=\"\(FCPXMLWriter.frame(rate))\""
            if let width, let height { attributes += " width=\"\(width)\" height=\"\(height)\"" }
            lines.append("<format \(attributes)/>")
            return id
        }

        private mutating func newID() -> String {
            defer { next += 1 }
            return "r\(next)"
        }
    }

    /// One frame at `rate`, as FCPXML writes a time.
    static func frame(_ rate: Rational) -> String { seconds(1, at: rate) }

    /// `units` at `rate` per second as FCPXML's rational seconds, reduced (`1001/24000s`, `5s`).
    static func seconds(_ units: Int64, at rate: Rational) -> String {
        fraction(Int128(units) * Int128(rate.denominator), Int128(rate.numerator))
    }

    /// Flicks as FCPXML's rational seconds.
    static func seconds(_ flicks: Int64) -> String { fraction(Int128(flicks), Int128(Flicks.perSecond)) }

    private static func fraction(_ numerator: Int128, _ denominator: Int128) -> String {
        var a = numerator.magnitude
        var b = denominator.magnitude
        while b != 0 { (a, b) = (b, a % b) }
        let divisor = Int128(max(a, 1))
        let n = numerator / divisor
        let d = denominator / divisor
        return d == 1 ? "\(n)s" : "\(n)/\(d)s"
    }

    /// The sequence's audio rate, among those FCPXML names: the recordings' where they share a named one, else 48k.
    private static func audioRate(_ timeline: EditTimeline) -> String {
        let named: [Int: String] = [
            32000: "32k", 44100: "44.1k", 48000: "48k", 88200: "88.2k", 96000: "96k", 176_400: "176.4k",
            192_000: "192k",
        ]
        let rates = timeline.tracks.filter { $0.kind == .audio }.flatMap(\.items).compactMap(\.media.sampleRate)
        return rates.first.flatMap { named[$0] } ?? "48k"
    }

    static func escaped(_ text: String) -> String { TextEscaping.markup(text) }
}
