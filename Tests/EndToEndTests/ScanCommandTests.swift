import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

/// A small tree: drifted, in-sync, mislabelled, unexplained, broken and unpaired files.
private func makeTree(_ root: TemporaryFolder) throws {
    let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
    func movie(_ seconds: UInt64) -> Data {
        Data(
            Boxes.ftyp().bytes
                + Box(
                    "moov",
                    children: [
                        Boxes.mvhd(timescale: 1000, duration: seconds * 1000),
                        Boxes.track(id: 1, handler: "vide", timescale: 30_000, duration: seconds * 30_000),
                    ]
                ).bytes + Boxes.mdat(256).bytes)
    }
    for folder in ["camA", "camB", "stage"] {
        try FileManager.default.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
    }
    let files: [(String, Int64, UInt64)] = [
        ("camA/t1", 959_940, 20), ("camA/t2", 96_000, 2), ("camB/t3", 95_904, 2), ("stage/t4", 88_200, 2),
        ("stage/t5", 80_000, 2),
    ]
    for (name, frames, seconds) in files {
        try writeRecording(TestSignal(channelCount: 1, length: frames), to: root.file(name + ".wav"), format: format)
        try movie(seconds).write(to: URL(fileURLWithPath: root.file(name + ".mov")))
    }
    try "garbage".write(toFile: root.file("camB/t6.wav"), atomically: true, encoding: .utf8)
    try movie(2).write(to: URL(fileURLWithPath: root.file("camB/t6.mov")))
    try writeMonoWAV(frames: 100, to: root.file("stage/lonely.wav"))
}

private let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite("driftfix scan (the built binary)")
struct ScanCommandTests {
    @Test("JSON: every pair with its cause and plan; bad files are rows; exit 1 when anything failed")
    func json() throws {
        let root = TemporaryFolder()
        try makeTree(root)
        let result = try driftfix(["scan", root.path, "--format", "json"])
        #expect(result.status == 1, "a broken pair makes the exit code 1")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let pairs = try #require(object["pairs"] as? [[String: Any]])
        var byName: [String: [String: Any]] = [:]
        for pair in pairs {
            let recording = pair["recording"] as? String ?? ""
            byName[(recording as NSString).lastPathComponent] = pair
        }
        #expect(byName["t1.wav"]?["action"] as? String == "resample")
        #expect(byName["t1.wav"]?["cause"] as? String == "clock-drift")
        #expect(byName["t1.wav"]?["targetFrames"] as? Int == 960_000)
        #expect(byName["t2.wav"]?["action"] as? String == "skip")
        #expect(byName["t3.wav"]?["cause"] as? String == "ntsc-pull-down")
        #expect(byName["t4.wav"]?["cause"] as? String == "rate-mislabel")
        #expect(byName["t5.wav"]?["action"] as? String == "refuse")
        #expect(byName["t6.wav"]?["error"] as? String != nil)
        #expect((object["unpaired"] as? [[String: Any]])?.first?["path"] as? String == root.file("stage/lonely.wav"))
        for key in [
            "recording", "reference", "sampleRate", "recordingFrames", "recordingSeconds", "referenceSeconds",
            "driftSeconds", "driftPPM", "action", "targetFrames", "error",
        ] {
            #expect(pairs.allSatisfy { $0.keys.contains(key) }, "every row has \(key)")
        }
    }

