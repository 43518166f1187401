import DriftCore
import DriftSchema
import Testing

@testable import DriftTimeline

private let ntsc = Rational(24000, 1001)

private func camera(_ path: String, frames: Int64, rate: Rational = ntsc) -> EditTimeline.Media {
    EditTimeline.Media(path: path, rate: rate, length: frames, hasVideo: true, hasAudio: true, sampleRate: 48000)
}

private func recorder(_ path: String, seconds: Int64, start: Int64 = 0) -> EditTimeline.Media {
    EditTimeline.Media(
        path: path, rate: Rational(48000), length: seconds * 48000, start: start, hasVideo: false, hasAudio: true,
        sampleRate: 48000, channels: 2)
}

private func row(
    _ clip: String, _ recording: String, start: Double, drift: Double = 0,
    status: SoundPairingReport.Match.Status = .used
) -> SoundPairingReport.Match {
    let content = ContentMeasurement(
        offsetMs: -start * 1000, driftPPM: drift, driftPPMError: 0.5, model: .clock, confidence: 0.9)
    return SoundPairingReport.Match(
        reference: clip, recording: recording, recordingStartSeconds: start, recordingEndSeconds: nil, coverage: 1,
        clarity: 30, content: content, status: status)
}

/// The device is the folder, as the default rules say.
private let folder: @Sendable (String) -> String = { path in
    String(path.split(separator: "/").dropLast().last ?? "")
}

@Suite("Timelines from a pairing by sound: places, lanes, markers (pure logic; the real readers are in EndToEndTests)")
struct SyncTimelineTests {
    @Test("flicks hold NTSC frames and every common sample rate exactly; other rates round to the nearest")
    func flicks() {
        #expect(Flicks.of(1, at: ntsc) == 29_429_400)
        #expect(Flicks.of(1, at: Rational(30000, 1001)) == 23_543_520)
        for rate: Int64 in [8000, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176_400, 192_000] {
            #expect(Flicks.of(rate, at: Rational(rate)) == Flicks.perSecond, "\(rate)")
            #expect(Flicks.units(Flicks.of(123_457, at: Rational(rate)), at: Rational(rate)) == 123_457, "\(rate)")
        }
        #expect(Flicks.units(Flicks.of(86399, at: ntsc), at: Rational(48000)) == 172_970_798)
        // 1 sample at 47,952 Hz is 14,714.7 flicks: rounded, and back to the same sample.
        #expect(Flicks.of(1, at: Rational(47952)) == 14_715)
        #expect(Flicks.units(Flicks.of(1_000_001, at: Rational(47952)), at: Rational(47952)) == 1_000_001)
        #expect(Flicks.units(10, at: Rational(48000), rounding: .up) == 1)
        #expect(Flicks.units(10, at: Rational(48000), rounding: .down) == 0)
        #expect(Flicks.units(-10, at: Rational(48000), rounding: .down) == -1)
    }

