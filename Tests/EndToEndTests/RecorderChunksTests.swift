import DriftFixtures
import Foundation
import Testing

private let ffmpeg = "/usr/bin/ffmpeg"
private let mediainfo = "/usr/bin/mediainfo"
/// wavinfo (PyPI), in the venv scripts/install-deps.sh makes beside OpenTimelineIO.
private let wavinfo = ProcessInfo.processInfo.environment["DRIFTFIX_WAVINFO"] ?? repository + "/.build-otio/bin/wavinfo"

private func object(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

/// What wavinfo reads of a file: its `scopes`.
private func wavinfoScopes(_ path: String) throws -> [String: Any] {
    let result = try runChild(wavinfo, [path], seconds: 60)
    #expect(result.status == 0, "wavinfo \(path): \(result.stderr)")
    return try #require(try object(result.stdout)["scopes"] as? [String: Any], "\(result.stdout)")
}

/// The nearest frame of `frame × output / input`, computed here.
private func scaled(_ frame: Int64, _ output: Int64, _ input: Int64) -> Int64 {
    Int64((Double(frame) * Double(output) / Double(input)).rounded())
}

@Suite(
    "Every chunk a recorder wrote, through process, repair and sync, read back by wavinfo, mediainfo and FFmpeg (the built binary)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: ffmpeg), "ffmpeg not installed"))
struct RecorderChunksTests {
    @Test(
        "process: an 8-track poly BWF keeps every chunk; wavinfo and mediainfo find the same scene, take, tape, track names and markers, moved with the sound; FFmpeg decodes the exact length"
    )
    func process() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: wavinfo), "no wavinfo at \(wavinfo): install-deps makes it")
        #expect(FileManager.default.isExecutableFile(atPath: mediainfo), "no mediainfo: install-deps installs it")
        let folder = TemporaryFolder()
        let tracks = ["BOOM", "LAV 1", "LAV 2", "LAV 3", "PLANT", "X", "Y", "MIX L"]
        let recording = ProductionWave(seconds: 4, trackNames: tracks)
        try recording.write(to: folder.file("T003.WAV"))
        let target = recording.frames + recording.frames * 150 / 1_000_000
        let result = try driftfix([
            "process", folder.file("T003.WAV"), folder.file("fixed.wav"), "--to-frames", "\(target)",
        ])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")

        for path in [folder.file("T003.WAV"), folder.file("fixed.wav")] {
            let scopes = try wavinfoScopes(path)
            let ixml = try #require(scopes["ixml"] as? [String: Any], "\(scopes.keys)")
            #expect(ixml["scene"] as? String == recording.scene && ixml["take"] as? String == recording.take)
            #expect(ixml["tape"] as? String == recording.tape && ixml["project"] as? String == recording.project)
            let names = (ixml["track_list"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == tracks, "\(path): the poly file's tracks, named, in order")
            let cues = try #require(scopes["cues"] as? [String: Any], "\(path)")
            let frames = path.hasSuffix("fixed.wav") ? target : recording.frames
            for marker in recording.markers {
                let cue = try #require(cues["\(marker.id)"] as? [String: Any], "\(path): cue \(marker.id) in \(cues)")
                #expect(cue["label"] as? String == marker.label)
                #expect(
                    (cue["frame"] as? Int).map(Int64.init) == scaled(marker.frame, frames, recording.frames),
                    "\(path): \(cue)")
            }
            let bext = try #require(scopes["bext"] as? [String: Any])
            #expect((bext["time_reference"] as? Int).map(UInt64.init) == recording.timeReference)
            #expect((bext["description"] as? String)?.contains("sSCENE=\(recording.scene)") == true)

            // mediainfo reads the same chunks and says what they hold.
            let details = try runTool(mediainfo, ["--Details=1", path])
            #expect(
                details.contains("<SCENE>\(recording.scene)</SCENE>")
                    && details.contains("<TAKE>\(recording.take)</TAKE>"))
            #expect(tracks.allSatisfy { details.contains("<NAME>\($0)</NAME>") })
            #expect(details.contains("numCuePoints:                         \(recording.markers.count)"), "\(path)")
            #expect(recording.markers.allSatisfy { details.contains($0.label) })
            let summary = try runTool(mediainfo, [path])
            #expect(summary.contains("Format                                   : Wave"), "\(summary)")

            // FFmpeg reads the audio to the frame.
            let count = try runTool(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration_ts,channels", "-of",
                    "csv=p=0", path,
                ])
            #expect(count.trimmingCharacters(in: .whitespacesAndNewlines) == "\(tracks.count),\(frames)", "\(count)")
        }
    }

    @Test(
        "repair on workers: every chunk carried, the slate in the report's JSON, CSV, table and HTML, a chunk left out said on its row"
    )
    func repairNight() throws {
        let root = TemporaryFolder()
        let out = TemporaryFolder("driftfix-out")
        let reports = TemporaryFolder()
        var first = ProductionWave(seconds: 6)
        first.scene = "21"
        first.take = "4"
        try first.write(to: root.file("day1/T021.WAV"), createFolder: true)
        var peaked = ProductionWave(seconds: 6, trackNames: ["MONO"])
        // A PEAK chunk (version 1, a time stamp, the channel's peak and where it is), as DAWs write one.
        peaked.extraBefore = [
            (
                "PEAK",
                [1, 0, 0, 0] + [0, 0, 0, 0] + ProductionWave.le(UInt64(Float(0.9).bitPattern), 4) + [0, 0, 0, 0]
            )
        ]
        try peaked.write(to: root.file("day1/T022.WAV"))
        // Cameras whose clips ran 6.04 s (151 frames at 25 fps): the recorders' clocks ran slow.
        for name in ["T021", "T022"] {
            _ = try runTool(
                ffmpeg,
                [
                    "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=25", "-t", "6.04",
                    "-c:v", "libx264", "-preset", "ultrafast", root.file("day1/\(name).mp4"),
                ])
        }
        let result = try driftfix(["repair", root.path, "--out", out.path, "--workers", "2", "--report", reports.path])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let target = Int64(6.04 * 48_000)
        let original = try ChunkFile(path: root.file("day1/T021.WAV"))
        let repaired = try ChunkFile(path: out.file("day1/T021.WAV"))
        #expect(repaired.ids == original.ids)
        for id in ["JUNK", "fmt ", "cart", "axml", "id3 ", "_PMX", "zzzz"] {
            #expect(repaired.chunk(id) == original.chunk(id), "\(id)")
        }
        #expect(
            repaired.cuePoints.map { Int64($0.sampleOffset) }
                == first.markers.map { scaled($0.frame, target, first.frames) })
        #expect(repaired.ixmlValues("SCENE") == ["21"] && repaired.ixmlValues("PARENT_FILENAME") == ["T021.WAV"])
        #expect(try ChunkFile(path: out.file("day1/T022.WAV")).chunk("PEAK") == nil)

        let report = try object(try String(contentsOfFile: reports.file("report.json"), encoding: .utf8))
        let pairs = try #require(report["pairs"] as? [[String: Any]])
        let row = try #require(pairs.first { ($0["recording"] as? String)?.hasSuffix("T021.WAV") == true })
        let slate = try #require(row["slate"] as? [String: Any], "\(row)")
        #expect(
            slate["scene"] as? String == "21" && slate["take"] as? String == "4" && slate["tape"] as? String == "DAY04")
        #expect(slate["tracks"] as? [String] == ["BOOM", "LAV 1"])
        #expect(row["warnings"] as? [String] == [], "\(row)")
        let peakRow = try #require(pairs.first { ($0["recording"] as? String)?.hasSuffix("T022.WAV") == true })
        #expect(
            (peakRow["warnings"] as? [String])?.contains("PEAK: its peak values describe the samples before the repair")
                == true, "\(peakRow)")
        let csv = try String(contentsOfFile: reports.file("report.csv"), encoding: .utf8)
        let header = try #require(csv.split(separator: "\n").first).split(separator: ",").map(String.init)
        let line = try #require(csv.split(separator: "\n").first { $0.contains("T021.WAV") }).split(
            separator: ",", omittingEmptySubsequences: false)
        #expect(header.contains("scene") && header.last == "kind")
        // Counted from the end: the slate's columns come after every quoted one (the clock's, after them, are empty).
        func field(_ name: String) -> String? {
            guard let index = header.firstIndex(of: name), line.count >= header.count - index else { return nil }
            return String(line[line.count - (header.count - index)])
        }
        #expect(field("scene") == "21" && field("tracks") == "BOOM;LAV 1" && field("tape") == "DAY04", "\(line)")
        let html = try String(contentsOfFile: reports.file("report.html"), encoding: .utf8)
        #expect(html.contains("<th>Take</th>") && html.contains("Sc 12A Tk 3, tape DAY04, tracks MONO"))

        let scan = try driftfix(["scan", root.path, "--format", "table"])
        #expect(scan.stdout.contains("TAKE") && scan.stdout.contains("Sc 21 Tk 4 DAY04"), "\(scan.stdout)")
    }

    @Test(
        "repair by the sound: a late start trimmed and dropouts re-inserted; every marker on the scene's moment it marked, the time stamps moved by the trim"
    )
    func contentNight() throws {
        let root = TemporaryFolder()
        let out = TemporaryFolder("driftfix-out")
        let reports = TemporaryFolder()
        // The recorder started 1.2 s before the camera (its start is trimmed), ran 90 ppm slow, and lost sound twice.
        var scene = TwoMicrophones(sampleRate: 48_000, seconds: 40, offset: -1.2, driftPPM: -90, seed: 81)
        scene.dropouts = [(scene.soundingTime(after: 12.2), 0.020), (scene.soundingTime(after: 27.9), 0.015)]
        try scene.writeCameraPair(folder: root.file("cam"), name: "take")
        var chunks = ProductionWave(sampleRate: 48_000, seconds: 40, trackNames: ["BOOM", "LAV 1"])
        chunks.markers = [0.5, 6.25, 18.5, 33.75].enumerated().map {
            .init(id: UInt32($0.offset + 1), frame: Int64($0.element * 48_000), label: "beat \($0.offset + 1)")
        }
        try ChunkFile.insert(chunks.recorderChunks(), into: root.file("cam/take.wav"))
        try "content:\n  measure: content\n".write(toFile: root.file(".c.yaml"), atomically: true, encoding: .utf8)
        let result = try driftfix(
            [
                "repair", root.path, "--out", out.path, "--workers", "1", "--config", root.file(".c.yaml"), "--report",
                reports.path,
            ],
            seconds: 600)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let report = try object(try String(contentsOfFile: reports.file("report.json"), encoding: .utf8))
        let row = try #require((report["pairs"] as? [[String: Any]])?.first)
        let operations = row["operations"] as? [String] ?? []
        #expect(
            operations.first?.hasPrefix("trim-start") == true && operations.contains { $0.hasPrefix("insert") },
            "\(operations)")
        let repaired = try ChunkFile(path: out.file("cam/take.wav"))
        var worst = 0.0
        for (point, marker) in zip(repaired.cuePoints, chunks.markers) {
            // The scene's moment the marker was on, on the camera's clock (the output's), in frames.
            let truth = scene.referenceTime(Double(marker.frame) / 48_000) * 48_000
            if truth < 0 {
                #expect(point.sampleOffset == 0, "\(marker.label) lay before the camera started")
                continue
            }
            worst = max(worst, abs(Double(point.sampleOffset) - truth))
            #expect(
                abs(Double(point.sampleOffset) - truth) <= 2, "\(marker.label): \(point.sampleOffset), truth \(truth)")
        }
        #expect(worst <= 2, "worst marker \(worst) frames from its moment")
        #expect(
            (row["warnings"] as? [String])?.contains { $0.contains("\"beat 1\"") && $0.contains("trimmed start") }
                == true,
            "\(row)")
        // The iXML time stamp moved by the frames trimmed from the start.
        let trimmed = try #require(operations.first.flatMap { UInt64($0.split(separator: " ").last ?? "") })
        #expect(repaired.ixmlValues("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO") == ["\(chunks.timeReference + trimmed)"])
    }
}

