import DriftCore
import DriftSchema

/// The timeline of a pairing by sound: each camera's clips on a video track, placed where the sound puts them against
/// each other, and under each clip the audio of every recorder that surely heard it on that recorder's audio track,
/// starting at the recorder's sample of the clip's first moment. Clips the sound could not place (heard at places that
/// fit equally, confirmed nowhere, heard by nobody) follow, each with a marker saying why and where it was heard.
public struct SyncTimeline: Sendable {
    /// What the audio tracks point at.
    public enum AudioMedia: String, Sendable, CaseIterable {
        /// The recorders' own files, each clip's stretch where it was heard (the drift stated, not corrected: an
        /// editor plays them at their nominal rate).
        case recordings
        /// The clips' audio as the repair cut it (drift corrected, exactly each clip's length): the synced files, or
        /// the muxed copies of the clips.
        case synced
    }

    /// Seconds between stretches the sound does not tie together (groups, recorders that share no clip, clips left
    /// for a person), so that an editor sees them apart.
    static let spacingSeconds: Int64 = 2

    public var name: String
    public var audio: AudioMedia
    /// What is known of each file the report names (clips, recordings, outputs), by path.
    public var media: [String: EditTimeline.Media]
    /// The device a file belongs to (a camera, a recorder): its track's name.
    public var device: @Sendable (String) -> String

    public init(
        name: String, audio: AudioMedia, media: [String: EditTimeline.Media],
        device: @escaping @Sendable (String) -> String
    ) {
        self.name = name
        self.audio = audio
        self.media = media
        self.device = device
    }

    /// The timeline, and a line for each file left off it (its media could not be read).
    public func build(_ report: SoundPairingReport) -> (timeline: EditTimeline, leftOff: [String]) {
        let clipRates = report.groups.flatMap { group in
            Set(group.matches.map(\.referenceText) + group.clipsText).compactMap {
                media[$0].flatMap { $0.hasVideo ? $0.rate : nil }
            }
        }
        let counts = Dictionary(clipRates.map { ($0, 1) }, uniquingKeysWith: +)
        let rate = clipRates.first { counts[$0] == counts.values.max() } ?? Rational(25)
        var layout = Layout(rate: rate)
        var leftOff: [String] = []
        for group in report.groups {
            layout.markers.append(
                EditTimeline.Marker(
                    name: group.title, comment: "the group's first clip", color: .blue, at: layout.cursor,
                    metadata: [("driftfix", .object([("group", .string(group.title))]))]))
            for component in components(of: group) {
                leftOff += place(component, group: group, into: &layout)
            }
            for left in report.leftForAPerson where left.group == group.title {
                leftOff += placeLeft(left, into: &layout)
            }
        }
        var metadata: [(String, TimelineValue)] = [("audio", .string(audio.rawValue))]
        metadata.append(("recorders", .object(recorders(report))))
        let timeline = EditTimeline(
            name: name, rate: rate, tracks: layout.tracks(), markers: layout.markers,
            metadata: [("driftfix", .object(metadata))])
        return (timeline, leftOff)
    }

    // MARK: - Placing by the sound

    /// The rows that tie a clip to a recording: sure, with a place.
    private func sure(_ group: SoundPairingReport.Group) -> [SoundPairingReport.Match] {
        group.matches.filter { $0.status != .uncertain && $0.recordingStartSeconds != nil }
    }

    private static func drift(_ row: SoundPairingReport.Match) -> Double {
        row.recordingDriftPPM ?? row.content?.driftPPM ?? 0
    }

