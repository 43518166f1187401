import DriftFixtures
import Foundation
import Testing

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
/// The Python of the test set-up's venv, with OpenTimelineIO and its adapters (scripts/install-deps.sh makes it).
private let python =
    ProcessInfo.processInfo.environment["DRIFTFIX_OTIO_PYTHON"] ?? repository + "/.build-otio/bin/python"

/// What scripts/check-timeline.py read from a timeline, and how it compares with the truth.
struct TimelineReading {
    let status: Int32
    let summary: [String: Any]
    let stderr: String

    var problems: [String] {
        (summary["problems"] as? [String] ?? []) + (summary["reportProblems"] as? [String] ?? [])
            + (summary["reelProblems"] as? [String] ?? [])
    }
    var tracks: [String] { (summary["tracks"] as? [[String]] ?? []).map { $0.joined(separator: " ") } }
    var clips: [String] { summary["clips"] as? [String] ?? [] }
    var markers: [String] { summary["markers"] as? [String] ?? [] }
    var checked: Int { summary["checked"] as? Int ?? 0 }
}

/// Reads `file` with the editors' own readers (scripts/check-timeline.py), checked against a truth or driftfix's
/// report where `arguments` give them; FCPXML against this project's subset of its DTD.
func readTimeline(_ file: String, _ arguments: [String] = []) throws -> TimelineReading {
    let dtd = file.hasSuffix(".fcpxml") ? ["--dtd", repository + "/scripts/fcpxml-subset.dtd"] : []
    let result = try runChild(
        python, [repository + "/scripts/check-timeline.py", file] + dtd + arguments, seconds: 120)
    let summary = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    return TimelineReading(status: result.status, summary: summary, stderr: result.stderr + result.stdout)
}

