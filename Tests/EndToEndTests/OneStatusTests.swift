import DriftFixtures
import Foundation
import Testing

/// One status per file on a sound night: each clip paired, repeated, unconfirmed, too short or unheard; each recording
/// heard, unsettled (it heard clips only at places left for a person) or unheard; the same in the table, the JSON,
/// the CSV, the HTML and the scan report, which two readers (jq, Python) read without a note.
@Suite(
    "one status per file on a sound night, the same in every output (the built binary)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg not installed"))
struct OneStatusTests {
    @Test(
        "a clip heard once, one heard twice, a 0.7 s clip, a clip of sound never recorded, a recorder that heard only a repeat, one that heard nothing"
    )
    func oneStatusEach() throws {
        let rootA = TemporaryFolder()
        let rootB = TemporaryFolder()
        // A: a block twice, a unique clip, a clip too short to measure, a clip of sound no recorder heard, a recorder
        // of other sound.
        let a = RepeatShoot(
            leadSeconds: 14, blockSeconds: 8, gapSeconds: 10, recorderSeconds: 48, clipInBlock: 0.5, clipSeconds: 7,
            uniqueClip: (2, 9), seed: 5101)
        try a.write(to: rootA.path, name: "A")
        try a.writeClip(at: 11.2, seconds: 0.7, named: "C-A-SHORT.MP4", in: rootA.path)
        try a.writeClip(at: 90, seconds: 9, named: "C-A-NONE.MP4", in: rootA.path)
        try TwoMicrophones(sampleRate: 16000, seconds: 30, seed: 5102).write(
            .recording, to: rootA.file("OTHER.WAV"))
        // B: a recorder that holds a block twice and nothing else that any clip has.
        let b = RepeatShoot(
            leadSeconds: 1, blockSeconds: 8, gapSeconds: 3, recorderSeconds: 22, clipInBlock: 0.5, clipSeconds: 7,
            seed: 5103)
        try b.write(to: rootB.path, name: "B")
        let truth = [
            rootA.file("C-A-ONCE.MP4"): "paired", rootA.file("C-A-BLOCK.MP4"): "repeats",
            rootA.file("C-A-SHORT.MP4"): "too-short", rootA.file("C-A-NONE.MP4"): "unheard",
            rootB.file("C-B-BLOCK.MP4"): "repeats",
        ]
        let recordings = [
            rootA.file("REC-A.WAV"): "heard", rootA.file("OTHER.WAV"): "unheard", rootB.file("REC-B.WAV"): "unsettled",
        ]
        let out = TemporaryFolder("driftfix-out")
        let reports = TemporaryFolder("driftfix-report")
        let sync = try driftfix(
            ["sync", rootA.path, rootB.path, "--out", out.path, "--format", "json", "--report", reports.path])
        #expect(sync.status == 1, "clips left for a person: \(sync.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(sync.stdout.utf8)) as? [String: Any])
        // JSON: every file once in its group's `files`.
        let files = (report["groups"] as? [[String: Any]] ?? []).flatMap { $0["files"] as? [[String: Any]] ?? [] }
        let paths = files.compactMap { $0["path"] as? String }
        #expect(paths.count == Set(paths).count, "a file listed twice: \(paths)")
        let status = Dictionary(
            files.compactMap { f in (f["path"] as? String).map { ($0, f["status"] as? String ?? "") } },
            uniquingKeysWith: { $0 + "," + $1 })
        #expect(status == truth.merging(recordings) { $1 }, "\(files)")
        // The lists by status are the same sets, each file in one only.
        for group in report["groups"] as? [[String: Any]] ?? [] {
            let lists = [
                "unmatchedClips", "uncertainClips", "unconfirmedClips", "shortClips", "unmatchedRecordings",
                "unsettledRecordings",
            ].flatMap { group[$0] as? [String] ?? [] }
            #expect(lists.count == Set(lists).count, "\(group)")
        }
        let left = report["leftForAPerson"] as? [[String: Any]] ?? []
        var whys: [String: String] = [:]
        for entry in left {
            guard let clip = entry["clip"] as? String else { continue }
            whys[clip] = (whys[clip].map { $0 + "," } ?? "") + (entry["why"] as? String ?? "")
        }
        #expect(whys == truth.filter { $0.value != "paired" }, "\(left)")
        let short = try #require(left.first { $0["clip"] as? String == rootA.file("C-A-SHORT.MP4") })
        #expect((short["wouldDecide"] as? String)?.contains("at least") == true)

        // The two readers, on the sync JSON and on the scan report of the same roots.
        let syncJSON = reports.file("sync.json")
        try Data(sync.stdout.utf8).write(to: URL(fileURLWithPath: syncJSON))
        let scan = try driftfix(["scan", rootA.path, rootB.path, "--pair-by", "sound", "--format", "json"])
        let scanJSON = reports.file("scan.json")
        try Data(scan.stdout.utf8).write(to: URL(fileURLWithPath: scanJSON))
        let readers = [
            ("/usr/bin/jq", ["-r", "-f", "\(Self.scripts)/readers/clip-status.jq"]),
            ("/usr/bin/env", ["python3", "\(Self.scripts)/readers/clip-status.py"]),
        ]
        for (tool, arguments) in readers {
            for json in [syncJSON, scanJSON] {
                let read = try runTool(tool, arguments + [json])
                var found: [String: String] = [:]
                for line in read.split(separator: "\n") {
                    let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else { continue }
                    #expect(found[parts[1]] == nil, "\(tool) \(json): \(parts[1]) twice")
                    found[parts[1]] = parts[0]
                }
                #expect(found == truth, "\(tool) on \(json)")
            }
        }
        let scanned = try #require(try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any])
        let unpaired = scanned["unpaired"] as? [[String: Any]] ?? []
        var unpairedRecordings: [String: String] = [:]
        for entry in unpaired where entry["kind"] as? String == "recording" {
            guard let path = entry["path"] as? String else { continue }
            unpairedRecordings[path] =
                (unpairedRecordings[path].map { $0 + "," } ?? "") + (entry["status"] as? String ?? "")
        }
        #expect(unpairedRecordings == recordings.filter { $0.value != "heard" })

        // The table: each file under one heading; the recorder that heard a repeat is not "heard no clip".
        let table = try driftfix(["sync", rootA.path, rootB.path, "--format", "table"]).stdout
        let heardNone = table.split(separator: "\n").filter { $0.contains("recordings that heard no clip") }
        #expect(
            heardNone.count == 1 && heardNone[0].contains("OTHER.WAV") && !heardNone[0].contains("REC-B"), "\(table)")
        #expect(
            table.split(separator: "\n").contains {
                $0.contains("only at places left for a person") && $0.contains("REC-B.WAV")
            }, "\(table)")
        #expect(!table.contains("clips no recording heard: C-A-SHORT"), "\(table)")
        #expect(table.contains("C-A-SHORT.MP4: too short to measure"), "\(table)")
        // The CSV: one status row per file not paired.
        let csv = try driftfix(["sync", rootA.path, rootB.path, "--format", "csv"]).stdout
        let statusRows = csv.split(separator: "\n").filter { $0.contains("-clip,") || $0.contains("-recording,") }
        #expect(statusRows.filter { $0.contains("C-A-SHORT.MP4") }.count == 1, "\(csv)")
        #expect(statusRows.contains { $0.contains("C-A-SHORT.MP4") && $0.contains(",short-clip,") }, "\(csv)")
        #expect(statusRows.contains { $0.contains("REC-B.WAV") && $0.contains(",unsettled-recording,") }, "\(csv)")
        #expect(!statusRows.contains { $0.contains("REC-B.WAV") && $0.contains(",unmatched-recording,") })
        // The HTML says the same.
        let html = try String(contentsOfFile: reports.file("report.html"), encoding: .utf8)
        #expect(html.contains("class=\"files recording unsettled\"") && html.contains("class=\"left too-short\""))
    }

    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts").path
}
