import DriftAudio
import DriftFixtures
import DriftJournal
import Foundation
import Testing

private let ffmpeg = "/usr/bin/ffmpeg"

/// A shoot whose names say nothing: one recorder on a slow clock (16 kHz, 3 minutes) and `clips` camera clips of
/// 9 to 13 s it heard, written as a camera writes them (AAC scratch tracks).
func soundShoot(clips: Int) throws -> (Shoot, TemporaryFolder) {
    let shoot = Shoot(
        sound: .speech, seed: 91, sampleRate: 16000,
        recorders: [Shoot.Recorder(start: -4, seconds: 20 + 20 * Double(clips), driftPPM: -120)],
        clips: (0..<clips).map { Shoot.Clip(start: 8 + 20 * Double($0), seconds: 9 + Double($0 % 5)) })
    let root = TemporaryFolder()
    try FileManager.default.createDirectory(atPath: root.file("audio"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: root.file("camera"), withIntermediateDirectories: true)
    try shoot.writeRecorder(0, to: root.file("audio/REC0001.WAV"))
    for c in shoot.clips.indices { try shoot.writeCameraClip(c, to: root.file(clipName(c))) }
    return (shoot, root)
}

func clipName(_ c: Int) -> String { String(format: "camera/T%03d.MP4", c + 1) }
func outputName(_ c: Int) -> String { String(format: "camera/T%03d.wav", c + 1) }

/// Every clip's audio is there, its length the clip's at the recorder's rate, and in sync with the truth the scene's
/// numbers render (never driftfix's own report).
private func expectSynced(_ shoot: Shoot, out: String, _ context: String) throws {
    for c in shoot.clips.indices {
        let written = try readAll((out as NSString).appendingPathComponent(outputName(c)))
        let frames = Int64(shoot.clips[c].seconds * Double(shoot.sampleRate))
        #expect(abs(written.frames - frames) <= 1024, "\(context): clip \(c): \(written.frames) frames for \(frames)")
        let lags = shoot.lagsAgainstIdeal(written.samples, clip: c)
        #expect(
            lags.count >= 2 && abs(lags.sorted()[lags.count / 2]) < 0.05, "\(context): clip \(c): lags \(lags) ms")
    }
    #expect(hiddenFiles(under: out).isEmpty, "\(context): temporary files left: \(hiddenFiles(under: out))")
}

private func identities(_ out: String, clips: Int) -> [String?] {
    (0..<clips).map { identity((out as NSString).appendingPathComponent(outputName($0))) }
}

@Suite(
    "sound nights: the journal, unchanged clips, --full, --resume",
    .serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: ffmpeg), "ffmpeg not installed"))