@Suite(
    "timelines for editors: sync --timeline in OpenTimelineIO, FCPXML and CMX3600, read back by the editors' readers",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg not installed"))
struct TimelineTests {
    @Test(
        "a shoot of two cameras (25 and 24000/1001 fps) and two recorders: every clip's audio starts where the recorder heard it, within one sample (OTIO, FCPXML) or one frame (EDL), against the shoot's truth"
    )
    func shoot() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: python),
            "no OpenTimelineIO at \(python): scripts/install-deps.sh installs it")
        // The lavalier starts 10 s into clip 1 and hears clip 2 whole, 80 ppm fast; the Zoom runs through, 120 ppm
        // slow; nobody hears clip 3.
        var shoot = Shoot(
            sound: .speech, seed: 23, sampleRate: 16000,
            recorders: [
                Shoot.Recorder(start: -4, seconds: 200, driftPPM: -120),
                Shoot.Recorder(start: 70, seconds: 100, driftPPM: 80),
            ],
            clips: [
                Shoot.Clip(start: 20, seconds: 25), Shoot.Clip(start: 60, seconds: 30),
                Shoot.Clip(start: 120, seconds: 20), Shoot.Clip(start: 260, seconds: 15),
            ])
        shoot.dayStart = 11 * 3600 + 3.7
        let root = TemporaryFolder()
        let out = TemporaryFolder("driftfix-out")
        let files = TemporaryFolder("driftfix-timelines")
        for folder in ["zoom", "lav", "cam-a", "cam-b"] {
            try FileManager.default.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
        }
        let recordings = [root.file("zoom/ZOOM0001.WAV"), root.file("lav/LAV_0007.WAV")]
        for r in recordings.indices { try shoot.writeRecorder(r, to: recordings[r], channels: r == 0 ? 2 : 1) }
        let clips = [
            root.file("cam-a/Interview_long_name_A.MP4"), root.file("cam-b/B001.MOV"),
            root.file("cam-a/Interview_long_name_B.MP4"),
            root.file("cam-a/Interview_long_name_C.MP4"),
        ]
        for c in clips.indices {
            try shoot.writeCameraClip(c, to: clips[c], frameRate: c == 1 ? "24000/1001" : "25")
        }
        // The truth from the scene's numbers: where each clip lies in each recorder that heard any of it.
        let truth: [[String: Any]] = clips.indices.map { c in
            [
                "reference": clips[c], "seconds": shoot.clips[c].seconds,
                "heardBy": shoot.recorders.indices.filter { shoot.coverage(ofClip: c, byRecorder: $0) > 0 }.map {
                    r -> [String: Any] in
                    [
                        "recording": recordings[r], "recordingStartSeconds": shoot.start(ofClip: c, inRecorder: r),
                        "coverage": shoot.coverage(ofClip: c, byRecorder: r), "driftPPM": shoot.recorders[r].driftPPM,
                    ]
                },
            ]
        }
        try JSONSerialization.data(withJSONObject: ["clips": truth]).write(
            to: URL(fileURLWithPath: files.file("truth.json")))
        let check = [
            "--truth", files.file("truth.json"), "--report", files.file("sync.json"), "--sample-rate", "16000",
        ]

        // OpenTimelineIO: the tracks by device, both cameras' clips, the recorders' audio under them, the markers.
        let sync = try driftfix([
            "sync", root.path, "--out", out.path, "--format", "json", "--timeline", files.file("shoot.otio"),
        ])
        #expect(sync.status == 1, "the clip nobody heard is left for a person: \(sync.stderr)")
        #expect(sync.stderr.contains("timeline written to \(files.file("shoot.otio"))"), "\(sync.stderr)")
        try Data(sync.stdout.utf8).write(to: URL(fileURLWithPath: files.file("sync.json")))
        let otio = try readTimeline(files.file("shoot.otio"), check)
        #expect(otio.status == 0 && otio.problems.isEmpty, "\(otio.problems) \(otio.stderr)")
        #expect(otio.tracks == ["Audio lav", "Audio zoom", "Video cam-a", "Video cam-b"], "\(otio.tracks)")
        #expect(
            otio.clips == [
                "B001.MOV", "Interview_long_name_A.MP4", "Interview_long_name_B.MP4", "Interview_long_name_C.MP4",
            ])
        // Clips 0 and 2 by the Zoom, 1 by both (the lavalier from 10 s in), 2 by the lavalier too.
        #expect(otio.checked == 5, "\(otio.summary)")
        #expect(otio.markers.contains("unheard: no recorder heard this clip"), "\(otio.markers)")
        #expect(otio.markers.contains("recorder started late"), "\(otio.markers)")
        let metadata = otio.summary["metadata"] as? [String: Any]
        let zoom = (metadata?["recorders"] as? [String: Any])?[recordings[0]] as? [String: Any]
        #expect(abs((zoom?["drift_ppm"] as? Double ?? 0) + 120) < 3, "\(String(describing: metadata))")
        #expect(zoom?["drift_corrected"] as? Bool == false)

        // FCPXML: valid against its DTD (this project's subset of FCPXML 1.10; $FCPXML_DTD adds Apple's), read with
        // exact fractions, the same clips through OTIO's FCPXML adapter.
        _ = try driftfix(["sync", root.path, "--out", out.path, "--timeline", files.file("shoot.fcpxml")])
        let fcpxml = try readTimeline(files.file("shoot.fcpxml"), check)
        #expect(fcpxml.status == 0 && fcpxml.problems.isEmpty, "\(fcpxml.problems) \(fcpxml.stderr)")
        #expect(fcpxml.checked == 5 && fcpxml.clips == otio.clips, "\(fcpxml.summary)")

        // CMX3600: a list per camera, whole frames at 25 fps; names that share their first eight characters get
        // distinct reels, each linked to its one file (read back by OTIO's adapter).
        let edl = try driftfix(["sync", root.path, "--out", out.path, "--timeline", files.file("shoot.edl")])
        #expect(
            edl.stderr.contains(
                "timeline written to \(files.file("shoot-cam-a.edl")), \(files.file("shoot-cam-b.edl"))"),
            "\(edl.stderr)")
        var listed = 0
        for camera in ["cam-a", "cam-b"] {
            let list = try readTimeline(
                files.file("shoot-\(camera).edl"),
                [
                    "--truth", files.file("truth.json"), "--rate", "25", "--listed-only", "--report",
                    files.file("sync.json"),
                ])
            #expect(list.status == 0 && list.problems.isEmpty, "\(camera): \(list.problems) \(list.stderr)")
            #expect(list.summary["reelProblems"] as? [String] == [], "\(list.summary)")
            listed += list.checked
        }
        #expect(listed == 5)

        // The synced audio instead of the recordings: each clip's cut file under it, from its first sample.
        _ = try driftfix([
            "sync", root.path, "--out", out.path, "--timeline", files.file("synced.otio"), "--timeline-audio", "synced",
        ])
        let synced = try readTimeline(files.file("synced.otio"), [])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(
            synced.summary["audioFiles"] as? [String] == [
                out.file("cam-a/Interview_long_name_A.wav"), out.file("cam-a/Interview_long_name_B.wav"),
                out.file("cam-b/B001.wav"),
            ], "\(synced.summary)")
        #expect((synced.summary["metadata"] as? [String: Any])?["audio"] as? String == "synced")
    }
}