    @Test("CSV and table formats; a clean tree exits 0")
    func formats() throws {
        let root = TemporaryFolder()
        try makeTree(root)
        let csv = try driftfix(["scan", root.path, "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.count == 8)  // header + 6 pairs + the unpaired recording, as a row of its own kind
        #expect(lines.filter { $0.hasSuffix(",pair") }.count == 6)
        #expect(
            lines.last?.hasPrefix(root.file("stage/lonely.wav") + ",,") == true
                && lines.last?.hasSuffix(",unpaired") == true,
            "\(lines.last ?? "")")
        let table = try driftfix(["scan", root.path, "--format", "table"])
        #expect(table.stdout.contains("camA/t1.wav"))
        #expect(table.stdout.contains("6 pairs"))
        try FileManager.default.removeItem(atPath: root.file("camB"))
        try FileManager.default.removeItem(atPath: root.file("stage/t5.wav"))
        #expect(try driftfix(["scan", root.path, "--format", "json"]).status == 0)
    }

    @Test("a broken config is exit 2 naming the line and key")
    func badConfig() throws {
        let root = TemporaryFolder()
        try "scan:\n  patterns: 5\n".write(toFile: root.file("c.yaml"), atomically: true, encoding: .utf8)
        let result = try driftfix(["scan", root.path, "--config", root.file("c.yaml")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("c.yaml:2: scan.patterns: expected a list"))
    }

    @Test(
        "the report folder: JSON, CSV and an HTML page that renders in Chromium with the JSON's numbers",
        .enabled(if: chromium != nil, "chromium not installed"))
    func reportFolder() throws {
        let root = TemporaryFolder()
        try makeTree(root)
        let out = TemporaryFolder()
        _ = try driftfix(["scan", root.path, "--format", "json", "--report", out.path])
        #expect(out.entries() == ["devices.csv", "report.csv", "report.html", "report.json"])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out.file("report.json"))))
                as? [String: Any])
        let summary = try #require(json["summary"] as? [String: Any])
        let html = try String(contentsOfFile: out.file("report.html"), encoding: .utf8)
        #expect(
            !html.contains("http://") && !html.contains("https://") && !html.contains("<script src"), "self-contained")

        // The virtual time budget lets the page unpack its pair table before the DOM is dumped.
        let browser = try Child(
            try #require(chromium),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000", "--dump-dom",
                "file://" + out.file("report.html"),
            ], stderr: .discard
        ).wait(seconds: 120)
        let dom = browser.stdout
        #expect(browser.status == 0)
        func rendered(_ id: String) -> String? {
            guard let range = dom.range(of: "id=\"summary-\(id)\" data-value=\"") else { return nil }
            return String(dom[range.upperBound...].prefix { $0 != "\"" })
        }
        #expect(rendered("pairs") == "\(summary["pairs"] as? Int ?? -1)")
        #expect(rendered("repair") == "\(summary["needRepair"] as? Int ?? -1)")
        #expect(rendered("refused") == "\(summary["refused"] as? Int ?? -1)")
        #expect(rendered("errors") == "\(summary["errors"] as? Int ?? -1)")
        let worst = try #require(Double(rendered("worst") ?? ""))
        #expect(abs(worst - (summary["worstDriftPPM"] as? Double ?? 0)) < 1e-6)
        // Every pair in the paged table (one page holds them all here).
        let table = try #require(dom.range(of: "<table id=\"pairs\"")).upperBound
        let rows =
            dom[table...].prefix { _ in true }.components(separatedBy: "</table>")[0].components(
                separatedBy: "<tr class="
            ).count - 1
        #expect(rows == (json["pairs"] as? [Any])?.count)
        #expect(dom.contains("pairs 1–\(rows) of \(rows)"))
        #expect(dom.contains("id=\"histogram\"") && dom.contains("id=\"by-device\"") && dom.contains("id=\"scatter\""))
    }
}

@Suite("driftfix scan: what QA must see, in every format (the built binary)")
struct ScanVisibilityTests {
    @Test("two references for one recording: the choice is said in the table, JSON, CSV and HTML")
    func ambiguity() throws {
        let root = TemporaryFolder()
        let report = TemporaryFolder()
        try writeMonoWAV(frames: 48_000, to: root.file("take.wav"))
        for ext in ["mov", "mp4"] {
            let movie = Boxes.movie(milliseconds: 1000)
            try Data(movie).write(to: URL(fileURLWithPath: root.file("take.\(ext)")))
        }
        let warning = "2 references for one recording: take.mov chosen over take.mp4"
        let table = try driftfix(["scan", root.path, "--format", "table", "--report", report.path])
        #expect(table.status == 0, "a warning is not a failure: \(table.stderr)")
        #expect(table.stdout.contains("warning: \(warning)"), "\(table.stdout)")
        #expect(!table.stdout.contains("unpaired reference"), "the other reference is not called unpaired")
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report.file("report.json"))))
            as? [String: Any]
        let row = try #require((json?["pairs"] as? [[String: Any]])?.first)
        #expect((row["warnings"] as? [String])?.first?.hasPrefix(warning) == true, "\(row)")
        #expect((json?["summary"] as? [String: Any])?["warned"] as? Int == 1)
        let csv = try String(contentsOfFile: report.file("report.csv"), encoding: .utf8)
        #expect(csv.split(separator: "\n")[1].contains(warning))
        let html = try String(contentsOfFile: report.file("report.html"), encoding: .utf8)
        #expect(html.contains(warning))
        // Refused until the configuration chooses, when it says so.
        try "scan:\n  ambiguous-references: refuse\n".write(
            toFile: root.file("c.yaml"), atomically: true, encoding: .utf8)
        let refused = try driftfix(["scan", root.path, "--format", "json", "--config", root.file("c.yaml")])
        #expect(refused.status == 1 && refused.stdout.contains("refused until the configuration chooses"))
    }

    @Test("a newline in a file name stays on its row; unpaired files and errors are in the CSV")
    func oddNames() throws {
        let root = TemporaryFolder()
        try writeMonoWAV(frames: 48_000, to: root.file("line\nbreak.wav"))
        try "0.5\n".write(toFile: root.file("line\nbreak.duration"), atomically: true, encoding: .utf8)
        try writeMonoWAV(frames: 4_800, to: root.file("録音.wav"))
        let table = try driftfix(["scan", root.path, "--format", "table"])
        let lines = table.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains { $0.hasPrefix("line\\nbreak.wav ") && $0.contains("24000 frames") }, "\(table.stdout)")
        #expect(lines.contains { $0 == "unpaired recording: 録音.wav (no reference with the same name)" })
        let csv = try driftfix(["scan", root.path, "--format", "csv"]).stdout
        #expect(csv.contains("\"\(root.file("line\nbreak.wav"))\""), "RFC 4180 quoting keeps the name whole")
        #expect(csv.contains(",unpaired\n"))
    }
}
