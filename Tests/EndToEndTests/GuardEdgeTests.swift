import DriftCore
import DriftFixtures
import Foundation
import Testing

/// The edges a hostile new user found, through the built binary: what the plan promises the night keeps, a typing
/// error in a path creates nothing, and live metrics stay on loopback unless that is acknowledged.
@Suite("guards at the edges (the built binary)")
struct GuardEdgeTests {
    @Test(
        "a folder inside the root that links outside it: the scan lists it as skipped in the worker's words, and the night agrees (exit 0, twice)"
    )
    func symlinkedFolderOutside() throws {
        let tree = try RepairTree(drifted: 4, folders: 2)
        let outside = TemporaryFolder("driftfix-outside")
        let linked = tree.root.file("device1")
        try FileManager.default.moveItem(atPath: linked, toPath: outside.file("device1"))
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: outside.file("device1"))
        let scan = try runChild(driftfixPath(), ["scan", tree.root.path, "--format", "json"])
        #expect(scan.status == 0, "\(scan.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any])
        let pairs = try #require(object["pairs"] as? [[String: Any]])
        let planned = Set(pairs.compactMap { $0["recording"] as? String })
        let inside = tree.entries.filter { $0.recording.hasPrefix(tree.root.file("device0/")) }
        #expect(planned == Set(inside.map(\.recording)), "\(planned)")
        let skipped = try #require(object["skipped"] as? [[String: Any]])
        let reason = skipped.first { $0["path"] as? String == linked }?["reason"] as? String
        #expect(reason?.hasPrefix("symbolic link outside the input roots \(tree.root.path)") == true, "\(skipped)")

        let out = TemporaryFolder("driftfix-out")
        for night in 1...2 {
            let repair = try runChild(driftfixPath(), ["repair", tree.root.path, "--out", out.path, "--workers", "1"])
            #expect(repair.status == 0, "night \(night): \(repair.stdout) \(repair.stderr)")
            let summary = night == 1 ? "2 repaired, 0 unchanged" : "0 repaired, 2 unchanged"
            #expect(repair.stdout.contains("\(summary), 0 skipped, 0 refused, 0 failed"), "\(repair.stdout)")
            #expect(repair.stdout.contains("skipped: device1: symbolic link outside the input roots"))
        }
        for entry in inside {
            #expect(FileManager.default.fileExists(atPath: tree.output(entry, in: out.path)), "\(entry.recording)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.file("device1")), "nothing written for the linked folder")
    }

    @Test("--journal in a folder that does not exist: one line naming it, exit 2, and no folder is created")
    func journalFolderMissing() throws {
        let tree = try RepairTree(drifted: 1, folders: 1)
        let out = TemporaryFolder("driftfix-out")
        let missing = "/tmp/driftfix-missing-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let result = try runChild(
            driftfixPath(), ["repair", tree.root.path, "--out", out.path, "--journal", missing + "/dir/j.sqlite"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("the folder \(missing)/dir does not exist"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: out.file("device0")), "nothing repaired before the refusal")
    }

    @Test("--metrics-address off loopback is refused on repair and worker without --metrics-on-network (exit 2)")
    func metricsOffLoopback() throws {
        let port = freeTCPPort()
        let repair = try runChild(
            driftfixPath(), ["repair", "/nonexistent", "--out", "/tmp/x", "--metrics-address", "0.0.0.0:\(port)"])
        #expect(repair.status == 2 && repair.stderr.contains("reachable from the network"), "\(repair.stderr)")
        let worker = try runChild(
            driftfixPath(), ["worker", "--connect", "ipc:///tmp/none", "--metrics-address", "0.0.0.0:\(port)"])
        #expect(worker.status == 2 && worker.stderr.contains("--metrics-on-network"), "\(worker.stderr)")
    }
}
