import DriftAudio
import DriftFixtures
import Foundation
import Testing

/// The pairing paths a run can take.
enum PairingPath: String, CaseIterable, Sendable {
    case name, sound
    case nameThenSound = "name-then-sound"
}

/// What an option does on a path: it works there, or it is refused there with one line naming it and the path.
private enum Expect { case works, refused }

private let everywhere: [PairingPath: Expect] = [.name: .works, .sound: .works, .nameThenSound: .works]
private let byNameOnly: [PairingPath: Expect] = [.name: .works, .sound: .refused, .nameThenSound: .works]
private let bySoundOnly: [PairingPath: Expect] = [.name: .refused, .sound: .works, .nameThenSound: .works]

/// Each option of each command that runs a night, by its long name (the worker options by their section, as one), and
/// what it does on each pairing path. A new option missing here fails the test: no option can fall through unnoticed.
private let coverage: [String: [String: [PairingPath: Expect]]] = [
    "repair": [
        "out": everywhere, "report": everywhere, "config": everywhere, "quality": everywhere, "engine": everywhere,
        "max-attempts": everywhere, "journal": everywhere, "resume": everywhere, "no-resume": everywhere,
        "full": everywhere, "metrics": everywhere, "metrics-address": everywhere, "metrics-on-network": everywhere,
        "pair-by": everywhere,
        "mux": bySoundOnly, "Workers": everywhere, "Timeline (pairing by sound)": bySoundOnly,
    ],
    "scan": [
        "config": everywhere, "format": everywhere, "report": everywhere, "pair-by": everywhere,
        "content": byNameOnly,
        // Without --content a scan by names reads headers only: workers are refused (with --content they work).
        "Workers (with --content, or pairing by sound)": bySoundOnly, "Timeline (pairing by sound)": bySoundOnly,
    ],
    "sync": [
        "out": everywhere, "pair-by": everywhere, "config": everywhere, "format": everywhere, "report": everywhere,
        "mux": everywhere, "threads": everywhere, "quality": everywhere, "journal": everywhere, "full": everywhere,
        "exhaustive-search": everywhere, "Timeline": everywhere,
    ],
]

/// The options of `command` as its own definition lists them (swift-argument-parser's tool description), by long
/// name, or by section for grouped ones; `help` and `version` left out.
private func declaredOptions(_ command: String) throws -> Set<String> {
    let dump = try driftfix([command, "--experimental-dump-help"])
    let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
    let arguments = try #require((tool["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
    var options = Set<String>()
    for argument in arguments where argument["kind"] as? String != "positional" {
        let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        guard let long = names.max(by: { $0.count < $1.count }), long != "help", long != "version" else { continue }
        options.insert(argument["sectionTitle"] as? String ?? long)
    }
    return options
}

