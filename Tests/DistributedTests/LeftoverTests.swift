import DriftAudio
import DriftCore
import DriftJournal
import Foundation
import Testing
import TestSupport

/// Every path under `folder` (files and folders, hidden ones too), relative, except the journal's `.driftfix`.
private func entries(under folder: String) -> Set<String> {
    var found = Set<String>()
    let enumerator = FileManager.default.enumerator(atPath: folder)
    while let path = enumerator?.nextObject() as? String {
        if path == ".driftfix" {
            enumerator?.skipDescendants()
            continue
        }
        found.insert(path)
    }
    return found
}

/// What a repaired tree must hold exactly: each repaired output and its folders.
private func expectedTree(_ entries: [RepairTree.Entry], root: String) -> Set<String> {
    var expected = Set<String>()
    for entry in entries where entry.expected == .repaired {
        let relative = String(entry.recording.dropFirst(root.count + 1))
        expected.insert(relative)
        expected.insert((relative as NSString).deletingLastPathComponent)
    }
    return expected
}

@Suite("driftfix repair: nothing left behind", .serialized)
struct LeftoverTests {
    @Test("a refused repair creates nothing: --out inside a root (also through a link), or --resume with no journal")
    func refusedCreatesNothing() throws {
        let tree = try RepairTree(drifted: 1)
        let before = Set(FileManager.default.subpaths(atPath: tree.root.path) ?? [])
        let inside = try driftfix(["repair", tree.root.path, "--out", tree.root.file("a/b/out")])
        #expect(inside.status == 2 && inside.stderr.contains("lies inside the root"), "\(inside.stderr)")
        let elsewhere = TemporaryFolder("driftfix-links")
        try FileManager.default.createSymbolicLink(atPath: elsewhere.file("media"), withDestinationPath: tree.root.path)
        let viaLink = try driftfix(["repair", tree.root.path, "--out", elsewhere.file("media/x/out")])
        #expect(viaLink.status == 2 && viaLink.stderr.contains("lies inside the root"), "\(viaLink.stderr)")
        #expect(Set(FileManager.default.subpaths(atPath: tree.root.path) ?? []) == before, "nothing created under the root")
        let out = TemporaryFolder("driftfix-out")
        let resume = try driftfix(["repair", tree.root.path, "--out", out.file("new/out"), "--resume"])
        #expect(resume.status == 1 && resume.stderr.contains("nothing to resume"), "\(resume.stderr)")
        #expect(out.entries().isEmpty)
    }

    @Test("the next run sweeps the temporary files of dead writers, says how many, and leaves live ones")
    func sweepAtStart() throws {
        let tree = try RepairTree(drifted: 2, folders: 1)
        let out = TemporaryFolder("driftfix-out")
        let host = TemporaryName.hostTag
        let dead = try deadProcessID()
        try FileManager.default.createDirectory(atPath: out.file("device0/deeper"), withIntermediateDirectories: true)
        let leftovers = [".take0.wav.driftfix-\(host)-\(dead)-1a.tmp", "deeper/.x.wav.driftfix-\(host)-\(dead)-2b.tmp",
                         ".y.wav.driftfix-otherhost-99-3c.tmp"]
        for name in leftovers { try "half".write(toFile: out.file("device0/" + name), atomically: false, encoding: .utf8) }
        let live = ".z.wav.driftfix-\(host)-\(getpid())-4d.tmp"
        try "mine".write(toFile: out.file("device0/" + live), atomically: false, encoding: .utf8)
        let result = try Background(["repair", tree.root.path, "--out", out.path, "--workers", "1"]).wait(seconds: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("removed 3 temporary files left under \(out.path) by driftfix processes that no longer run"),
                "\(result.stderr)")
        #expect(hiddenFiles(under: out.path) == ["device0/" + live], "\(hiddenFiles(under: out.path))")
    }

    @Test("kill -9 of the coordinator and every worker at once, mid-run: after the next run the output tree holds exactly the repaired files")
    func wholeSystemKilled() throws {
        let tree = try RepairTree(drifted: 8, frames: 480_000, channels: 2, folders: 2)
        let before = tree.fingerprints()
        let out = TemporaryFolder("driftfix-out")
        let arguments = ["repair", tree.root.path, "--out", out.path, "--workers", "2", "--quality", "best", "--heartbeat", "0.5"]
        let first = try Background(arguments)
        // Wait until both workers are writing, then kill everything at once, as a power cut or the OOM killer would.
        let writing = waitUntil(seconds: 120) { hiddenFiles(under: out.path).count >= 2 }
        let workers = localWorkers(of: first.pid)
        for pid in [first.pid] + workers { kill(pid, SIGKILL) }
        _ = first.wait(seconds: 10)
        try #require(writing, "two jobs were being written")
        try #require(workers.count == 2, "found the workers: \(workers)")
        #expect(waitUntil(seconds: 10) { workers.allSatisfy { kill($0, 0) != 0 } })
        let junk = hiddenFiles(under: out.path)
        #expect(junk.count >= 2, "the crash left temporary files to sweep: \(junk)")

        let second = try Background(arguments).wait(seconds: 240)
        #expect(second.status == 0, "\(second.stdout)\n\(second.stderr)")
        #expect(second.stderr.contains("removed \(junk.count) temporary file"), "\(second.stderr)")
        #expect(entries(under: out.path) == expectedTree(tree.entries, root: tree.root.path), "exactly the expected files: \(entries(under: out.path).sorted())")
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
        #expect(tree.fingerprints() == before, "originals unchanged")
    }

    @Test("a worker never replaces a FIFO, a link or a device that sits where an output goes: the job fails with the reason")
    func specialFileAtOutput() throws {
        let tree = try RepairTree(drifted: 3, folders: 1)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        try FileManager.default.createDirectory(atPath: out.file("device0"), withIntermediateDirectories: true)
        try #require(mkfifo(out.file("device0/take0.wav"), 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: out.file("device0/take1.wav"), withDestinationPath: "/dev/null")
        let result = try Background(["repair", tree.root.path, "--out", out.path, "--workers", "1", "--report", report.path])
            .wait(seconds: 120)
        #expect(result.status == 1)
        let rows = try reportRows(report.path)
        #expect(rows["take0.wav"]?["outcome"] as? String == "failed")
        #expect((rows["take0.wav"]?["error"] as? String)?.contains("is a FIFO (named pipe), not a regular file") == true, "\(rows["take0.wav"] ?? [:])")
        #expect((rows["take1.wav"]?["error"] as? String)?.contains("is a symbolic link, not a regular file") == true)
        #expect(rows["take2.wav"]?["outcome"] as? String == "repaired")
        var info = stat()
        #expect(lstat(out.file("device0/take0.wav"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(lstat(out.file("device0/take1.wav"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
        #expect(hiddenFiles(under: out.path).isEmpty)
    }
}
