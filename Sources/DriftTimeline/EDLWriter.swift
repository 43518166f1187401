import DriftCore
import DriftSupport

/// CMX3600 edit decision lists (`.edl`), which every editor reads: whole frames at the timeline's rate, non-drop
/// timecode from 01:00:00:00, one picture track per list, so one list per camera track, each with the audio of the
/// recorders under its clips on channels A, A2, A3 and A4. Sub-frame places and markers' colours beyond the
/// events' comments are what the format cannot hold.
public enum EDLWriter {
    /// The record timecode of the timeline's start, hours.
    static let recordStartHours: Int64 = 1

    /// One list per video track: its track's name and text.
    public static func lists(_ timeline: EditTimeline) -> [(track: String, text: String)] {
        let videoTracks = timeline.tracks.filter { $0.kind == .video }
        return videoTracks.map { ($0.name, list(timeline, video: $0)) }
    }

    private struct Event {
        var channel: String
        var item: EditTimeline.Item
        var sourceIn: Int64
        var recordIn: Int64
        var frames: Int64
    }

    private static func list(_ timeline: EditTimeline, video: EditTimeline.Track) -> String {
        let rate = timeline.rate
        let fps = Int64((rate.doubleValue).rounded())
        let recordStart = recordStartHours * 3600 * fps
        let clips = Set(video.items.map(\.media.path))
        var events: [Event] = []
        var notes: [String] = []
        func event(_ item: EditTimeline.Item, channel: String) -> Event {
            // Frames at the timeline's rate of the item's first unit, its length and its place.
            func frames(_ units: Int64) -> Int64 {
                Flicks.units(Flicks.of(units, at: item.media.rate), at: rate)
            }
            return Event(
                channel: channel, item: item, sourceIn: frames(item.media.start + item.sourceStart),
                recordIn: recordStart + Flicks.units(item.position, at: rate), frames: max(1, frames(item.duration)))
        }
        events += video.items.map { event($0, channel: "V") }
        let channels = ["A", "A2", "A3", "A4"]
        var used = 0
        for track in timeline.tracks where track.kind == .audio {
            let items = track.items.filter { $0.clip.map(clips.contains) ?? false }
            guard !items.isEmpty else { continue }
            guard used < channels.count else {
                notes.append("* \(track.name.uppercased()): NOT LISTED (CMX3600 HAS FOUR AUDIO CHANNELS)")
                continue
            }
            var lastOut = Int64.min
            for item in items {
                var next = event(item, channel: channels[used])
                // Rounded to frames, a clip's audio may touch the one before it: it starts where that one ends.
                if next.recordIn < lastOut {
                    let overlap = lastOut - next.recordIn
                    guard overlap < next.frames else { continue }
                    next.recordIn += overlap
                    next.sourceIn += overlap
                    next.frames -= overlap
                }
                lastOut = next.recordIn + next.frames
                events.append(next)
            }
            used += 1
        }
        events.sort {
            ($0.recordIn, $0.channel == "V" ? 0 : 1, $0.channel) < ($1.recordIn, $1.channel == "V" ? 0 : 1, $1.channel)
        }
        let reels = reels(for: events.map(\.item.media.path))
        var lines = ["TITLE: \(title(timeline.name + " " + video.name))", "FCM: NON-DROP FRAME", ""]
        for (number, event) in events.enumerated() {
            let item = event.item
            let channel = event.channel.padding(toLength: 5, withPad: " ", startingAt: 0)
            let reel = reels[item.media.path] ?? "AX      "
            lines.append(
                String(format: "%03d", number + 1) + "  " + reel + " " + channel + " C        "
                    + [
                        event.sourceIn, event.sourceIn + event.frames, event.recordIn, event.recordIn + event.frames,
                    ].map { timecode($0, fps: fps) }.joined(separator: " "))
            lines.append("* FROM CLIP NAME: \(item.name)")
            lines.append("* FROM FILE: \(PathText.shown(item.media.path))")
            // The reel-to-file map, on every event: a conform links the reel to this file and no other.
            lines.append("* REEL: \(reel) IS \(PathText.shown(item.media.path))")
            // What the list cannot hold, said on its first event (a comment before the first event is not CMX3600).
            if number == 0 { lines += notes }
            for marker in item.markers {
                let at = Flicks.units(Flicks.of(marker.at, at: item.media.rate), at: rate)
                lines.append(
                    "* LOC: \(timecode(event.recordIn + min(max(0, at), event.frames - 1), fps: fps)) \(marker.color.rawValue) \(line(marker.name + (marker.comment.isEmpty ? "" : ": " + marker.comment)))"
                )
            }
            if case .object(let facts)? = item.metadata.first(where: { $0.0 == "driftfix" })?.1,
                case .number(let drift)? = facts.first(where: { $0.0 == "drift_ppm" })?.1,
                case .bool(let corrected)? = facts.first(where: { $0.0 == "drift_corrected" })?.1
            {
                lines.append(
                    "* DRIFT: \(SyncTimeline.decimal(drift, 2)) PPM, \(corrected ? "CORRECTED IN THE MEDIA" : "NOT CORRECTED (THE EDITOR PLAYS AT THE NOMINAL RATE)")"
                )
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// HH:MM:SS:FF at `fps` frames a second (non-drop).
    static func timecode(_ frames: Int64, fps: Int64) -> String {
        let frames = max(0, frames)
        let seconds = frames / fps
        return String(
            format: "%02lld:%02lld:%02lld:%02lld", seconds / 3600, seconds / 60 % 60, seconds % 60, frames % fps)
    }

    /// Each file's reel in a list: eight characters, unique within the list, and the same every night for the same
    /// path (`reel(path:)`); where two paths' reels collide (about one pair in 1.7 million), the later path in byte
    /// order takes the next salt, so the earlier keeps its reel.
    static func reels(for paths: [String]) -> [String: String] {
        var owners: [String: String] = [:]
        var reels: [String: String] = [:]
        for path in Set(paths).sorted(by: { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }) {
            var salt = 0
            var reel = Self.reel(path: path)
            while owners[reel] != nil {
                salt += 1
                reel = Self.reel(path: path, salt: salt)
            }
            owners[reel] = path
            reels[path] = reel
        }
        return reels
    }

    /// A file's reel: the last four letters and digits of its name's stem (upper case; where numbered clips differ),
    /// then base-36 characters of an FNV-1a hash of its whole path up to eight, so that two files named alike in two
    /// folders, or two long names that begin alike, get two reels. Never a reel CMX3600 reserves (`BL`, `AX`, `BARS`,
    /// `BLACK`): it is always eight characters.
    static func reel(path: String, salt: Int = 0) -> String {
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        let stem = fileName.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
        let kept = (stem.isEmpty ? fileName : stem).uppercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        let readable = String(kept.suffix(4))
        var hash = FNV1a64()
        Array((salt == 0 ? path : "\(path)#\(salt)").utf8).withUnsafeBytes { hash.update($0) }
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var value = hash.value
        var code = ""
        for _ in 0..<(8 - readable.count) {
            code.append(digits[Int(value % 36)])
            value /= 36
        }
        return readable + code
    }

    private static func title(_ text: String) -> String { String(line(text).prefix(70)) }

    /// One line of text, as a comment holds it.
    private static func line(_ text: String) -> String {
        text.map { $0.isNewline ? " " : $0 }.reduce(into: "") { $0.append($1) }
    }
}