    /// Clips tied together by recordings that heard them, each with its time relative to the component's first clip
    /// (camera seconds), in the order of their paths.
    private func components(of group: SoundPairingReport.Group) -> [[(clip: String, seconds: Double)]] {
        let rows = sure(group)
        let byClip = Dictionary(grouping: rows, by: \.referenceText)
        let byRecording = Dictionary(grouping: rows, by: \.recordingText)
        var clipAt: [String: Double] = [:]
        var recordingAt: [String: Double] = [:]
        var components: [[(clip: String, seconds: Double)]] = []
        for first in byClip.keys.sorted() where clipAt[first] == nil {
            clipAt[first] = 0
            var members = [first]
            var clips = [first]
            var recordings: [String] = []
            while !clips.isEmpty || !recordings.isEmpty {
                if let clip = clips.popLast(), let at = clipAt[clip] {
                    for row in byClip[clip] ?? [] where recordingAt[row.recordingText] == nil {
                        // The recording's first frame, in camera time: the clip's start less the recording time
                        // before it, run at the recorder's rate.
                        recordingAt[row.recordingText] =
                            at - (row.recordingStartSeconds ?? 0) / (1 + Self.drift(row) * 1e-6)
                        recordings.append(row.recordingText)
                    }
                } else if let recording = recordings.popLast(), let at = recordingAt[recording] {
                    for row in byRecording[recording] ?? [] where clipAt[row.referenceText] == nil {
                        clipAt[row.referenceText] = at + (row.recordingStartSeconds ?? 0) / (1 + Self.drift(row) * 1e-6)
                        members.append(row.referenceText)
                        clips.append(row.referenceText)
                    }
                }
            }
            let origin = members.compactMap { clipAt[$0] }.min() ?? 0
            components.append(members.sorted().map { ($0, (clipAt[$0] ?? 0) - origin) })
        }
        return components
    }

    private func place(
        _ component: [(clip: String, seconds: Double)], group: SoundPairingReport.Group, into layout: inout Layout
    ) -> [String] {
        var leftOff: [String] = []
        let origin = layout.cursor
        let rows = sure(group)
        for (clip, seconds) in component {
            guard let clipMedia = media[clip] else {
                leftOff.append("\(clip): left off the timeline: its media could not be read")
                continue
            }
            // Clips start on the timeline's frames; their audio is placed against the clip, so the rounding moves
            // the pair, never the sync between them.
            let frame = Int64((seconds * layout.rate.doubleValue).rounded())
            let position = origin + Flicks.of(frame, at: layout.rate)
            var clipMetadata: [(String, TimelineValue)] = [("clip", .string(clip))]
            if let used = rows.first(where: { $0.referenceText == clip && $0.status == .used }) {
                clipMetadata.append(("recording", .string(used.recordingText)))
            }
            layout.add(
                EditTimeline.Item(
                    name: clipMedia.fileName, media: clipMedia, position: position, sourceStart: 0,
                    duration: clipMedia.length, metadata: [("driftfix", .object(clipMetadata))]),
                track: device(clip), kind: clipMedia.hasVideo ? .video : .audio)
            // The synced audio is the cut of each clip's chosen recording; the recordings, every one that heard it.
            for row in rows where row.referenceText == clip && (audio == .recordings || row.outputText != nil) {
                if let item = audioItem(row, clip: clipMedia, at: position) {
                    layout.add(item, track: device(row.recordingText), kind: .audio)
                } else {
                    leftOff.append(
                        "\(row.recordingText): its audio of \(clip) left off the timeline: its media could not be read")
                }
            }
        }
        layout.advance()
        return leftOff
    }

