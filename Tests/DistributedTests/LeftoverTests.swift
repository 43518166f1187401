import DriftAudio
import DriftCore
import DriftFixtures
import DriftJournal
import Foundation
import Testing

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
        #expect(
            Set(FileManager.default.subpaths(atPath: tree.root.path) ?? []) == before, "nothing created under the root")
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
        let leftovers = [
            ".take0.wav.driftfix-\(host)-\(dead)-1a.tmp", "deeper/.x.wav.driftfix-\(host)-\(dead)-2b.tmp",
            ".y.wav.driftfix-otherhost-99-3c.tmp",
        ]
        for name in leftovers {
            try "half".write(toFile: out.file("device0/" + name), atomically: false, encoding: .utf8)
        }
        // A live writer: this process, through a real staged output that holds its lock.
        let live = try StagedOutput(destination: out.file("device0/z.wav"))
        let result = try Background(["repair", tree.root.path, "--out", out.path, "--workers", "1"]).wait(seconds: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "removed 3 temporary files left under \(out.path) by driftfix processes that no longer run"),
            "\(result.stderr)")
        #expect(
            hiddenFiles(under: out.path) == ["device0/" + (live.temporaryPath as NSString).lastPathComponent],
            "\(hiddenFiles(under: out.path))")
    }

    @Test(
        "real writers judged by their lock: one stopped mid-commit keeps its file and then finishes; one killed and deliberately not reaped (a zombie) and a file whose pid now belongs to another process are swept"
    )
    func zombieAndReusedPid() throws {
        let input = TemporaryFolder("driftfix-in")
        let out = TemporaryFolder("driftfix-out")
        let frames: Int64 = 96_000
        let target = frames + 13
        let signal = TestSignal(channelCount: 1, length: frames, seed: 5, tonesPerChannel: 3)
        try writeRecording(
            signal, to: input.file("a.wav"),
            format: AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 1))
        // Two real writers, each stopped by the kernel right before its rename (SIGSTOP: alive, holding its lock).
        let writers = try ["a1.wav", "a2.wav"].map { name in
            try Child(
                driftfixPath(), ["process", input.file("a.wav"), out.file(name), "--to-frames", "\(target)"],
                environment: ["DRIFTFIX_FAILPOINT": "commit:1:stop"], reaping: false)
        }
        defer {
            for writer in writers {
                kill(writer.pid, SIGKILL)
                writer.reap()
            }
        }
        for writer in writers {
            try #require(
                waitUntil(seconds: 60) { ProcessLiveness.state(of: writer.pid) == "T" },
                "\(writer.command) stopped at its commit")
        }
        let files = { Set(out.entries().filter { $0.hasPrefix(".") }) }
        let temporary = files()
        try #require(temporary.count == 2, "\(temporary)")
        func owner(_ writer: Child) -> String? { temporary.first { $0.contains("-\(writer.pid)-") } }
        let (live, killed) = (writers[0], writers[1])
        // The killed writer stays a zombie: its parent (this test) does not reap it, as a late init would not.
        kill(killed.pid, SIGKILL)
        try #require(waitUntil(seconds: 10) { ProcessLiveness.state(of: killed.pid) == "Z" })
        #expect(kill(killed.pid, 0) == 0, "the zombie still answers kill(pid, 0): the old rule kept its file")
        // A file named for a pid that a running process now has (a sleeping stranger), never locked by it.
        let stranger = try Child("/bin/sleep", ["60"], stdout: .discard, stderr: .discard)
        defer { kill(stranger.pid, SIGKILL) }
        let reused = ".b.wav.driftfix-\(TemporaryName.hostTag)-\(stranger.pid)-7e.tmp"
        try "half".write(toFile: out.file(reused), atomically: false, encoding: .utf8)

        let swept = StaleTemporaryFiles.sweep(root: out.path, otherHostsBefore: nil)
        #expect(Set(swept.removed) == Set([owner(killed), reused].compactMap { $0 }.map { out.file($0) }), "\(swept)")
        #expect(swept.kept == [owner(live)].compactMap { $0 }.map { out.file($0) }, "\(swept)")
        #expect(files() == Set([owner(live)].compactMap { $0 }), "\(files())")
        #expect(stranger.isRunning, "the stranger was only named, never touched")

        // The live writer, let go, finishes its output normally.
        kill(live.pid, SIGCONT)
        #expect(live.reap() == .exited(0))
        #expect(try AudioFileReader(path: out.file("a1.wav")).frameCount == target)
        #expect(files().isEmpty && !FileManager.default.fileExists(atPath: out.file("a2.wav")))
    }

    @Test(
        "the whole tree SIGKILLed under an init that does not reap (its workers stay zombies): the resumed night sweeps their files at once"
    )
    func zombiesUnderLateInit() throws {
        let tree = try RepairTree(drifted: 6, frames: 480_000, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        // A child subreaper that never reaps: what a container's shell as PID 1, or this sandbox's init, does for a while.
        let scriptFolder = TemporaryFolder("driftfix-init")
        let script = scriptFolder.file("late_init.py")
        try """
        import ctypes, subprocess, sys, time
        if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
            sys.exit(3)
        child = subprocess.Popen(sys.argv[1:])
        print(child.pid, flush=True)
        time.sleep(600)
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let arguments = [
            "repair", tree.root.path, "--out", out.path, "--workers", "2", "--quality", "best", "--heartbeat", "0.5",
        ]
        let initProcess = try Child("/usr/bin/python3", [script, driftfixPath()] + arguments)
        defer { kill(initProcess.pid, SIGKILL) }
        try #require(
            waitUntil(seconds: 30) {
                Int32(initProcess.outputSoFar.trimmingCharacters(in: .whitespacesAndNewlines)) != nil
            })
        let coordinator = try #require(Int32(initProcess.outputSoFar.trimmingCharacters(in: .whitespacesAndNewlines)))
        try #require(waitUntil(seconds: 120) { hiddenFiles(under: out.path).count >= 2 }, "both workers writing")
        let workers = localWorkers(of: coordinator)
        try #require(workers.count == 2, "\(workers)")
        for pid in [coordinator] + workers { kill(pid, SIGKILL) }
        for pid in workers {
            // A worker can turn zombie before its killed parent has finished exiting and handed it on: wait for both.
            #expect(
                waitUntil(seconds: 10) { ProcessLiveness.state(of: pid) == "Z" && parent(of: pid) == initProcess.pid },
                "worker \(pid) is a zombie of the late init (state \(ProcessLiveness.state(of: pid) ?? "-"), parent \(parent(of: pid).map(String.init) ?? "-"))"
            )
        }
        let junk = hiddenFiles(under: out.path)
        try #require(junk.count >= 2, "\(junk)")

        let resumed = try Background(arguments + ["--resume"]).wait(seconds: 240)
        #expect(
            workers.allSatisfy { ProcessLiveness.state(of: $0) == "Z" }, "still zombies while the resumed night ran")
        #expect(resumed.status == 0, "\(resumed.stdout)\n\(resumed.stderr)")
        #expect(
            resumed.stderr.contains(
                "removed \(junk.count) temporary files left under \(out.path) by driftfix processes that no longer run"),
            "\(resumed.stderr)")
        #expect(hiddenFiles(under: out.path).isEmpty, "\(hiddenFiles(under: out.path))")
        #expect(entries(under: out.path) == expectedTree(tree.entries, root: tree.root.path))
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
    }

    @Test(
        "a writer that dies during the night without its lease's clean-up (hung, then killed; its job not run again) is swept when the night closes"
    )
    func closingSweep() throws {
        let tree = try RepairTree(drifted: 4, frames: 96_000, channels: 1, folders: 1)
        let out = TemporaryFolder("driftfix-out")
        let endpoint = uniqueEndpoint()
        // One attempt per job: the hung worker's job fails for good, so no later attempt at the same output removes
        // its leftover on the way (as a retry on this machine would).
        let coordinator = try remoteCoordinator(
            tree, out: out, bind: endpoint, ["--idle-timeout", "60", "--max-attempts", "1"])
        // A worker of this machine, started by hand, that hangs right before renaming its first output.
        let hung = try Background(
            ["worker", "--connect", endpoint, "--concurrency", "1", "--identity", "hung", "--heartbeat", "0.5"],
            environment: ["DRIFTFIX_FAILPOINT": "commit:1:stop"])
        defer { kill(hung.pid, SIGKILL) }
        try #require(
            waitUntil(seconds: 60) { ProcessLiveness.state(of: hung.pid) == "T" }, "the worker hung at its commit")
        let left = hiddenFiles(under: out.path)
        try #require(left.count == 1, "\(left)")
        // Its lease ends (silent) while it still holds its lock, so the file stays; then it dies. It is no worker of
        // the coordinator's own pool, so nobody is told.
        try #require(
            waitUntil(seconds: 30) { coordinator.child.errorsSoFar.contains("worker hung lost") },
            "\(coordinator.child.errorsSoFar)")
        kill(hung.pid, SIGKILL)
        _ = hung.wait(seconds: 10)
        #expect(hiddenFiles(under: out.path) == left, "nobody removed it yet")
        let worker = try Background(["worker", "--connect", endpoint, "--concurrency", "1", "--heartbeat", "0.5"])
        let result = coordinator.wait(seconds: 120)
        _ = worker.wait(seconds: 15)
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("3 repaired, 0 unchanged, 0 skipped, 0 refused, 1 failed"), "\(result.stdout)")
        #expect(
            result.stderr.contains(
                "removed 1 temporary file left under \(out.path) by writers that died during this run"),
            "\(result.stderr)")
        #expect(hiddenFiles(under: out.path).isEmpty)
        let lost = String(((left[0] as NSString).lastPathComponent).dropFirst().prefix { $0 != "." }) + ".wav"
        for entry in tree.entries where (entry.recording as NSString).lastPathComponent != lost {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
    }

    @Test(
        "kill -9 of the coordinator and every worker at once, mid-run: after the next run the output tree holds exactly the repaired files"
    )
    func wholeSystemKilled() throws {
        let tree = try RepairTree(drifted: 8, frames: 480_000, channels: 2, folders: 2)
        let before = tree.fingerprints()
        let out = TemporaryFolder("driftfix-out")
        let arguments = [
            "repair", tree.root.path, "--out", out.path, "--workers", "2", "--quality", "best", "--heartbeat", "0.5",
        ]
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
        #expect(
            entries(under: out.path) == expectedTree(tree.entries, root: tree.root.path),
            "exactly the expected files: \(entries(under: out.path).sorted())")
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
        #expect(tree.fingerprints() == before, "originals unchanged")
    }

    @Test(
        "a worker never replaces a FIFO, a link or a device that sits where an output goes: the job fails with the reason"
    )
    func specialFileAtOutput() throws {
        let tree = try RepairTree(drifted: 3, folders: 1)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        try FileManager.default.createDirectory(atPath: out.file("device0"), withIntermediateDirectories: true)
        try #require(mkfifo(out.file("device0/take0.wav"), 0o644) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: out.file("device0/take1.wav"), withDestinationPath: "/dev/null")
        let result = try Background([
            "repair", tree.root.path, "--out", out.path, "--workers", "1", "--report", report.path,
        ])
        .wait(seconds: 120)
        #expect(result.status == 1)
        let rows = try reportRows(report.path)
        #expect(rows["take0.wav"]?["outcome"] as? String == "failed")
        // The kind the metrics and scripts read beside the sentence.
        #expect(rows["take0.wav"]?["failure"] as? String == "refused", "\(rows["take0.wav"] ?? [:])")
        #expect(
            (rows["take0.wav"]?["error"] as? String)?.contains("is a FIFO (named pipe), not a regular file") == true,
            "\(rows["take0.wav"] ?? [:])")
        #expect((rows["take1.wav"]?["error"] as? String)?.contains("is a symbolic link, not a regular file") == true)
        #expect(rows["take2.wav"]?["outcome"] as? String == "repaired")
        var info = stat()
        #expect(lstat(out.file("device0/take0.wav"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(lstat(out.file("device0/take1.wav"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
        #expect(hiddenFiles(under: out.path).isEmpty)
    }
}

/// The parent pid of a process, from /proc.
private func parent(of pid: Int32) -> Int32? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 1 ? Int32(fields[1]) : nil
}