    @Test(
        "each clip's audio starts at the recorder's sample of the clip's first moment, under its clip; a recorder that started late is placed where it starts"
    )
    func places() throws {
        let a = "/shoot/cam/A001.mov"
        let b = "/shoot/cam/A002.mov"
        let zoom = "/shoot/zoom/ZOOM0001.WAV"
        let lav = "/shoot/lav/LAV0001.WAV"
        var group = SoundPairingReport.Group(folder: "/shoot")
        // A at 10.000 s of the Zoom, B at 100.0203125 s (not a whole frame after A); the lavalier started 0.5 s after
        // B began, 50 ppm fast.
        group.matches = [
            row(a, zoom, start: 10), row(b, zoom, start: 100.020_312_5),
            row(b, lav, start: -0.5, drift: 50, status: .alternative),
        ]
        let media = [
            a: camera(a, frames: 1440), b: camera(b, frames: 720), zoom: recorder(zoom, seconds: 600, start: 1_234_567),
            lav: recorder(lav, seconds: 100),
        ]
        let (timeline, leftOff) = SyncTimeline(name: "t", audio: .recordings, media: media, device: folder).build(
            SoundPairingReport(groups: [group]))
        #expect(leftOff.isEmpty)
        #expect(timeline.rate == ntsc)
        #expect(timeline.tracks.map(\.name) == ["cam", "lav", "zoom"])
        #expect(timeline.tracks.map(\.kind) == [.video, .audio, .audio])
        let clips = timeline.tracks[0].items
        #expect(clips.map(\.name) == ["A001.mov", "A002.mov"])
        #expect(clips[0].position == 0)
        // B sits 90.0203125 s after A, to the nearest frame (2158.3 frames).
        #expect(clips[1].position == Flicks.of(2158, at: ntsc))
        let zoomItems = timeline.tracks[2].items
        #expect(zoomItems.map(\.sourceStart) == [480_000, 4_800_975])
        #expect(zoomItems.map(\.position) == clips.map(\.position))
        // Each clip's whole length at 48 kHz: 1440 frames at 24000/1001 are 2,882,880 samples.
        #expect(zoomItems.map(\.duration) == [2_882_880, 1_441_440])
        // The lavalier's first sample is 0.5 s / (1 + 50 ppm) of clip time into B: ceil(23998.8) = 23999 samples.
        let late = try #require(timeline.tracks[1].items.first)
        #expect(late.position == clips[1].position + Flicks.of(23999, at: Rational(48000)))
        #expect(late.sourceStart == 0)
        #expect(late.duration == 1_441_440 - 23999)
        #expect(late.markers.map(\.name) == ["recorder started late"])
        #expect(late.clip == b)
    }

    @Test(
        "two recorders filed under one device are split by file into lanes; a recorder's files that follow each other share one"
    )
    func lanes() {
        let clips = (0..<3).map { "/s/cam/C\($0).mp4" }
        let first = "/s/audio/ZOOM0001.WAV"
        let second = "/s/audio/ZOOM0002.WAV"
        let other = "/s/audio/LAV.WAV"
        var group = SoundPairingReport.Group(folder: "/s")
        // Clips of 9.6 s: 0 and 1 at 5 s and 65 s of ZOOM0001, 2 at 10 s of ZOOM0002 (which follows ZOOM0001), 1 also on
        // the lavalier.
        group.matches = [
            row(clips[0], first, start: 5), row(clips[1], first, start: 65), row(clips[2], second, start: 10),
            row(clips[1], other, start: 3, status: .alternative),
        ]
        var media = [
            first: recorder(first, seconds: 120), second: recorder(second, seconds: 100),
            other: recorder(other, seconds: 100),
        ]
        for clip in clips { media[clip] = camera(clip, frames: 240, rate: Rational(25)) }
        func lanes(_ group: SoundPairingReport.Group) -> [[String]] {
            let (timeline, _) = SyncTimeline(name: "t", audio: .recordings, media: media, device: folder).build(
                SoundPairingReport(groups: [group]))
            for track in timeline.tracks {
                for (earlier, later) in zip(track.items, track.items.dropFirst()) {
                    #expect(earlier.end <= later.position)
                }
            }
            #expect(timeline.tracks.first?.name == "cam")
            return timeline.tracks.filter { $0.kind == .audio }.map { $0.items.map(\.name) }
        }
        #expect(lanes(group) == [["ZOOM0001.WAV", "ZOOM0001.WAV", "ZOOM0002.WAV"], ["LAV.WAV"]])
        // ZOOM0001 also heard the first 5 s of clip 2 (it ran on): then ZOOM0002 overlaps it, and is another lane.
        group.matches.append(row(clips[2], first, start: 115, status: .alternative))
        #expect(lanes(group) == [["ZOOM0001.WAV", "ZOOM0001.WAV", "ZOOM0001.WAV"], ["LAV.WAV", "ZOOM0002.WAV"]])
    }