    /// The audio of `row`'s recording under its clip placed at `position`.
    private func audioItem(_ row: SoundPairingReport.Match, clip: EditTimeline.Media, at position: Int64)
        -> EditTimeline.Item?
    {
        let drift = Self.drift(row)
        var facts: [(String, TimelineValue)] = [
            ("status", .string(row.status.rawValue)), ("recording", .string(row.recordingText)),
        ]
        if let start = row.recordingStartSeconds { facts.append(("recording_start_seconds", .number(start))) }
        facts.append(("drift_ppm", .number(drift)))
        if let error = row.recordingDriftPPMError ?? row.content?.driftPPMError {
            facts.append(("drift_ppm_error", .number(error)))
        }
        if let confidence = row.content?.confidence { facts.append(("confidence", .number(confidence))) }
        var markers: [EditTimeline.Marker] = []
        if row.status == .failed {
            markers.append(
                EditTimeline.Marker(name: "repair failed", comment: row.note ?? "", color: .magenta))
        }
        if row.timecodeAgrees == false, let timecode = row.timecodeStartSeconds, let start = row.recordingStartSeconds {
            markers.append(
                EditTimeline.Marker(
                    name: "timecode disagrees",
                    comment:
                        "the start timecodes put the clip \(Self.signed(timecode - start)) s from where its sound is",
                    color: .orange))
        }
        if audio == .synced, let output = row.outputText, let cut = media[output] {
            facts.append(("drift_corrected", .bool(true)))
            return EditTimeline.Item(
                name: cut.displayName, media: cut, position: position, sourceStart: 0, duration: cut.length,
                markers: markers, metadata: cut.slateMetadata + [("driftfix", .object(facts))], clip: clip.path)
        }
        guard let recording = media[row.recordingText], let start = row.recordingStartSeconds else { return nil }
        let rate = recording.rate.doubleValue
        let speed = 1 + drift * 1e-6
        // The recorder's sample at the clip's first moment; where the recorder started after the clip, the first
        // sample of clip time it heard, and the audio placed that far into the clip.
        var skipped: Int64 = 0
        var source = Int64((start * rate).rounded())
        if source < 0 {
            skipped = Int64((-start / speed * rate).rounded(.up))
            source = max(0, Int64(((start + Double(skipped) / rate * speed) * rate).rounded()))
        }
        let clipSeconds = Double(clip.length) * Double(clip.rate.denominator) / Double(clip.rate.numerator)
        let wanted = Int64(((clipSeconds - Double(skipped) / rate) * rate).rounded())
        let duration = min(wanted, recording.length - source)
        guard duration > 0 else { return nil }
        facts.append(("drift_corrected", .bool(false)))
        // Played at its nominal rate, the recording's sound at the item's end is off the picture by the drift.
        facts.append(("end_slip_ms", .number(drift * 1e-6 * Double(duration) / rate * 1000)))
        if duration < wanted || skipped > 0 {
            let unheard = Double(wanted - duration + skipped) / rate
            markers.append(
                EditTimeline.Marker(
                    name: skipped > 0 ? "recorder started late" : "recorder stopped early",
                    comment: "\(Self.decimal(unheard, 3)) s of the clip not heard by \(recording.fileName)",
                    color: .yellow, at: skipped > 0 ? 0 : duration - 1))
        }
        return EditTimeline.Item(
            name: recording.displayName, media: recording,
            position: position + Flicks.of(skipped, at: recording.rate), sourceStart: source, duration: duration,
            markers: markers, metadata: recording.slateMetadata + [("driftfix", .object(facts))], clip: clip.path)
    }

    /// A clip the sound could not place: after the rest, with a marker saying why and where it was heard.
    private func placeLeft(_ left: SoundPairingReport.LeftClip, into layout: inout Layout) -> [String] {
        guard let clip = media[left.clipText] else {
            return ["\(left.clipText): left off the timeline: its media could not be read"]
        }
        let places = left.places.map { place -> TimelineValue in
            var entry: [(String, TimelineValue)] = [("recording", .string(place.recordingText))]
            if let start = place.recordingStartSeconds { entry.append(("start_seconds", .number(start))) }
            if let fit = place.fit { entry.append(("fit", .number(fit))) }
            return .object(entry)
        }
        let words = left.places.map { place in
            "\(EditTimeline.Media.fileName(place.recordingText)) at \(SoundPairingReport.clock(place.recordingStartSeconds))"
                + (place.fit.map { " (fit \(Self.decimal($0, 2)))" } ?? "")
        }
        let (name, color): (String, EditTimeline.Marker.Color) =
            switch left.why {
            case .repeats: ("uncertain: heard at \(left.places.count) places that fit equally", .red)
            case .unconfirmed: ("unconfirmed: found but confirmed nowhere", .orange)
            case .tooShort: ("too short: too little sound to measure", .yellow)
            case .silent: ("silent: no sound of its own to sync by", .yellow)
            case .unheard: ("unheard: no recorder heard this clip", .yellow)
            }
        let comment =
            (words.isEmpty ? "" : "heard at " + words.joined(separator: "; ") + ". ") + "Would decide: "
            + left.wouldDecide
        let marker = EditTimeline.Marker(
            name: name, comment: comment, color: color,
            metadata: [("driftfix", .object([("why", .string(left.why.rawValue)), ("places", .list(places))]))])
        layout.add(
            EditTimeline.Item(
                name: clip.fileName, media: clip, position: layout.cursor, sourceStart: 0, duration: clip.length,
                markers: [marker],
                metadata: [
                    ("driftfix", .object([("clip", .string(left.clipText)), ("left", .string(left.why.rawValue))]))
                ]),
            track: device(left.clipText), kind: clip.hasVideo ? .video : .audio)
        layout.advance()
        return []
    }

