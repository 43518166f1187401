import DriftFixtures
import Foundation
import Testing

private let ffmpeg = "/usr/bin/ffmpeg"
/// The committed songs (Tests/Music, CC BY 3.0).
private let music = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Music")
private let fishin = music.appendingPathComponent("Karissa_Hobbs_-_Lets_Go_Fishin.ogg").path
private let vibeAce = music.appendingPathComponent("Kevin_MacLeod_-_Vibe_Ace.ogg").path

/// A shoot written to a folder of its own.
private func write(_ shoot: PlaybackShoot, cameraClock: Double? = nil, recorderClock: Double? = nil) throws
    -> TemporaryFolder
{
    let root = TemporaryFolder()
    try shoot.write(to: root.path, cameraClock: cameraClock, recorderClock: recorderClock)
    return root
}

private func recorderName(_ r: Int) -> String { PlaybackShoot.recorderName(r) }
private func clipName(_ c: Int) -> String { PlaybackShoot.clipName(c) }

/// `driftfix sync ROOT` as JSON: the report, and the exit status.
private func sync(_ root: TemporaryFolder, _ extra: [String] = []) throws -> (
    report: [String: Any], result: CommandResult
) {
    let result = try driftfix(["sync", root.path, "--format", "json"] + extra)
    let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    return (report, result)
}

private func matches(_ report: [String: Any]) -> [[String: Any]] {
    (report["groups"] as? [[String: Any]] ?? []).flatMap { $0["matches"] as? [[String: Any]] ?? [] }
}

/// Each clip's used place as (recorder index, recording seconds), from the report.
private func used(_ report: [String: Any], root: TemporaryFolder, shoot: PlaybackShoot) -> [Int: (Int, Double)] {
    var places: [Int: (Int, Double)] = [:]
    for row in matches(report) where row["status"] as? String == "used" {
        guard let c = shoot.clips.indices.first(where: { root.file(clipName($0)) == row["reference"] as? String }),
            let r = shoot.recorders.indices.first(where: { root.file(recorderName($0)) == row["recording"] as? String }
            ),
            let start = row["recordingStartSeconds"] as? Double
        else { continue }
        places[c] = (r, start)
    }
    return places
}

@Suite(
    "a sound heard twice is never a guess; real music found as surely as speech (the built binary, on real songs)",
    .serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: ffmpeg), "ffmpeg not installed"))
