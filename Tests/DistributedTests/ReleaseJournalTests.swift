import DriftAudio
import DriftFixtures
import Foundation
import Testing

/// The tree `Fixtures/make-release-journal.sh` made with the last release: its journal records these absolute paths.
private let base = "/tmp/driftfix-release-journal"

@Suite("a journal written by the previous release", .serialized)
struct ReleaseJournalTests {
    @Test("opens, resumes its unfinished night, keeps its history, and its verified outputs stay current")
    func resumeOlderJournal() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/release-journal.tar.gz")
        try? FileManager.default.removeItem(atPath: base)
        #expect(try runTool("/bin/tar", ["-xzf", fixture.path, "-C", "/tmp"]).isEmpty)
        defer { try? FileManager.default.removeItem(atPath: base) }
        // Night 2 was killed after two of its three jobs were verified: those two outputs must not be rewritten.
        let doneBefore = ["dev0/take0.wav", "dev0/take1.wav", "dev0/take2.wav"].compactMap { name in
            identity(base + "/out/" + name).map { (name, $0) }
        }
        try #require(doneBefore.count == 3)

        let resumed = try Background(["repair", base + "/media", "--out", base + "/out", "--workers", "1"]).wait(
            seconds: 120)
        #expect(resumed.status == 0, "\(resumed.stdout)\n\(resumed.stderr)")
        #expect(
            resumed.stderr.contains("resuming run 2") && resumed.stderr.contains("2 of 3 jobs already finished"),
            "\(resumed.stderr)")
        for i in 0..<6 {
            let device = "dev\(i / 4)"
            let sidecar = try String(contentsOfFile: "\(base)/media/\(device)/take\(i).duration", encoding: .utf8)
            let target = Int64(sidecar.split(separator: "@")[0])
            #expect(try AudioFileReader(path: "\(base)/out/\(device)/take\(i).wav").frameCount == target, "take\(i)")
        }
        let rewritten = doneBefore.filter { identity(base + "/out/" + $0.0) != $0.1 }.map(\.0)
        #expect(rewritten == ["dev0/take2.wav"], "only the unfinished job ran again: \(rewritten)")

        // The history of both nights is there.
        let history = try driftfix(["history", "--out", base + "/out", "--format", "json"])
        #expect(history.status == 0, "\(history.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any]
        #expect((object?["runs"] as? [[String: Any]])?.count == 2, "\(history.stdout)")
        // And the next night finds every output current.
        let next = try Background(["repair", base + "/media", "--out", base + "/out", "--workers", "1"]).wait(
            seconds: 120)
        #expect(next.status == 0 && next.stdout.contains("0 repaired, 6 unchanged"), "\(next.stdout)\n\(next.stderr)")
    }
}
