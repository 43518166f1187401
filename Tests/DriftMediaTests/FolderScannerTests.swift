import DriftAudio
import DriftCore
import DriftFixtures
import DriftRules
import DriftSchema
import DriftWorker
import Foundation
import Testing

import struct SystemPackage.FilePath

@testable import DriftMedia

private func touch(_ path: String, _ text: String = "x") throws {
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: false, encoding: .utf8)
}

@Suite("Folder scanning and pairing")
struct FolderScannerTests {
    @Test("same folder, same stem; references by preference; unpaired files listed")
    func defaultPairing() throws {
        let root = TemporaryFolder()
        for name in [
            "a/take01.wav", "a/take01.mov", "a/take01.duration", "a/take02.flac", "a/take02.mp4", "a/lonely.wav",
            "a/orphan.mov", "a/notes.txt", "b/take01.wav", "b/c/take09.WAV", "b/c/take09.MP4",
        ] {
            try touch(root.file(name))
        }
        let inventory = FolderScanner.scan(roots: [root.path], rules: PairingRules())
        let pairs = inventory.pairs.map {
            "\($0.recording.dropFirst(root.path.count)) ~ \($0.reference.dropFirst(root.path.count))"
        }.sorted()
        #expect(
            pairs == [
                "/a/take01.wav ~ /a/take01.mov", "/a/take02.flac ~ /a/take02.mp4", "/b/c/take09.WAV ~ /b/c/take09.MP4",
            ])
        let unpaired = inventory.unpaired.map { "\($0.kind.rawValue) \($0.pathText.dropFirst(root.path.count))" }
            .sorted()
        // take01 has two references: the preferred one is used and the pair says so; the other is not "unpaired".
        #expect(unpaired == ["recording /a/lonely.wav", "recording /b/take01.wav", "reference /a/orphan.mov"])
        let take01 = try #require(inventory.pairs.first { $0.recording.hasSuffix("/a/take01.wav") })
        #expect(
            take01.warnings == [
                "2 references for one recording: take01.mov chosen over take01.duration (scan.references order: mov, mp4, m4v, mkv, webm, mxf, avi, mts, m2ts, ts, duration)"
            ])
        #expect(inventory.pairs.filter { !$0.warnings.isEmpty }.count == 1)
    }

    @Test("two references for one recording: preferred with a warning in every format, or refused when configured")
    func ambiguousReferences() throws {
        let root = TemporaryFolder()
        for name in ["take.wav", "take.mp4", "take.mov", "TAKE2.wav", "TAKE2.MOV", "TAKE2.mov"] {
            try touch(root.file(name))
        }
        var rules = PairingRules()
        let preferred = FolderScanner.scan(roots: [root.path], rules: rules)
        let take = try #require(preferred.pairs.first { $0.recording == root.file("take.wav") })
        #expect(take.reference == root.file("take.mov") && take.refusal == nil)
        #expect(take.warnings.first?.contains("take.mov chosen over take.mp4") == true, "\(take.warnings)")
        // Same extension in two cases: still two references, decided by name, and said.
        let take2 = try #require(preferred.pairs.first { $0.recording == root.file("TAKE2.wav") })
        #expect(take2.reference == root.file("TAKE2.MOV") && take2.warnings.count == 1)
        #expect(preferred.unpaired.isEmpty, "\(preferred.unpaired)")
        rules.ambiguousReferences = .refuse
        let refused = FolderScanner.scan(roots: [root.path], rules: rules)
        #expect(refused.pairs.allSatisfy { $0.refusal?.contains("refused until the configuration chooses") == true })
        let report = DriftScanner.scan(roots: [root.path], rules: rules)
        #expect(report.pairs.allSatisfy { $0.action == .refuse && $0.error?.contains("2 references") == true })
    }

    @Test(
        "symbolic links: one rule - a link into the roots is skipped and named, a link out is skipped in the words a worker refuses it with"
    )
    func symlinkedFolders() throws {
        let root = TemporaryFolder()
        let outside = TemporaryFolder()
        for name in ["real/t.wav", "real/t.mov", ".hidden/h.wav", ".hidden/h.mov"] { try touch(root.file(name)) }
        for name in ["o.wav", "o.mov", "p.wav"] { try touch(outside.file(name)) }
        // `alias` sorts before `real`: the walk must still scan real/ under its own path.
        try FileManager.default.createSymbolicLink(atPath: root.file("alias"), withDestinationPath: root.file("real"))
        try FileManager.default.createSymbolicLink(atPath: root.file("real/up"), withDestinationPath: root.path)
        try FileManager.default.createSymbolicLink(atPath: root.file("ext1"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: root.file("ext2"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(
            atPath: root.file("toHidden"), withDestinationPath: root.file(".hidden"))
        // A file linked from outside: the same rule as a folder.
        try FileManager.default.createSymbolicLink(
            atPath: root.file("real/p.wav"), withDestinationPath: outside.file("p.wav"))
        let inventory = FolderScanner.scan(roots: [root.path], rules: PairingRules())
        let recordings = inventory.pairs.map { $0.recording.dropFirst(root.path.count) }.sorted()
        #expect(recordings == ["/real/t.wav"], "\(recordings)")
        #expect(inventory.issues.isEmpty, "links are not errors: \(inventory.issues)")
        let skipped = Dictionary(
            uniqueKeysWithValues: inventory.skipped.map { ($0.pathText.dropFirst(root.path.count), $0.reason) })
        let real = try #require(FilePath(root.path).realPath()).string
        let realOutside = try #require(FilePath(outside.path).realPath()).string
        #expect(skipped["/alias"] == "symbolic link to \(real)/real, which is scanned under its own path", "\(skipped)")
        #expect(skipped["/real/up"] == "symbolic link loop: points to its own ancestor \(real)")
        // The worker's own words (Confinement.check(input:roots:)), so the plan and the night say the same.
        let worker = Confinement.check(input: root.file("ext1/o.wav"), roots: [root.path])
        guard case .failure(let refusal) = worker else {
            Issue.record("the worker reads \(worker)")
            return
        }
        #expect(refusal.description == "outside the input roots \(root.path) (it resolves to \(realOutside)/o.wav)")
        for name in ["ext1", "ext2"] {
            #expect(
                skipped["/\(name)"]
                    == "symbolic link outside the input roots \(root.path) (it resolves to \(realOutside))",
                "\(skipped)")
        }
        #expect(skipped["/real/p.wav"]?.hasPrefix("symbolic link outside the input roots") == true, "\(skipped)")
        #expect(skipped["/toHidden"]?.contains("a hidden or ignored folder") == true)
        #expect(skipped.count == 6)
        // The same rule whichever way round the names sort.
        try FileManager.default.moveItem(atPath: root.file("alias"), toPath: root.file("zalias"))
        let again = FolderScanner.scan(roots: [root.path], rules: PairingRules())
        #expect(again.pairs.map { $0.recording.dropFirst(root.path.count) }.sorted() == ["/real/t.wav"])
        #expect(again.skipped.contains { $0.pathText == root.file("zalias") })
    }

    @Test("configured patterns, extensions and ignore globs")
    func patterns() throws {
        let root = TemporaryFolder()
        for name in [
            "d/shot_audio.wav", "d/shot.mp4", "d/x_ref.wav", "d/x.wav", "video/y.mp4", "audio/y.wav", "skip/z.wav",
            "skip/z.mov",
        ] {
            try touch(root.file(name))
        }
        var rules = PairingRules()
        rules.patterns = [
            PairPattern(recording: "{stem}_audio.wav", reference: "{stem}.mp4"),
            PairPattern(recording: "{stem}.wav", reference: "{stem}_ref.wav"),
            PairPattern(recording: "{stem}.wav", reference: "../video/{stem}.mp4"),
        ]
        rules.ignore = [GlobPattern("**/skip/**")]
        let inventory = FolderScanner.scan(roots: [root.path], rules: rules)
        let pairs = inventory.pairs.map {
            "\($0.recording.dropFirst(root.path.count)) ~ \($0.reference.dropFirst(root.path.count))"
        }.sorted()
        #expect(pairs == ["/audio/y.wav ~ /video/y.mp4", "/d/shot_audio.wav ~ /d/shot.mp4", "/d/x.wav ~ /d/x_ref.wav"])
        #expect(inventory.unpaired.isEmpty, "\(inventory.unpaired)")
    }

    @Test("hidden and temporary files are skipped; symlink loops are skipped and named; missing roots are issues")
    func hostileTrees() throws {
        let root = TemporaryFolder()
        for name in [
            "a/t.wav", "a/t.mov", "a/.t2.wav", "a/.t2.mov", "a/t3.wav~", "a/.t4.wav.driftfix-1-2.tmp", ".hidden/t5.wav",
        ] {
            try touch(root.file(name))
        }
        try FileManager.default.createSymbolicLink(atPath: root.file("a/loop"), withDestinationPath: root.path)
        try FileManager.default.createSymbolicLink(
            atPath: root.file("a/dangling.wav"), withDestinationPath: root.file("nowhere"))
        let inventory = FolderScanner.scan(roots: [root.path, root.file("missing")], rules: PairingRules())
        #expect(inventory.pairs.count == 1)
        #expect(
            inventory.skipped.contains {
                $0.pathText == root.file("a/loop") && $0.reason.contains("symbolic link loop")
            })
        #expect(
            inventory.skipped.contains {
                $0.pathText == root.file("a/dangling.wav") && $0.kind == .danglingLink
                    && $0.reason.contains(root.file("nowhere"))
            }, "\(inventory.skipped)")
        #expect(inventory.issues.map(\.pathText) == [root.file("missing")], "\(inventory.issues)")
    }

    @Test(
        "a FIFO, a socket, a device and links to them or to nothing: each listed as skipped with its kind, never opened; a sidecar whose recording is one names it"
    )
    func specialFiles() throws {
        let root = TemporaryFolder()
        try touch(root.file("a/take.wav"))
        try touch(root.file("a/take.mov"))
        try "48000@48000\n".write(toFile: root.file("a/fifo.duration"), atomically: true, encoding: .utf8)
        #expect(mkfifo(root.file("a/fifo.wav"), 0o644) == 0)
        // A socket bound at a path (what a daemon leaves in a folder).
        let unix = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(unix) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let socketPath = root.file("a/daemon.wav")
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in socketPath.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(unix, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        try FileManager.default.createSymbolicLink(atPath: root.file("a/null.wav"), withDestinationPath: "/dev/null")
        try FileManager.default.createSymbolicLink(
            atPath: root.file("a/pipe-link.wav"), withDestinationPath: root.file("a/fifo.wav"))
        try FileManager.default.createSymbolicLink(
            atPath: root.file("a/gone.mov"), withDestinationPath: root.file("a/deleted.mov"))
        let inventory = FolderScanner.scan(roots: [root.path], rules: PairingRules())
        #expect(inventory.pairs.map(\.recording) == [root.file("a/take.wav")])
        #expect(inventory.issues.isEmpty, "\(inventory.issues)")
        let kinds = Dictionary(uniqueKeysWithValues: inventory.skipped.map { ($0.pathText, $0.kind) })
        #expect(
            kinds == [
                root.file("a/fifo.wav"): .fifo, root.file("a/daemon.wav"): .socket,
                root.file("a/null.wav"): .characterDevice, root.file("a/pipe-link.wav"): .fifo,
                root.file("a/gone.mov"): .danglingLink,
            ], "\(inventory.skipped)")
        #expect(inventory.skipped.allSatisfy { !$0.reason.isEmpty })
        #expect(
            inventory.skipped.first { $0.pathText == root.file("a/pipe-link.wav") }?.reason.contains("symbolic link")
                == true)
        let sidecar = inventory.unpaired.first { $0.pathText == root.file("a/fifo.duration") }
        #expect(
            sidecar?.reason == "its recording fifo.wav is a FIFO (named pipe), not a regular file (skipped)",
            "\(inventory.unpaired)")
        // The report's JSON and CSV say the kind.
        let report = ScanReport(
            generated: "", roots: [root.path], pairs: [], unpaired: inventory.unpaired, errors: inventory.issues,
            skipped: inventory.skipped)
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(report)) as? [String: Any]
        let skipped = json?["skipped"] as? [[String: Any]] ?? []
        #expect(
            Set(skipped.compactMap { $0["kind"] as? String }) == [
                "fifo", "socket", "character-device", "dangling-link",
            ])
    }

    @Test(
        "an unreadable folder is an issue and the walk goes on: walked here as a user, or as root through driftfix scan run as nobody (setpriv)"
    )
    func unreadable() throws {
        let root = TemporaryFolder()
        try touch(root.file("locked/t.wav"))
        try touch(root.file("open/t.wav"))
        try touch(root.file("open/t.mov"))
        chmod(root.file("locked"), 0)
        defer { chmod(root.file("locked"), 0o755) }
        guard getuid() == 0 else {
            let inventory = FolderScanner.scan(roots: [root.path], rules: PairingRules())
            #expect(inventory.pairs.count == 1)
            #expect(inventory.issues.contains { $0.pathText == root.file("locked") })
            return
        }
        // Root reads every folder: the same walk, by driftfix, as a user who may not.
        for folder in [root.path, root.file("open")] { chmod(folder, 0o755) }
        for file in ["open/t.wav", "open/t.mov"] { chmod(root.file(file), 0o644) }
        let child = try driftfixAsNobody(["scan", root.path, "--format", "json"])
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(child.stdout.utf8)) as? [String: Any], "\(child.stderr)")
        #expect((report["pairs"] as? [Any])?.count == 1, "\(child.stdout)")
        let errors = report["errors"] as? [[String: Any]] ?? []
        #expect(
            errors.contains {
                $0["path"] as? String == root.file("locked")
                    && ($0["error"] as? String ?? "").contains("unreadable folder")
            }, "\(errors)")
        #expect(child.status == 1, "a folder left unread fails the scan")
    }
}