extension RecorderChunksTests {
    @Test(
        "sync: each cut carries its recorder's slate and the markers inside it, its BWF time reference and iXML time stamp at its clip's start timecode to the sample; the timeline names it by scene, take and tracks"
    )
    func syncCuts() throws {
        var shoot = Shoot(
            sound: .speech, seed: 57, sampleRate: 16000,
            recorders: [Shoot.Recorder(start: -5, seconds: 150, driftPPM: -110)],
            clips: [Shoot.Clip(start: 12, seconds: 30), Shoot.Clip(start: 80, seconds: 25)])
        shoot.dayStart = 14 * 3600 + 21 * 60 + 7.4
        let root = TemporaryFolder()
        let out = TemporaryFolder("driftfix-out")
        let files = TemporaryFolder("driftfix-timelines")
        for folder in ["audio", "camera"] {
            try FileManager.default.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
        }
        let recorderPath = root.file("audio/SC12A_T03.WAV")
        try shoot.writeRecorder(0, to: recorderPath, channels: 2)
        let recorded = try ChunkFile(path: recorderPath)
        var slate = ProductionWave(sampleRate: 16000, seconds: 150, timeReference: try #require(recorded.timeReference))
        // Markers: one in each clip, one in neither.
        let marked = [25.0, 60.0, 95.5].map { Int64($0 * 16000) }
        slate.markers = marked.enumerated().map {
            .init(id: UInt32($0.offset + 1), frame: $0.element, label: "mark \($0.offset + 1)")
        }
        try ChunkFile.insert(slate.recorderChunks(), into: recorderPath)
        for c in shoot.clips.indices { try shoot.writeCameraClip(c, to: root.file("camera/C000\(c + 1).MP4")) }

        let result = try driftfix(
            ["sync", root.path, "--out", out.path, "--format", "json", "--timeline", files.file("shoot.otio")])
        #expect(result.status == 0, "\(result.stderr)")
        for c in shoot.clips.indices {
            let cut = try ChunkFile(path: out.file("camera/C000\(c + 1).wav"))
            // The clip's start timecode, HH:MM:SS:FF at 25 fps, in samples at 16 kHz: exactly.
            let timecode = try #require(shoot.clipTimecode(c)).split(separator: ":").compactMap { Int64($0) }
            let frames = ((timecode[0] * 60 + timecode[1]) * 60 + timecode[2]) * 25 + timecode[3]
            let samples = UInt64(frames * 16000 / 25)
            #expect(cut.timeReference == samples, "clip \(c): \(cut.timeReference ?? 0), timecode \(samples)")
            #expect(cut.ixmlValues("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO") == ["\(samples)"])
            #expect(cut.ixmlValues("BWF_TIME_REFERENCE_LOW") == ["\(samples)"])
            for name in ["PROJECT", "SCENE", "TAKE", "TAPE", "NAME"] {
                #expect(
                    cut.ixmlValues(name) == (try ChunkFile(path: recorderPath)).ixmlValues(name), "clip \(c) \(name)")
            }
            #expect(cut.ixmlValues("SCENE") == [slate.scene] && cut.ixmlValues("NAME") == slate.trackNames)
            #expect(cut.ixmlValues("PARENT_FILENAME") == ["SC12A_T03.WAV"])
            #expect(cut.ixmlValues("PARENT_UID") == [slate.fileUID] && cut.ixmlValues("FILE_UID") != [slate.fileUID])
            // Only the marker inside this clip, on the scene's moment it marked.
            let inside = slate.markers.filter { marker in
                let scene = shoot.recorder(0).referenceTime(Double(marker.frame) / 16000)
                return scene >= shoot.clips[c].start && scene < shoot.clips[c].start + shoot.clips[c].seconds
            }
            #expect(inside.count == 1)
            #expect(cut.cuePoints.map(\.id) == inside.map(\.id), "clip \(c)")
            #expect(cut.associatedData.filter { $0.id == "labl" }.map(\.cue) == inside.map(\.id))
            for (point, marker) in zip(cut.cuePoints, inside) {
                let truth =
                    (shoot.recorder(0).referenceTime(Double(marker.frame) / 16000) - shoot.clips[c].start) * 16000
                #expect(
                    abs(Double(point.sampleOffset) - truth) <= 2,
                    "\(marker.label): \(point.sampleOffset), truth \(truth)")
            }
        }
        // The editor's timeline names the recorder's audio by its slate, and carries it.
        let otio = try String(contentsOfFile: files.file("shoot.otio"), encoding: .utf8)
        #expect(
            otio.contains("\"name\": \"Sc 12A Tk 3 (BOOM, LAV 1)\"")
                || otio.contains("\"name\":\"Sc 12A Tk 3 (BOOM, LAV 1)\""), "\(otio.prefix(2000))")
        #expect(otio.contains("\"tape\"") && otio.contains("DAY04"))
    }
}

extension ProductionWave {
    fileprivate func write(to path: String, createFolder: Bool) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try write(to: path)
    }
}