struct SoundNightTests {
    @Test(
        "a second sound night rewrites nothing; a changed clip and a deleted output are cut again, alone; --full cuts every clip; the history holds the sound rows"
    )
    func unchangedNights() throws {
        let clips = 6
        let (shoot, root) = try soundShoot(clips: clips)
        let out = TemporaryFolder("driftfix-out")
        let night = ["repair", root.path, "--out", out.path, "--pair-by", "sound", "--workers", "2"]

        let first = try driftfix(night)
        #expect(first.status == 0, "\(first.stdout)\n\(first.stderr)")
        #expect(first.stdout.contains("\(clips) repaired, 0 unchanged"), "\(first.stdout)")
        try expectSynced(shoot, out: out.path, "first night")
        let written = identities(out.path, clips: clips)
        #expect(written.allSatisfy { $0 != nil })

        let second = try driftfix(night)
        #expect(second.status == 0, "\(second.stdout)\n\(second.stderr)")
        #expect(second.stdout.contains("0 repaired, \(clips) unchanged"), "\(second.stdout)")
        #expect(identities(out.path, clips: clips) == written, "an unchanged night rewrites nothing")
        #expect(!second.stderr.contains("prints on workers"), "every print was kept: \(second.stderr)")

        // One clip re-encoded (a new file by its fingerprint), one output deleted: those two alone are cut again.
        try shoot.writeCameraClip(1, to: root.file(clipName(1)))
        unlink(out.file(outputName(4)))
        let third = try driftfix(night)
        #expect(third.status == 0, "\(third.stdout)\n\(third.stderr)")
        #expect(third.stdout.contains("2 repaired, \(clips - 2) unchanged"), "\(third.stdout)")
        let now = identities(out.path, clips: clips)
        for c in 0..<clips where c != 1 && c != 4 { #expect(now[c] == written[c], "clip \(c) was rewritten") }
        #expect(now[1] != written[1] && now[4] != nil)
        try expectSynced(shoot, out: out.path, "after a changed clip")

        let full = try driftfix(night + ["--full"])
        #expect(full.status == 0, "\(full.stdout)\n\(full.stderr)")
        #expect(full.stdout.contains("\(clips) repaired, 0 unchanged"), "\(full.stdout)")
        let rewritten = identities(out.path, clips: clips)
        for c in 0..<clips { #expect(rewritten[c] != now[c], "--full cuts clip \(c) again") }
        try expectSynced(shoot, out: out.path, "--full")

        // The nights are runs in the journal like any other: the history shows the recorder's drift, by its device
        // (its folder), night after night.
        let history = try driftfix(["history", "--out", out.path, "--format", "json"])
        #expect(history.status == 0, "\(history.stderr)")
        let fleet = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])
        let devices = try #require(fleet["devices"] as? [[String: Any]])
        let audio = try #require(devices.first { $0["name"] as? String == "audio" }, "\(devices)")
        let drifts = audio["ppm"] as? [Double] ?? []
        #expect(drifts.count == 4 && drifts.allSatisfy { abs($0 + 120) < 3 }, "\(audio)")
    }

    @Test(
        "--resume: refused without a journal, creating nothing; a night killed after 3 clips were verified resumes without cutting them again"
    )
    func resume() throws {
        let clips = 8
        let (shoot, root) = try soundShoot(clips: clips)
        let out = TemporaryFolder("driftfix-out")
        let night = [
            "repair", root.path, "--out", out.path, "--pair-by", "sound", "--workers", "1", "--heartbeat", "0.5",
        ]

        let nothing = try driftfix(night + ["--resume"])
        #expect(nothing.status == 1, "\(nothing.stdout)\n\(nothing.stderr)")
        #expect(nothing.errorLines.count == 1 && nothing.stderr.contains("nothing to resume: there is no journal"))
        #expect(!FileManager.default.fileExists(atPath: out.file(".driftfix")), "nothing created")

        // The coordinator kills itself once the third clip's verified result is in the journal.
        let crashed = try Background(night, environment: ["DRIFTFIX_FAILPOINT": "result-clip:3"])
        let crash = crashed.wait(seconds: 180)
        #expect(crash.signaled && crash.status == SIGKILL, "\(crash.stderr)")
        #expect(waitUntil(seconds: 20) { localWorkers(of: crashed.pid).isEmpty }, "orphaned workers stop on their own")
        let journal = try Journal(path: Journal.defaultPath(outputRoot: out.path), readOnly: true)
        let verified = try journal.jobs(run: 1).compactMap { job -> String? in
            guard case .done(let result) = job.state else { return nil }
            return result.outcome.columns.sound?.matches?.first { $0.status == .used }?.outputText
        }
        #expect(verified.count == 3, "\(verified)")
        let before = verified.map(identity)

        let resumed = try driftfix(night + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stdout)\n\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming run 1") && resumed.stderr.contains("3 clips already synced are kept"))
        #expect(resumed.stdout.contains("\(clips) repaired, 0 unchanged"), "\(resumed.stdout)")
        #expect(verified.map(identity) == before, "verified clips were not cut again")
        try expectSynced(shoot, out: out.path, "resumed")

        // A journal with no unfinished sound night: nothing to resume, said so.
        let again = try driftfix(night + ["--resume"])
        #expect(again.status == 1 && again.stderr.contains("has no unfinished run"), "\(again.stderr)")
    }
}