@Suite("Scan: probing pairs")
struct DriftScannerTests {
    @Test("real recordings against movie, sidecar and audio references; bad files are rows with reasons")
    func scan() throws {
        let root = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: root.file("cam"), withIntermediateDirectories: true)
        // 2 s reference movie at 1000 ticks/s; recording 131 ppm... rather 1000 ppm short: 95,904 frames.
        try writeMonoWAV(frames: 95_904, to: root.file("cam/a.wav"))
        let movie = Boxes.movie(milliseconds: 2000)
        try Data(movie).write(to: URL(fileURLWithPath: root.file("cam/a.mov")))
        try writeMonoWAV(frames: 48_000, to: root.file("cam/b.wav"))
        try "1.0\n".write(toFile: root.file("cam/b.duration"), atomically: true, encoding: .utf8)
        try "not audio".write(toFile: root.file("cam/c.wav"), atomically: true, encoding: .utf8)
        try Data(movie.prefix(40)).write(to: URL(fileURLWithPath: root.file("cam/c.mov")))
        try writeMonoWAV(frames: 48_000, to: root.file("cam/d.wav"))
        try Data(movie.prefix(40)).write(to: URL(fileURLWithPath: root.file("cam/d.mov")))

        let report = DriftScanner.scan(roots: [root.path], rules: PairingRules())
        let rows = Dictionary(
            uniqueKeysWithValues: report.pairs.map { (($0.recordingText as NSString).lastPathComponent, $0) })
        #expect(rows.count == 4)
        #expect(rows["a.wav"]?.cause == .pullDown)
        #expect(rows["a.wav"]?.targetFrames == 96_000)
        #expect(rows["a.wav"]?.referenceSource == "media header")
        #expect(rows["b.wav"]?.action == .skip)
        #expect(
            rows["c.wav"]?.error?.hasPrefix("recording: not an audio file") == true, "\(rows["c.wav"]?.error ?? "-")")
        #expect(rows["d.wav"]?.error?.hasPrefix("reference: truncated") == true)
        #expect(report.summary.errors == 2 && report.summary.needRepair == 1 && report.summary.inSync == 1)
    }
}
