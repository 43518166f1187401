import DriftCore

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
        var lines = ["TITLE: \(title(timeline.name + " " + video.name))", "FCM: NON-DROP FRAME", ""]
        lines += notes
        for (number, event) in events.enumerated() {
            let item = event.item
            let channel = event.channel.padding(toLength: 5, withPad: " ", startingAt: 0)
            lines.append(
                String(format: "%03d", number + 1) + "  " + reel(item.media.fileName) + " " + channel + " C        "
                    + [
                        event.sourceIn, event.sourceIn + event.frames, event.recordIn, event.recordIn + event.frames,
                    ].map { timecode($0, fps: fps) }.joined(separator: " "))
            lines.append("* FROM CLIP NAME: \(item.name)")
            lines.append("* FROM FILE: \(item.media.path)")
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

    /// The reel: eight characters of the file's stem, upper case, letters and digits.
    static func reel(_ fileName: String) -> String {
        let stem = fileName.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
        let kept = (stem.isEmpty ? fileName : stem).uppercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        let reel = kept.isEmpty ? "AX" : String(kept.prefix(8))
        return reel.padding(toLength: 8, withPad: " ", startingAt: 0)
    }

    private static func title(_ text: String) -> String { String(line(text).prefix(70)) }

    /// One line of text, as a comment holds it.
    private static func line(_ text: String) -> String {
        text.map { $0.isNewline ? " " : $0 }.reduce(into: "") { $0.append($1) }
    }
}