@Suite(
    "no option silently ignored: every option of scan, repair and sync works on each pairing path or is refused by name",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg not installed"))
struct OptionCoverageTests {
    /// A root with a pair by names (a recording and its sidecar reference) and a clip its recorder heard (names that
    /// say nothing): every pairing path finds something to do.
    private static func mixedRoot() throws -> TemporaryFolder {
        let tree = try RepairTree(drifted: 1, frames: 48_000, folders: 1)
        let shoot = Shoot(
            sound: .speech, seed: 77, sampleRate: 16000,
            recorders: [Shoot.Recorder(start: -3, seconds: 40, driftPPM: 90)],
            clips: [Shoot.Clip(start: 12, seconds: 9)])
        try FileManager.default.createDirectory(atPath: tree.root.file("audio"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tree.root.file("camera"), withIntermediateDirectories: true)
        try shoot.writeRecorder(0, to: tree.root.file("audio/REC0001.WAV"))
        try shoot.writeCameraClip(0, to: tree.root.file("camera/A001.MP4"))
        return tree.root
    }

    private static let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("config/driftfix.yaml").path

    @Test("the table covers every option the commands declare, and only those")
    func tableIsComplete() throws {
        for command in ["scan", "repair", "sync"] {
            let declared = try declaredOptions(command)
            let covered = Set(coverage[command, default: [:]].keys)
            #expect(declared.subtracting(covered).isEmpty, "\(command): options with no expectation")
            #expect(covered.subtracting(declared).isEmpty, "\(command): expectations for options it lacks")
            for (option, paths) in coverage[command, default: [:]] {
                let needed: [PairingPath] = command == "sync" ? [.sound, .nameThenSound] : PairingPath.allCases
                #expect(needed.allSatisfy { paths[$0] != nil }, "\(command) \(option): a path without expectation")
            }
        }
    }

    @Test(
        "refused options: one line naming the option and the path, exit 2, nothing written",
        arguments: PairingPath.allCases)
    func refusals(path: PairingPath) throws {
        let root = try Self.mixedRoot()
        let out = TemporaryFolder("driftfix-out")
        var cases: [(command: [String], option: String)] = []
        if coverage["repair"]?["mux"]?[path] == .refused {
            cases.append((["repair", root.path, "--out", out.file("o"), "--mux"], "--mux"))
        }
        if coverage["scan"]?["content"]?[path] == .refused {
            cases.append((["scan", root.path, "--content"], "--content"))
        }
        if coverage["repair"]?["Timeline (pairing by sound)"]?[path] == .refused {
            cases.append(
                (["repair", root.path, "--out", out.file("o"), "--timeline", out.file("t.otio")], "--timeline"))
            cases.append((["scan", root.path, "--timeline", out.file("t.edl")], "--timeline"))
        }
        if coverage["scan"]?["Workers (with --content, or pairing by sound)"]?[path] == .refused {
            cases.append((["scan", root.path, "--workers", "1"], "--workers"))
        }
        if path != .name {
            // Nothing is written without --out: the options about writing say so.
            for option in ["--mux", "--full"] { cases.append((["sync", root.path, option], option)) }
            cases.append((["sync", root.path, "--quality", "best"], "--quality"))
            // Without --out there is no synced audio for a timeline to point at.
            cases.append(
                (["sync", root.path, "--timeline", out.file("t.otio"), "--timeline-audio", "synced"], "--timeline"))
        }
        #expect(!cases.isEmpty)
        for (command, option) in cases {
            let result = try driftfix(command + ["--pair-by", path.rawValue])
            #expect(result.status == 2, "\(command): \(result.stdout)\n\(result.stderr)")
            #expect(result.errorLines.count == 1, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains(option) && result.stderr.contains("pairing by \(path.rawValue)"),
                "\(command): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.file("o")), "a refused night writes nothing")
    }

    @Test("options that work do what they say on every path: repair", arguments: PairingPath.allCases)
    func repairOptions(path: PairingPath) throws {
        let root = try Self.mixedRoot()
        let out = TemporaryFolder("driftfix-out")
        let files = TemporaryFolder("driftfix-files")
        let port = freeTCPPort()
        var night = [
            "repair", root.path, "--out", out.path, "--pair-by", path.rawValue, "--report", files.file("report"),
            "--config", Self.configuration, "--quality", "medium", "--engine", "soxr", "--max-attempts", "2",
            "--journal", files.file("journal.sqlite"), "--no-resume", "--metrics", files.file("night.prom"),
            "--metrics-address", "\(port)", "--workers", "1", "--idle-timeout", "30",
        ]
        if coverage["repair"]?["mux"]?[path] == .works { night.append("--mux") }
        if coverage["repair"]?["Timeline (pairing by sound)"]?[path] == .works {
            night += ["--timeline", files.file("night.fcpxml"), "--timeline-audio", "synced"]
        }
        let first = try driftfix(night)
        #expect(first.status == 0, "\(path): \(first.stdout)\n\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: files.file("report/report.json")), "--report")
        #expect(FileManager.default.fileExists(atPath: files.file("journal.sqlite")), "--journal")
        #expect(
            (try? String(contentsOfFile: files.file("night.prom"), encoding: .utf8))?.contains(
                "driftfix_last_run_success") == true, "--metrics")
        #expect(first.stderr.contains("metrics at http://127.0.0.1:\(port)/metrics"), "--metrics-address")
        #expect(!FileManager.default.fileExists(atPath: out.file(".driftfix/journal.sqlite")), "--journal")
        if night.contains("--timeline") {
            let timeline = try readTimeline(files.file("night.fcpxml"))
            #expect(timeline.status == 0 && timeline.clips == ["A001.MP4"], "--timeline: \(timeline.stderr)")
            #expect(timeline.summary["audioFiles"] as? [String] == [out.file("camera/A001.MP4")], "\(timeline.summary)")
            #expect(first.stderr.contains("timeline written to \(files.file("night.fcpxml"))"), "\(first.stderr)")
        }
        let repaired = first.stdout.components(separatedBy: " repaired,").first?.split(separator: "\n").last
        #expect(repaired.flatMap { Int($0) } ?? 0 >= 1, "\(path): \(first.stdout)")
        if path != .name {
            let clip = out.file(coverage["repair"]?["mux"]?[path] == .works ? "camera/A001.MP4" : "camera/A001.wav")
            #expect(FileManager.default.fileExists(atPath: clip), "\(path): the clip's audio at \(clip)")
        }

        let again = Array(night.prefix(8)) + ["--journal", files.file("journal.sqlite"), "--workers", "1"]
        let full = try driftfix(again + ["--full"] + (night.contains("--mux") ? ["--mux"] : []))
        #expect(full.status == 0 && full.stdout.contains(" 0 unchanged"), "\(path) --full: \(full.stdout)")
        let resume = try driftfix(again + ["--resume"])
        #expect(resume.status == 1 && resume.stderr.contains("has no unfinished run"), "\(path): \(resume.stderr)")
    }

    @Test("options that work do what they say on every path: scan and sync", arguments: PairingPath.allCases)
    func scanAndSyncOptions(path: PairingPath) throws {
        let root = try Self.mixedRoot()
        let files = TemporaryFolder("driftfix-files")
        var scan = [
            "scan", root.path, "--pair-by", path.rawValue, "--config", Self.configuration, "--format", "json",
            "--report", files.file("scan"),
        ]
        if coverage["scan"]?["content"]?[path] == .works { scan.append("--content") }
        if coverage["scan"]?["Timeline (pairing by sound)"]?[path] == .works {
            scan += ["--timeline", files.file("scan.edl")]
        }
        scan += ["--workers", "1", "--idle-timeout", "30"]
        let scanned = try driftfix(scan)
        #expect(scanned.status == 0, "\(path): \(scanned.stderr)")
        #expect((try? JSONSerialization.jsonObject(with: Data(scanned.stdout.utf8))) != nil, "--format json")
        #expect(FileManager.default.fileExists(atPath: files.file("scan/report.json")), "--report")
        if scan.contains("--timeline") {
            let list = try readTimeline(files.file("scan.edl"))
            #expect(list.status == 0 && list.clips == ["A001.MP4"], "--timeline: \(list.stderr)")
            #expect(list.summary["audioFiles"] as? [String] == [root.file("audio/REC0001.WAV")], "\(list.summary)")
        }
        if scan.contains("--content") {
            #expect(scanned.stdout.contains("\"content\""), "\(path): --content measured the pair by its sound")
        }
        guard path != .name else { return }
        let out = TemporaryFolder("driftfix-out")
        let sync = try driftfix([
            "sync", root.path, "--out", out.path, "--pair-by", path.rawValue, "--config", Self.configuration,
            "--format", "json", "--report", files.file("sync"), "--mux", "--threads", "1", "--quality", "best",
            "--journal", files.file("sync.sqlite"), "--full", "--exhaustive-search", "--timeline",
            files.file("sync.otio"),
        ])
        #expect(sync.status == 0, "\(path): \(sync.stdout)\n\(sync.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.file("camera/A001.MP4")), "--mux: a copy of the clip")
        #expect(FileManager.default.fileExists(atPath: files.file("sync.sqlite")), "--journal")
        #expect(FileManager.default.fileExists(atPath: files.file("sync/report.html")), "--report")
        let timeline = try readTimeline(files.file("sync.otio"))
        #expect(timeline.status == 0 && timeline.clips == ["A001.MP4"], "--timeline: \(timeline.stderr)")
        #expect(timeline.summary["audioFiles"] as? [String] == [root.file("audio/REC0001.WAV")], "\(timeline.summary)")
    }
}