    @Test("clips the sound could not place follow the rest, each with a marker saying why and where it was heard")
    func leftForAPerson() throws {
        let heard = "/s/cam/C1.mp4"
        let twice = "/s/cam/C2.mp4"
        let nobody = "/s/cam/C3.mp4"
        let zoom = "/s/audio/Z.WAV"
        var group = SoundPairingReport.Group(folder: "/s", unmatchedClips: [nobody])
        group.matches = [row(heard, zoom, start: 1)]
        for start in [20.0, 50.0] {
            var place = row(twice, zoom, start: start, status: .uncertain)
            place.repeats = true
            place.fit = 0.91
            group.matches.append(place)
        }
        group.uncertainClipsText = [twice]
        let media = [
            heard: camera(heard, frames: 250, rate: Rational(25)),
            twice: camera(twice, frames: 250, rate: Rational(25)),
            nobody: camera(nobody, frames: 100, rate: Rational(25)), zoom: recorder(zoom, seconds: 90),
        ]
        let (timeline, _) = SyncTimeline(name: "t", audio: .recordings, media: media, device: folder).build(
            SoundPairingReport(groups: [group]))
        let video = try #require(timeline.tracks.first { $0.kind == .video })
        #expect(video.items.map(\.name) == ["C1.mp4", "C2.mp4", "C3.mp4"])
        // Apart by the spacing, on whole frames.
        #expect(video.items[1].position == video.items[0].end + 2 * Flicks.perSecond)
        let uncertain = try #require(video.items[1].markers.first)
        #expect(uncertain.color == .red && uncertain.name.hasPrefix("uncertain: heard at 2 places"))
        #expect(uncertain.comment.contains("Z.WAV at 0:00:20.000 (fit 0.91)"))
        #expect(video.items[2].markers.first?.name == "unheard: no recorder heard this clip")
        // Only the placed clip has audio.
        #expect(timeline.tracks.filter { $0.kind == .audio }.flatMap(\.items).map(\.clip) == [heard])
    }

    @Test("the writers' exact times: FCPXML's rational seconds, EDL timecode and reels, OTIO's NTSC rate")
    func formats() {
        #expect(FCPXMLWriter.seconds(1, at: ntsc) == "1001/24000s")
        #expect(FCPXMLWriter.seconds(123_457, at: Rational(48000)) == "123457/48000s")
        #expect(FCPXMLWriter.seconds(96000, at: Rational(48000)) == "2s")
        #expect(FCPXMLWriter.seconds(Flicks.of(3, at: ntsc)) == "1001/8000s")
        #expect(EDLWriter.timecode(90000 + 25 * 61 + 7, fps: 25) == "01:01:01:07")
        // Reels: eight characters of [A-Z0-9], the stem's last four then a hash of the whole path; the same path the
        // same reel every time.
        for path in ["/s/A001_C002.mov", "/s/zoom.0001.wav", "/s/x.wav", "/s/.wav", "/s/日本語.wav"] {
            let reel = EDLWriter.reel(path: path)
            #expect(reel.count == 8 && reel.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }, "\(reel)")
            #expect(EDLWriter.reel(path: path) == reel)
        }
        #expect(EDLWriter.reel(path: "/s/A001_C002.mov").hasPrefix("C002"))
        #expect(EDLWriter.reel(path: "/s/x.wav").hasPrefix("X"))
        // Names that share their first eight characters, and one name in two folders: distinct reels.
        let paths = [
            "/m/Interview_long_name_A.mp4", "/m/Interview_long_name_B.mp4", "/cam1/C0001.MP4", "/cam2/C0001.MP4",
        ]
        let reels = EDLWriter.reels(for: paths + paths)
        #expect(Set(reels.values).count == 4 && reels.count == 4, "\(reels)")
        // A collision is settled by a salt, for the later path only: forced here by asking for many reels.
        let many = (0..<20_000).map { "/fleet/card\($0 / 100)/A\($0 % 100).WAV" }
        let manyReels = EDLWriter.reels(for: many)
        #expect(Set(manyReels.values).count == many.count)
        #expect(EDLWriter.reels(for: many.reversed()) == manyReels, "the same reels whatever the order")
        let text = OTIOWriter.text(EditTimeline(name: "n", rate: ntsc, tracks: []))
        #expect(text.contains("\"rate\": 23.976023976023978"))
        #expect(OTIOWriter.fileURL("/a b/é#.wav") == "file:///a%20b/%C3%A9%23.wav")
    }
}
