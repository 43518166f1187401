import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

private let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}
private let ffmpeg = "/usr/bin/ffmpeg"

private func writePair(_ scene: TwoMicrophones, folder: String, name: String) throws {
    try scene.writeCameraPair(folder: folder, name: name)
}

private func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

@Suite(
    "Content measurement and repair by the sound (the built binary)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: ffmpeg), "ffmpeg not installed"))
struct ContentCommandTests {
    @Test("measure: the JSON object reports carry, near the truth; a wrong pairing is unmeasurable, exit 1")
    func measure() throws {
        let folder = TemporaryFolder()
        try writePair(
            TwoMicrophones(sampleRate: 48000, seconds: 90, offset: 1.25, driftPPM: -131, seed: 61), folder: folder.path,
            name: "late")
        try writePair(TwoMicrophones(sampleRate: 48000, seconds: 60, seed: 62), folder: folder.path, name: "other")
        let result = try driftfix(["measure", folder.file("late.wav"), folder.file("late.mp4"), "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let m = try json(result.stdout)
        for key in [
            "offsetMs", "driftPPM", "driftPPMError", "model", "confidence", "dropouts", "headersAgree", "residualMs",
        ] {
            #expect(m.keys.contains(key), "missing \(key)")
        }
        #expect(m["model"] as? String == "clock")
        #expect(abs((m["offsetMs"] as? Double ?? 0) - 1250) < 0.5)
        #expect(abs((m["driftPPM"] as? Double ?? 0) + 131) < 1)
        #expect(m["residualMs"] is NSNull)

        let wrong = try driftfix(["measure", folder.file("late.wav"), folder.file("other.mp4"), "--format", "json"])
        #expect(wrong.status == 1)
        let w = try json(wrong.stdout)
        #expect(w["model"] as? String == "unmeasurable" && w["offsetMs"] is NSNull)
        #expect(w["unmeasurable"] as? String == "no-common-sound")

        let table = try driftfix(["measure", folder.file("late.wav"), folder.file("late.mp4"), "--format", "table"])
        #expect(table.stdout.contains("model       clock") && table.stdout.contains("started after the reference"))
    }

    @Test("verify --sync: a late recording fails, passes at its true offset, and the JSON carries the curve")
    func verifySync() throws {
        let folder = TemporaryFolder()
        try writePair(
            TwoMicrophones(sampleRate: 48000, seconds: 60, offset: 0.5, seed: 63), folder: folder.path, name: "take")
        let late = try driftfix(["verify", folder.file("take.wav"), "--sync", folder.file("take.mp4")])
        #expect(late.status == 1 && late.stdout.contains("OUT OF SYNC"), "\(late.stdout)")
        let atOffset = try driftfix([
            "verify", folder.file("take.wav"), "--sync", folder.file("take.mp4"), "--offset-ms", "500",
            "--format", "json",
        ])
        #expect(atOffset.status == 0, "\(atOffset.stdout) \(atOffset.stderr)")
        let v = try json(atOffset.stdout)
        #expect((v["residualMs"] as? Double ?? 99) < 1)
        #expect((v["curve"] as? [Any])?.isEmpty == false && v["passed"] as? Bool == true)
        let missing = try driftfix(["verify", folder.file("take.wav"), "--sync", folder.file("nothing.mp4")])
        #expect(missing.status == 1 && missing.stderr.contains("nothing.mp4"))
    }

    @Test("scan --content measures on workers: the row's figures and plan are the sound's, the lengths kept apart")
    func scanContent() throws {
        let root = TemporaryFolder()
        try writePair(
            TwoMicrophones(sampleRate: 48000, seconds: 60, offset: 1.5, seed: 64), folder: root.file("camA"),
            name: "late")
        try writePair(TwoMicrophones(sampleRate: 48000, seconds: 45, seed: 65), folder: root.file("camB"), name: "sync")
        let result = try driftfix(["scan", root.path, "--content", "--workers", "2", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        let pairs = try #require(report["pairs"] as? [[String: Any]])
        let late = try #require(pairs.first { ($0["recording"] as? String)?.hasSuffix("late.wav") == true })
        let content = try #require(late["content"] as? [String: Any])
        #expect(abs((content["offsetMs"] as? Double ?? 0) - 1500) < 0.5)
        #expect(content["disagreement"] as? String == "late start" && content["headersAgree"] as? Bool == false)
        #expect((late["contentNote"] as? String)?.contains("would pad-start") == true, "\(late["contentNote"] ?? "")")
        // The lengths differ by 1.5 s and more (a late start): no clock drifts that far. The sound says what happened.
        #expect(late["measuredBy"] as? String == "content" && late["cause"] as? String == "late-start")
        #expect(late["action"] as? String == "align", "pad the start, at the clock's own rate")
        #expect(abs((late["startOffsetMs"] as? Double ?? 0) + 1500) < 0.5)
        #expect(((late["lengths"] as? [String: Any])?["differenceSeconds"] as? Double ?? 0) < -1.4)
        let inSync = try #require(pairs.first { ($0["recording"] as? String)?.hasSuffix("sync.wav") == true })
        #expect((inSync["content"] as? [String: Any])?["model"] as? String == "in-sync")
    }

    @Test(
        "repair by content on workers: a late start padded, dropouts re-inserted, each proved in sync against the ideal; the HTML draws them",
        .enabled(if: chromium != nil, "chromium not installed"))
    func repairByContent() throws {
        let root = TemporaryFolder()
        let out = TemporaryFolder("driftfix-out")
        let reports = TemporaryFolder()
        let late = TwoMicrophones(sampleRate: 48000, seconds: 75, offset: 1.5, driftPPM: -131, seed: 66)
        var dropped = TwoMicrophones(sampleRate: 48000, seconds: 75, seed: 67)
        dropped.dropouts = [(dropped.soundingTime(after: 20.1), 0.030), (dropped.soundingTime(after: 51.3), 0.012)]
        try writePair(late, folder: root.file("recorder-A"), name: "late")
        try writePair(dropped, folder: root.file("recorder-B"), name: "dropped")
        try "content:\n  measure: content\n".write(
            toFile: root.file(".content.yaml"), atomically: true, encoding: .utf8)
        let result = try driftfix(
            [
                "repair", root.path, "--out", out.path, "--workers", "2", "--config", root.file(".content.yaml"),
                "--report", reports.path,
            ], seconds: 600)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let report = try json(try String(contentsOfFile: reports.file("report.json"), encoding: .utf8))
        let pairs = try #require(report["pairs"] as? [[String: Any]])
        for pair in pairs {
            let name = (pair["recording"] as? String ?? "")
            let content = try #require(pair["content"] as? [String: Any], "\(name)")
            #expect(pair["outcome"] as? String == "repaired" && pair["measuredBy"] as? String == "content", "\(name)")
            #expect(
                (content["residualMs"] as? Double ?? 99) < 1, "\(name): residual \(content["residualMs"] ?? "none")")
            #expect((content["residualCurve"] as? [Any])?.isEmpty == false)
        }
        let latePair = try #require(pairs.first { ($0["recording"] as? String)?.hasSuffix("late.wav") == true })
        #expect((latePair["operations"] as? [String])?.first?.hasPrefix("pad-start") == true)
        let droppedPair = try #require(pairs.first { ($0["recording"] as? String)?.hasSuffix("dropped.wav") == true })
        #expect((droppedPair["operations"] as? [String])?.allSatisfy { $0.hasPrefix("insert") } == true)

        // Independently: every output lines up with the scene on a perfect clock from the reference's start.
        for (scene, path) in [(late, out.file("recorder-A/late.wav")), (dropped, out.file("recorder-B/dropped.wav"))] {
            let written = try readAll(path)
            let mono = stride(from: 0, to: written.samples.count, by: 2).map { written.samples[$0] }
            var ideal = scene
            ideal.offset = 0
            ideal.driftPPM = 0
            ideal.dropouts = []
            ideal.seconds = Double(mono.count) / 48000
            let truth = ideal.recording()
            var checked = 0
            for k in 0..<10 {
                let at = Int((max(0, scene.offset) + 2 + Double(k) * 6.5) * 48000)
                let (lag, correlation) = SignalMeasure.windowLag(
                    actual: mono, ideal: truth, at: at, window: 24000, maxLag: 96)
                guard correlation > 0.6 else { continue }
                checked += 1
                #expect(abs(lag) < 0.25 * 48, "\(path) at \(Double(at) / 48000) s: \(lag / 48) ms off the ideal")
            }
            #expect(checked >= 5)
        }

        // The page draws each pair's lag curves with the JSON's numbers.
        let browser = try Child(
            try #require(chromium),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                "file://" + reports.file("report.html"),
            ], stderr: .discard
        ).wait(seconds: 120)
        #expect(browser.status == 0)
        let dom = browser.stdout
        #expect(dom.contains("id=\"content\""))
        for pair in pairs {
            let recording = pair["recording"] as? String ?? ""
            guard let range = dom.range(of: "data-recording=\"\(recording)\"") else {
                Issue.record("no figure for \(recording)")
                continue
            }
            let figure = String(dom[range.upperBound...].prefix(600))
            let residual = (pair["content"] as? [String: Any])?["residualMs"] as? Double
            #expect(figure.contains("data-residual-ms=\"\(residual ?? -1)\""), "\(figure)")
            #expect(figure.contains("class=\"curve sound\"") || dom.contains("curve sound"))
        }

        // The next night: outputs current, nothing measured or written again.
        let again = try driftfix(
            ["repair", root.path, "--out", out.path, "--workers", "1", "--config", root.file(".content.yaml")],
            seconds: 300)
        #expect(again.status == 0 && again.stdout.contains("0 repaired, 2 unchanged"), "\(again.stdout)")
    }

    @Test(
        "content.measure content: a late start the headers refuse (beyond 5 %) is explained by the sound and repaired")
    func contentExplainsAHeaderRefusal() throws {
        let root = TemporaryFolder()
        let out = TemporaryFolder("driftfix-out")
        try writePair(
            TwoMicrophones(sampleRate: 48000, seconds: 30, offset: 2, seed: 69), folder: root.path, name: "short")
        try "content:\n  measure: content\n".write(toFile: root.file(".c.yaml"), atomically: true, encoding: .utf8)
        let scan = try driftfix(["scan", root.path, "--format", "json"])
        #expect(scan.stdout.contains("\"action\" : \"refuse\""), "the headers alone refuse it")
        let result = try driftfix(
            ["repair", root.path, "--out", out.path, "--workers", "1", "--config", root.file(".c.yaml")],
            seconds: 300)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("late start") && result.stdout.contains("1 repaired"), "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: out.file("short.wav")))
    }

    @Test("content.measure both: a late start the headers took for drift is refused by name, nothing written, exit 1")
    func bothRefuses() throws {
        let root = TemporaryFolder()
        let out = TemporaryFolder("driftfix-out")
        try writePair(
            TwoMicrophones(sampleRate: 48000, seconds: 120, offset: 2, seed: 68), folder: root.path, name: "take")
        try "content:\n  measure: both\n".write(toFile: root.file(".c.yaml"), atomically: true, encoding: .utf8)
        let result = try driftfix(
            ["repair", root.path, "--out", out.path, "--workers", "1", "--config", root.file(".c.yaml")],
            seconds: 300)
        #expect(result.status == 1)
        #expect(result.stdout.contains("refused") && result.stdout.contains("late start"), "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out.file("take.wav")))
    }
}