struct RepeatedSoundTests {
    @Test(
        "the same samples twice (a playback desk's feed): both places listed as fitting equally, nothing cut, the clip left for a person in every output, exit 1"
    )
    func sameSamplesTwice() throws {
        let shoot = try PlaybackShoot.twice(song: fishin)
        let root = try write(shoot)
        let out = TemporaryFolder("driftfix-out")
        let reports = TemporaryFolder("driftfix-report")
        let (report, result) = try sync(root, ["--out", out.path, "--report", reports.path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.errorLines.last?.contains(
                "1 clip left for a person, nothing cut from it: 1 heard at places that fit equally")
                == true, "\(result.stderr)")
        let rows = matches(report)
        #expect(rows.allSatisfy { $0["status"] as? String == "uncertain" && $0["repeats"] as? Bool == true }, "\(rows)")
        // Both places, where the scene put the song at each take.
        let truth = [shoot.start(ofClip: 0, inRecorder: 0)] + shoot.otherPlaces(ofClip: 0, inRecorder: 0)
        let starts = rows.compactMap { $0["recordingStartSeconds"] as? Double }.sorted()
        #expect(starts.count == 2 && zip(starts, truth.sorted()).allSatisfy { abs($0 - $1) < 0.001 }, "\(starts)")
        #expect(!FileManager.default.fileExists(atPath: out.file("camera/C0001.wav")), "nothing cut")
        let left = try #require(report["leftForAPerson"] as? [[String: Any]])
        #expect(left.count == 1 && left[0]["why"] as? String == "repeats", "\(left)")
        #expect((left[0]["places"] as? [[String: Any]])?.count == 2)
        let table = try driftfix(["sync", root.path, "--format", "table"])
        #expect(table.stdout.contains("left for a person") && table.stdout.contains("its sound repeats: 2 places"))
        let csv = try driftfix(["sync", root.path, "--format", "csv"])
        #expect(csv.stdout.contains(",uncertain-clip,"), "\(csv.stdout)")
        let html = try String(contentsOfFile: reports.file("report.html"), encoding: .utf8)
        #expect(html.contains("Left for a person") && html.contains("class=\"left repeats\""))
    }

    @Test("a ten-second loop under room noise at -34 dB: named as a sound that repeats, not as no common sound")
    func loopUnderNoise() throws {
        let shoot = try PlaybackShoot.loop(song: fishin)
        let root = try write(shoot)
        let (report, result) = try sync(root)
        #expect(result.status == 1, "\(result.stderr)")
        let left = try #require((report["leftForAPerson"] as? [[String: Any]])?.first, "\(report)")
        #expect(left["why"] as? String == "repeats", "\(left)")
        #expect((left["places"] as? [[String: Any]])?.count ?? 0 >= 2, "\(left)")
        #expect(!matches(report).contains { $0["status"] as? String == "used" }, "no place used")
    }

    @Test(
        "a music video's playback recorded at three takes by a line feed and a room recorder, slates before two takes: no clip ever placed in the wrong take; slated clips settled by their slate; with the devices' clocks every clip settled by the takes' order",
        arguments: [false, true])
    func playbackShoot(clocks: Bool) throws {
        let shoot = try PlaybackShoot.takes(song: fishin)
        // The cameras' clock an hour and 17.4 s off the recorders' (another time zone, set by hand).
        let day = 1_795_600_000.0
        let root = try write(
            shoot, cameraClock: clocks ? day + 3617.4 : nil, recorderClock: clocks ? day - 12.3 : nil)
        let (report, result) = try sync(root)
        let places = used(report, root: root, shoot: shoot)
        for c in shoot.clips.indices {
            guard let (r, start) = places[c] else { continue }
            let truth = shoot.start(ofClip: c, inRecorder: r)
            #expect(abs(start - truth) < 0.001, "clip \(c) placed at \(start) s in recorder \(r), truth \(truth) s")
        }
        // The slated clips: the slate is a sound only their own take has.
        for (k, take) in shoot.takes.enumerated() where take.slate {
            #expect(places[2 * k] != nil, "clip \(2 * k) (slated take \(k)) not settled: \(result.stderr)")
        }
        if clocks {
            #expect(places.count == shoot.clips.count, "every clip settled: \(places.keys.sorted()); \(result.stderr)")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(matches(report).contains { $0["decidedBy"] as? String == "take order" }, "the order decided some")
        } else {
            // What no witness settles is left for a person, never guessed.
            let left = (report["leftForAPerson"] as? [[String: Any]] ?? []).compactMap { $0["clip"] as? String }
            for c in shoot.clips.indices where places[c] == nil {
                #expect(left.contains(root.file(clipName(c))), "clip \(c) neither settled nor left for a person")
            }
            #expect(result.status == (left.isEmpty ? 0 : 1), "\(result.stderr)")
        }
    }

    @Test(
        "real songs heard in a room, excerpts of 12 to 30 s through a camera: at least 95 % found where they were cut, within 0.1 ms; none placed wrong",
        arguments: [fishin, vibeAce])
    func realMusic(song: String) throws {
        let shoot = try PlaybackShoot.excerpts(song: song)
        let root = try write(shoot)
        let (report, _) = try sync(root)
        let places = used(report, root: root, shoot: shoot)
        var right = 0
        for c in shoot.clips.indices {
            guard let (r, start) = places[c] else { continue }
            let truth = shoot.start(ofClip: c, inRecorder: r)
            if abs(start - truth) <= 0.0001 {
                right += 1
            } else {
                Issue.record("clip \(c) placed at \(start) s, truth \(truth) s (off by \((start - truth) * 1000) ms)")
            }
        }
        #expect(
            Double(right) >= 0.95 * Double(shoot.clips.count),
            "\(right) of \(shoot.clips.count) excerpts found where they were cut")
    }
}