    /// Each recording that heard a clip: its device and its drift against the cameras.
    private func recorders(_ report: SoundPairingReport) -> [(String, TimelineValue)] {
        var entries: [(String, TimelineValue)] = []
        var seen: Set<String> = []
        for row in report.groups.flatMap(sure) where seen.insert(row.recordingText).inserted {
            var entry: [(String, TimelineValue)] = [("device", .string(device(row.recordingText)))]
            entry.append(("drift_ppm", .number(Self.drift(row))))
            entry.append(("drift_corrected", .bool(audio == .synced)))
            entries.append((row.recordingText, .object(entry)))
        }
        return entries
    }

    static func decimal(_ value: Double, _ places: Int) -> String {
        let scale = (0..<places).reduce(1.0) { value, _ in value * 10 }
        let rounded = (value * scale).rounded() / scale
        return "\(rounded)"
    }

    static func signed(_ value: Double) -> String { (value >= 0 ? "+" : "") + decimal(value, 3) }
}

/// Items gathered by track, then split into lanes where they overlap (two cameras filed under one device, one
/// recorder under two clips at once).
struct Layout {
    let rate: Rational
    /// Where the next stretch goes, flicks.
    var cursor: Int64 = 0
    /// The end of what is placed, flicks.
    var end: Int64 = 0
    var markers: [EditTimeline.Marker] = []
    private var byTrack: [(name: String, kind: EditTimeline.Track.Kind, items: [EditTimeline.Item])] = []

    init(rate: Rational) { self.rate = rate }

    mutating func add(_ item: EditTimeline.Item, track name: String, kind: EditTimeline.Track.Kind) {
        let name = name == "/" || name.isEmpty ? (kind == .video ? "camera" : "recorder") : name
        end = max(end, item.end)
        if let index = byTrack.firstIndex(where: { $0.name == name && $0.kind == kind }) {
            byTrack[index].items.append(item)
        } else {
            byTrack.append((name, kind, [item]))
        }
    }

    /// Moves the cursor past what is placed, a spacing further, to the next frame.
    mutating func advance() {
        let next = end + SyncTimeline.spacingSeconds * Flicks.perSecond
        cursor = Flicks.of(Flicks.units(next, at: rate, rounding: .up), at: rate)
    }

    /// The tracks: video first, then audio, each by name. A device whose files overlap in time is more than one
    /// device (two recorders in one folder): its files are split into lanes ("audio", "audio 2"), each file whole on
    /// the first lane it fits, so a recorder's files that follow each other share one.
    func tracks() -> [EditTimeline.Track] {
        var tracks: [EditTimeline.Track] = []
        for kind in [EditTimeline.Track.Kind.video, .audio] {
            for (name, _, items) in byTrack.filter({ $0.kind == kind }).sorted(by: { $0.name < $1.name }) {
                let files = Dictionary(grouping: items, by: \.media.path).values
                    .map { $0.sorted { ($0.position, $0.name) < ($1.position, $1.name) } }
                    .sorted { ($0[0].position, $0[0].media.path) < ($1[0].position, $1[0].media.path) }
                var lanes: [[EditTimeline.Item]] = []
                for file in files {
                    let fits = { (lane: [EditTimeline.Item]) in
                        file.allSatisfy { item in lane.allSatisfy { $0.end <= item.position || item.end <= $0.position }
                        }
                    }
                    if let lane = lanes.firstIndex(where: fits) {
                        lanes[lane] += file
                    } else {
                        lanes.append(file)
                    }
                }
                for (index, lane) in lanes.enumerated() {
                    tracks.append(
                        EditTimeline.Track(
                            name: index == 0 ? name : "\(name) \(index + 1)", kind: kind,
                            items: lane.sorted { ($0.position, $0.name) < ($1.position, $1.name) }))
                }
            }
        }
        return tracks
    }
}
