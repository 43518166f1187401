import DriftCore
import DriftFixtures
import DriftSupport
import Foundation
import Testing

@testable import DriftAudio

/// What sits at `path` (not following a link).
private func kind(_ path: String) -> FileKind? { FileChecks.kind(atNoFollow: path) }

/// glibc's makedev for small numbers (the macro does not import).
private func device(_ major: UInt64, _ minor: UInt64) -> dev_t { dev_t((major << 8) | minor) }

/// Makes a socket file at `path` (bound, then closed: the name stays).
private func makeSocket(_ path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    try #require(bound == 0)
}

/// Writes `text` through a staged output into `destination` and commits it.
private func stage(_ text: String, to destination: String, replacing: StagedOutput.Replacement = .regularFile) throws {
    let staged = try StagedOutput(destination: destination, replacing: replacing)
    try Data(text.utf8).write(to: URL(fileURLWithPath: staged.temporaryPath))
    try staged.commit()
}

@Suite("Staged output: only regular files are ever replaced")
struct StagedOutputTests {
    @Test("a FIFO, a socket, a symbolic link or a directory at the destination is refused before anything is written")
    func specialDestinations() throws {
        let folder = TemporaryFolder()
        try #require(mkfifo(folder.file("fifo"), 0o644) == 0)
        try makeSocket(folder.file("sock"))
        try "precious".write(toFile: folder.file("target.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("link"), withDestinationPath: folder.file("target.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("stdout"), withDestinationPath: "/proc/self/fd/1")
        try FileManager.default.createDirectory(atPath: folder.file("dir"), withIntermediateDirectories: false)
        for (name, expected) in [
            ("fifo", FileKind.fifo), ("sock", .socket), ("link", .symbolicLink), ("stdout", .symbolicLink),
        ] {
            #expect(throws: AudioError(path: folder.file(name), cause: .destinationNotRegular(expected))) {
                try stage("new", to: folder.file(name))
            }
            #expect(kind(folder.file(name)) == expected, "\(name) is untouched")
        }
        #expect(throws: AudioError(path: folder.file("dir"), cause: .isDirectory)) {
            try stage("new", to: folder.file("dir"))
        }
        #expect(try String(contentsOfFile: folder.file("target.txt"), encoding: .utf8) == "precious")
        #expect(folder.entries() == ["dir", "fifo", "link", "sock", "stdout", "target.txt"], "no temporary file")
    }

    @Test(
        "devices too (as root: a character and a block device made here)",
        .enabled(if: getuid() == 0, "mknod needs root"))
    func devices() throws {
        let folder = TemporaryFolder()
        // The numbers of /dev/null (1, 3) and /dev/loop0 (7, 0); the nodes live in the test's folder.
        try #require(mknod(folder.file("null"), S_IFCHR | 0o666, device(1, 3)) == 0)
        try #require(mknod(folder.file("loop"), S_IFBLK | 0o600, device(7, 0)) == 0)
        #expect(throws: AudioError(path: folder.file("null"), cause: .destinationNotRegular(.characterDevice))) {
            try stage("new", to: folder.file("null"))
        }
        #expect(throws: AudioError(path: folder.file("loop"), cause: .destinationNotRegular(.blockDevice))) {
            try stage("new", to: folder.file("loop"), replacing: .regularFile)
        }
        #expect(kind(folder.file("null")) == .characterDevice && kind(folder.file("loop")) == .blockDevice)
        #expect(folder.entries() == ["loop", "null"])
    }

    @Test("a special file swapped in after the check is caught at the rename, and put back")
    func swappedBeforeRename() throws {
        let folder = TemporaryFolder()
        // Nothing there when checked; a FIFO appears before the rename: the no-replace rename refuses.
        let empty = try StagedOutput(destination: folder.file("a.wav"))
        try Data("new".utf8).write(to: URL(fileURLWithPath: empty.temporaryPath))
        try #require(mkfifo(folder.file("a.wav"), 0o644) == 0)
        #expect(throws: AudioError(path: folder.file("a.wav"), cause: .destinationNotRegular(.fifo))) {
            try empty.commit()
        }
        #expect(kind(folder.file("a.wav")) == .fifo)
        // A regular file when checked, a link by the time of the rename.
        try "old".write(toFile: folder.file("b.wav"), atomically: true, encoding: .utf8)
        let regular = try StagedOutput(destination: folder.file("b.wav"))
        try Data("new".utf8).write(to: URL(fileURLWithPath: regular.temporaryPath))
        try FileManager.default.removeItem(atPath: folder.file("b.wav"))
        try FileManager.default.createSymbolicLink(atPath: folder.file("b.wav"), withDestinationPath: "/etc/hostname")
        #expect(throws: AudioError(path: folder.file("b.wav"), cause: .destinationNotRegular(.symbolicLink))) {
            try regular.commit()
        }
        #expect(kind(folder.file("b.wav")) == .symbolicLink)
        #expect(folder.entries() == ["a.wav", "b.wav"], "temporary files deleted: \(folder.entries())")
    }

    @Test("a regular file is replaced atomically, or refused when replacing was not asked for")
    func regularFiles() throws {
        let folder = TemporaryFolder()
        try "old".write(toFile: folder.file("out.wav"), atomically: true, encoding: .utf8)
        #expect(throws: AudioError(path: folder.file("out.wav"), cause: .destinationExists)) {
            try stage("new", to: folder.file("out.wav"), replacing: .never)
        }
        #expect(try String(contentsOfFile: folder.file("out.wav"), encoding: .utf8) == "old")
        try stage("new", to: folder.file("out.wav"))
        #expect(try String(contentsOfFile: folder.file("out.wav"), encoding: .utf8) == "new")
        try stage("fresh", to: folder.file("other.wav"), replacing: .never)
        #expect(folder.entries() == ["other.wav", "out.wav"])
        // A file that appears while a `.never` output is written is not replaced either.
        let late = try StagedOutput(destination: folder.file("late.wav"), replacing: .never)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: late.temporaryPath))
        try "theirs".write(toFile: folder.file("late.wav"), atomically: true, encoding: .utf8)
        #expect(throws: AudioError(path: folder.file("late.wav"), cause: .destinationExists)) { try late.commit() }
        #expect(try String(contentsOfFile: folder.file("late.wav"), encoding: .utf8) == "theirs")
    }

    @Test("temporary names parse back to their parts; other names do not")
    func names() {
        let made = TemporaryName.make(for: "take-01.wav", host: "studio_3", pid: 4242, tag: "9f3a")
        #expect(made == ".take-01.wav.driftfix-studio_3-4242-9f3a.tmp")
        #expect(TemporaryName(parsing: made) == TemporaryName(parsing: ".take-01.wav.driftfix-studio_3-4242-9f3a.tmp"))
        let parsed = TemporaryName(parsing: made)
        #expect(parsed?.destinationName == "take-01.wav" && parsed?.host == "studio_3" && parsed?.pid == 4242)
        for other in [
            "take.wav", ".take.wav.tmp", ".take.wav.driftfix-h-x-1.tmp", ".take.wav.driftfix-h-1-zz.tmp",
            ".driftfix-h-1-ab.tmp", ".take.wav.other-h-1-ab.tmp", ".t.driftfix-h-1-ab.tmp~",
        ] {
            #expect(TemporaryName(parsing: other) == nil, "\(other)")
        }
    }

    @Test(
        "a sweep deletes the files of writers whose lock is free (dead, or a pid now used by another process) and keeps those of writers holding it; never following links, never the journal's folder"
    )
    func sweep() throws {
        let out = TemporaryFolder()
        let elsewhere = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: out.file("a/b"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: out.file(".driftfix"), withIntermediateDirectories: true)
        let host = TemporaryName.hostTag
        let dead = try deadProcessID()
        // A live writer: a real staged output, holding its lock.
        let live = try StagedOutput(destination: out.file("a/live.wav"))
        try Data("half".utf8).write(to: URL(fileURLWithPath: live.temporaryPath))
        let files: [String: Bool] = [  // path: expected to be removed
            "a/.x.wav.driftfix-\(host)-\(dead)-1a.tmp": true,
            "a/b/.y.wav.driftfix-\(host)-\(dead)-2b.tmp": true,
            // The pid of a running process (this one) that holds no lock on the file: a reused pid, not its writer.
            "a/.z.wav.driftfix-\(host)-\(getpid())-3c.tmp": true,
            "a/.old.wav.driftfix-otherhost-17-4d.tmp": true,  // another machine, written before the cutoff
            "a/.new.wav.driftfix-otherhost-18-5e.tmp": false,  // another machine, written after it
            "a/.held.wav.driftfix-otherhost-19-6f.tmp": false,  // another machine, old, but its lock is seen held
            "a/x.wav": false, ".driftfix/.j.driftfix-\(host)-\(dead)-6f.tmp": false,
        ]
        for path in files.keys { try "x".write(toFile: out.file(path), atomically: false, encoding: .utf8) }
        let cutoff = Date().timeIntervalSince1970 - 100
        for old in ["a/.old.wav.driftfix-otherhost-17-4d.tmp", "a/.held.wav.driftfix-otherhost-19-6f.tmp"] {
            var times = [
                timespec(tv_sec: Int(cutoff) - 3600, tv_nsec: 0), timespec(tv_sec: Int(cutoff) - 3600, tv_nsec: 0),
            ]
            utimensat(AT_FDCWD, out.file(old), &times, 0)
        }
        // As a writer on another machine holds it where the file system shares locks (NFSv4).
        let remoteWriter = open(out.file("a/.held.wav.driftfix-otherhost-19-6f.tmp"), O_RDWR | O_CLOEXEC)
        try #require(remoteWriter >= 0 && flock(remoteWriter, LOCK_EX) == 0)
        defer { close(remoteWriter) }
        // A link out of the tree to a folder holding a dead writer's leftover: not followed.
        try "x".write(
            toFile: elsewhere.file(".e.wav.driftfix-\(host)-\(dead)-7a.tmp"), atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: out.file("a/link"), withDestinationPath: elsewhere.path)

        let result = StaleTemporaryFiles.sweep(root: out.path, otherHostsBefore: cutoff)
        #expect(result.removed == files.filter(\.value).keys.map { out.file($0) }.sorted())
        for (path, removed) in files {
            #expect(FileManager.default.fileExists(atPath: out.file(path)) != removed, "\(path)")
        }
        #expect(
            result.kept
                == [
                    live.temporaryPath, out.file("a/.held.wav.driftfix-otherhost-19-6f.tmp"),
                    out.file("a/.new.wav.driftfix-otherhost-18-5e.tmp"),
                ].sorted(), "\(result.kept)")
        #expect(result.failed.isEmpty)
        #expect(FileManager.default.fileExists(atPath: live.temporaryPath), "the live writer's file is untouched")
        #expect(FileManager.default.fileExists(atPath: elsewhere.file(".e.wav.driftfix-\(host)-\(dead)-7a.tmp")))
        // With no lease open at all, no other machine's writer can still be at work - unless its lock says so.
        let second = StaleTemporaryFiles.sweep(root: out.path, otherHostsBefore: nil)
        #expect(second.removed == [out.file("a/.new.wav.driftfix-otherhost-18-5e.tmp")])
        // The live writer still finishes normally.
        try live.commit()
        #expect(try String(contentsOfFile: out.file("a/live.wav"), encoding: .utf8) == "half")
    }

    @Test(
        "a staged output's temporary file is locked from creation to commit, and the lock outlives the writer's own descriptor"
    )
    func lockedWhileStaged() throws {
        let out = TemporaryFolder()
        let staged = try StagedOutput(destination: out.file("t.wav"))
        func lockIsFree(_ path: String) -> Bool {
            let probe = open(path, O_RDONLY | O_CLOEXEC)
            guard probe >= 0 else { return false }
            defer { close(probe) }
            return flock(probe, LOCK_EX | LOCK_NB) == 0
        }
        #expect(
            FileManager.default.fileExists(atPath: staged.temporaryPath), "created at once, so no sweep can miss it")
        #expect(!lockIsFree(staged.temporaryPath))
        // The writer writes through its own descriptor and closes it (as libsndfile does); the claim stays.
        let writer = try staged.writableDescriptor()
        #expect(write(writer, "data", 4) == 4)
        close(writer)
        #expect(!lockIsFree(staged.temporaryPath), "closing the writer's descriptor keeps the lock")
        let temporary = staged.temporaryPath
        try staged.commit()
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(lockIsFree(out.file("t.wav")), "the committed output is no longer claimed")
        // Dropped uncommitted: the file goes, and nothing stays locked.
        var dropped: StagedOutput? = try StagedOutput(destination: out.file("u.wav"))
        let droppedPath = dropped?.temporaryPath ?? ""
        dropped = nil
        #expect(!FileManager.default.fileExists(atPath: droppedPath) && out.entries() == ["t.wav"])
    }

    @Test(
        "a lost writer's leftovers beside one output go at once: only that writer's, only for that output, never a locked one"
    )
    func leftoversOfOneWriter() throws {
        let out = TemporaryFolder()
        let host = TemporaryName.hostTag
        let dead = try deadProcessID()
        // Another writer of the same output that lives: this process, through a real staged output.
        let living = try StagedOutput(destination: out.file("take.wav"))
        let livingName = (living.temporaryPath as NSString).lastPathComponent
        let files: [String: Bool] = [  // name: expected to be removed
            ".take.wav.driftfix-\(host)-\(dead)-1a.tmp": true,
            ".take.wav.driftfix-\(host)-\(dead)-2b.tmp": true,
            ".other.wav.driftfix-\(host)-\(dead)-4d.tmp": false,  // another output
            "take.wav": false,
        ]
        for name in files.keys { try "x".write(toFile: out.file(name), atomically: false, encoding: .utf8) }
        let result = StaleTemporaryFiles.removeLeftovers(
            beside: out.file("take.wav"), writerHost: Machine.name,
            writerPID: dead)
        #expect(result.removed.sorted() == files.filter(\.value).keys.map { out.file($0) }.sorted())
        for (name, removed) in files {
            #expect(FileManager.default.fileExists(atPath: out.file(name)) != removed, "\(name)")
        }
        // A writer on this machine that still holds its lock (hung, not dead) keeps its file.
        let alive = StaleTemporaryFiles.removeLeftovers(
            beside: out.file("take.wav"), writerHost: Machine.name,
            writerPID: getpid())
        #expect(alive.removed.isEmpty && alive.kept == [living.temporaryPath])
        #expect(FileManager.default.fileExists(atPath: out.file(livingName)))
        // Another machine's writer has lost its lease: whatever it left for this output goes.
        try "x".write(toFile: out.file(".take.wav.driftfix-far_away-77-5e.tmp"), atomically: false, encoding: .utf8)
        let remote = StaleTemporaryFiles.removeLeftovers(
            beside: out.file("take.wav"), writerHost: "far.away", writerPID: 77)
        #expect(remote.removed == [out.file(".take.wav.driftfix-far_away-77-5e.tmp")])
    }

    @Test("process liveness: a zombie is not running; this process is")
    func zombieIsNotRunning() throws {
        #expect(ProcessLiveness.isRunning(getpid()))
        #expect(ProcessLiveness.state(of: getpid()) == "R" || ProcessLiveness.state(of: getpid()) == "S")
        let child = try Child("/bin/sleep", ["30"], stdout: .discard, stderr: .discard, reaping: false)
        defer { _ = child.reap() }
        kill(child.pid, SIGKILL)
        #expect(
            waitUntil(seconds: 10) { ProcessLiveness.state(of: child.pid) == "Z" }, "killed and not reaped: a zombie")
        #expect(kill(child.pid, 0) == 0, "kill(pid, 0) still finds the zombie")
        #expect(!ProcessLiveness.isRunning(child.pid))
    }
}
