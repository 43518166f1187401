import DriftFixtures
import Foundation
import Testing

/// "Never a guess" at every distance: generated recorders that hold a block twice (the same samples) at distances
/// from overlapping to two minutes apart, in recorders from barely longer than the clip to ten times it, each with a
/// clip of the block and, where there is room, a clip of sound heard once; one `driftfix sync` over all of them.
@Suite(
    "a sound heard twice is never a guess at any distance (the built binary, generated recorders)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg not installed"))
struct RepeatAnyDistanceTests {
    @Test(
        "blocks of 3-30 s twice, overlapping to 120 s apart: a clip of the block is cut only where a witness chose; unique sound found"
    )
    func anyDistance() throws {
        // The case found by hand first (a 26 s recorder, a 7.6 s block twice 18.5 s apart, a 7.4 s clip of it), then
        // random ones.
        let found = RepeatShoot(
            leadSeconds: 0.3, blockSeconds: 7.6, gapSeconds: 10.9, recorderSeconds: 26, clipInBlock: 0.1,
            clipSeconds: 7.4, seed: 4799)
        let shoots = [found] + (0..<40).map { RepeatShoot.random(seed: 4800 + UInt64($0)) }
        let root = TemporaryFolder()
        for (index, shoot) in shoots.enumerated() { try shoot.write(to: root.file("case\(index)"), name: "\(index)") }
        let out = TemporaryFolder("driftfix-out")
        let result = try driftfix(
            ["sync"] + shoots.indices.map { root.file("case\($0)") } + ["--format", "json", "--out", out.path],
            seconds: 900)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let rows = (report["groups"] as? [[String: Any]] ?? []).flatMap { $0["matches"] as? [[String: Any]] ?? [] }
        let left = Set((report["leftForAPerson"] as? [[String: Any]] ?? []).compactMap { $0["clip"] as? String })
        var (twice, once, onceFound, unique, uniqueFound) = (0, 0, 0, 0, 0)
        for (index, shoot) in shoots.enumerated() {
            let folder = root.file("case\(index)")
            let names = RepeatShoot.files("\(index)")
            func used(_ clip: String) -> [[String: Any]] {
                rows.filter { $0["reference"] as? String == "\(folder)/\(clip)" && $0["status"] as? String == "used" }
            }
            func found(_ clip: String, at seconds: Double) -> Bool {
                let rows = used(clip)
                return rows.count == 1
                    && abs((rows[0]["recordingStartSeconds"] as? Double ?? -1e9) - seconds) < 0.005
            }
            let places = shoot.blockClipPlaces
            let description =
                "case \(index): block \(shoot.blockSeconds) s, gap \(shoot.gapSeconds) s, clip \(shoot.clipSeconds) s, recorder \(shoot.recorderSeconds) s"
            if places.count > 1 {
                twice += 1
                // Two equal places: a cut only with the witness that chose it, else the clip is left for a person.
                for row in used(names.blockClip) {
                    #expect(row["decidedBy"] != nil, "a guess: \(description): \(row)")
                }
                if used(names.blockClip).isEmpty {
                    #expect(
                        left.contains("\(folder)/\(names.blockClip)"),
                        "neither cut nor left for a person: \(description)")
                }
                // Every place listed, whatever was decided.
                let listed = rows.filter { $0["reference"] as? String == "\(folder)/\(names.blockClip)" }
                    .compactMap { $0["recordingStartSeconds"] as? Double }
                for place in places
                where !listed.contains(where: { abs($0 - place) < 0.005 }) && used(names.blockClip).isEmpty {
                    Issue.record("\(description): the place at \(place) s is not listed (\(listed))")
                }
            } else if let place = places.first {
                once += 1
                if found(names.blockClip, at: place) { onceFound += 1 }
            }
            if let clip = shoot.uniqueClip {
                unique += 1
                if found(names.uniqueClip, at: clip.start) { uniqueFound += 1 }
            }
        }
        print(
            "repeats: \(twice) clips heard twice; heard once: \(onceFound) of \(once) found, unique: \(uniqueFound) of \(unique) found"
        )
        #expect(twice >= 15, "the generator made \(twice) repeated cases")
        // Sound heard once is found: the block's clip where the recorder stopped before its second copy, and clips
        // of sound the recorder heard once.
        #expect(
            Double(onceFound + uniqueFound) >= 0.9 * Double(once + unique),
            "found \(onceFound + uniqueFound) of \(once + unique)")
    }
}
