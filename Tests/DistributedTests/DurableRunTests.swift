import DriftAudio
import DriftCore
import DriftFixtures
import DriftJournal
import Foundation
import Testing

/// Identity of a file on disk: a rewritten output gets a new inode (written to a temporary file, then renamed).
func identity(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return "\(info.st_ino):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
}

@Suite("durable runs: journal, crash and resume, incremental runs, history", .serialized)
struct DurableRunTests {
    /// Every entry's output exists, has the exact target length and matches the ideal repair.
    func expectRepaired(_ tree: RepairTree, out: String, _ context: String) throws {
        for entry in tree.entries {
            let output = tree.output(entry, in: out)
            let (samples, _, frames) = try readAll(output)
            #expect(frames == entry.target, "\(context): \(output): \(frames) frames, expected \(entry.target)")
            let snr = SignalMeasure.snr(
                actual: samples, ideal: entry.signal.ideal(target: entry.target, start: 0, count: Int(entry.target)))
            #expect(snr > 100, "\(context): \(output): SNR \(snr) dB")
        }
        #expect(hiddenFiles(under: out).isEmpty, "\(context): no temporary files left: \(hiddenFiles(under: out))")
    }

    @Test(
        "kill -9 of the coordinator during the scan, after planning, mid-dispatch and while results arrive: the next run resumes and every file ends repaired once, verified",
        arguments: ["scan:1", "planned:1", "lease:3", "result:2"])
    func crashAndResume(failpoint: String) throws {
        let tree = try RepairTree(drifted: 8, frames: 48_000, channels: 2, folders: 2)
        let before = tree.fingerprints()
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let arguments = [
            "repair", tree.root.path, "--out", out.path, "--workers", "2", "--heartbeat", "0.5", "--report",
            report.path,
        ]
        let crashed = try Background(arguments, environment: ["DRIFTFIX_FAILPOINT": failpoint])
        let crash = crashed.wait(seconds: 120)
        #expect(crash.signaled && crash.status == SIGKILL, "\(failpoint): \(crash.stderr)")
        #expect(waitUntil(seconds: 20) { localWorkers(of: crashed.pid).isEmpty }, "orphaned workers stop on their own")

        // What the journal says was verified before the crash must not be redone.
        let journalPath = Journal.defaultPath(outputRoot: out.path)
        let states = try Journal(path: journalPath, readOnly: true).jobStates(run: 1)
        let doneBefore = states.values.filter { $0.state == .done }.map(\.output)
        if failpoint == "result:2" { #expect(doneBefore.count == 2, "\(states)") }
        if failpoint == "scan:1" { #expect(states.isEmpty) }
        let doneIdentities = doneBefore.map(identity)

        let resumed = try Background(arguments).wait(seconds: 120)
        #expect(resumed.status == 0, "\(failpoint): \(resumed.stdout)\n\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming run 1"), "\(failpoint): \(resumed.stderr)")
        #expect(resumed.stdout.contains("8 repaired, 0 unchanged"), "\(failpoint): \(resumed.stdout)")
        try expectRepaired(tree, out: out.path, failpoint)
        #expect(doneBefore.map(identity) == doneIdentities, "\(failpoint): verified outputs were not rewritten")
        let journal = try Journal(path: journalPath, readOnly: true)
        let runs = try journal.runs(limit: 10)
        #expect(runs.map(\.id) == [1] && runs.first?.status == .complete, "one run, finished: \(runs)")
        #expect(try journal.jobStates(run: 1).values.allSatisfy { $0.state == .done })
        #expect(tree.fingerprints() == before, "originals unchanged")
    }

    @Test("kill -9 from outside while jobs run and results arrive: the next run resumes without redoing verified work")
    func externalKill() throws {
        let tree = try RepairTree(drifted: 10, frames: 960_000, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let arguments = [
            "repair", tree.root.path, "--out", out.path, "--workers", "2", "--quality", "best", "--heartbeat", "0.5",
        ]
        let coordinator = try Background(arguments)
        let journalPath = Journal.defaultPath(outputRoot: out.path)
        let caught = waitUntil(seconds: 120) {
            guard let journal = try? Journal(path: journalPath, readOnly: true),
                let states = try? journal.jobStates(run: 1)
            else { return false }
            return states.values.filter { $0.state == .done }.count >= 3
        }
        kill(coordinator.pid, SIGKILL)
        _ = coordinator.wait(seconds: 10)
        try #require(caught, "no results were recorded")
        #expect(waitUntil(seconds: 30) { localWorkers(of: coordinator.pid).isEmpty })
        let states = try Journal(path: journalPath, readOnly: true).jobStates(run: 1)
        let done = states.values.filter { $0.state == .done }.map(\.output)
        try #require(done.count < 10, "the run finished before the kill; nothing to resume")
        let identities = done.map(identity)

        let resumed = try Background(arguments).wait(seconds: 240)
        #expect(resumed.status == 0, "\(resumed.stdout)\n\(resumed.stderr)")
        #expect(
            resumed.stderr.contains("resuming run 1")
                && resumed.stderr.contains("\(done.count) of 10 jobs already finished"), "\(resumed.stderr)")
        try expectRepaired(tree, out: out.path, "external kill")
        #expect(done.map(identity) == identities, "verified outputs were not rewritten")
    }

    @Test(
        "incremental runs: an unchanged tree does no work; a touched recording or a lost output is redone alone; --full redoes all"
    )
    func incremental() throws {
        let tree = try RepairTree(drifted: 6, inSync: 1, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let arguments = ["repair", tree.root.path, "--out", out.path, "--workers", "2", "--report", report.path]
        let first = try driftfix(arguments)
        #expect(
            first.status == 0 && first.stdout.contains("6 repaired, 0 unchanged, 1 skipped"),
            "\(first.stdout)\n\(first.stderr)")
        let outputs = tree.entries.prefix(6).map { tree.output($0, in: out.path) }
        let identities = outputs.map(identity)

        let second = try driftfix(arguments)
        #expect(
            second.status == 0 && second.stdout.contains("0 repaired, 6 unchanged, 1 skipped"),
            "\(second.stdout)\n\(second.stderr)")
        #expect(outputs.map(identity) == identities, "nothing rewritten")
        #expect(try reportRows(report.path).values.filter { $0["outcome"] as? String == "unchanged" }.count == 6)
        #expect(
            try reportRows(report.path)[(tree.entries[0].recording as NSString).lastPathComponent]?["outputFrames"]
                as? Int
                == Int(tree.entries[0].target), "an unchanged row still names its verified output")

        // touch one recording: only it is redone.
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: tree.entries[2].recording)
        // lose another's output: only it is redone.
        try FileManager.default.removeItem(atPath: outputs[4])
        let third = try driftfix(arguments)
        #expect(
            third.status == 0 && third.stdout.contains("2 repaired, 4 unchanged"), "\(third.stdout)\n\(third.stderr)")
        let now = outputs.map(identity)
        for index in outputs.indices {
            #expect((now[index] != identities[index]) == (index == 2 || index == 4), "output \(index)")
        }
        try expectRepaired(RepairTree.prefix(tree, 6), out: out.path, "incremental")

        let full = try driftfix(arguments + ["--full"])
        #expect(full.status == 0 && full.stdout.contains("6 repaired, 0 unchanged"), "\(full.stdout)")
        #expect(zip(outputs.map(identity), now).allSatisfy { $0 != $1 }, "--full rewrote every output")
    }

    @Test(
        "--engine soxr: workers repair every pair exactly, against the ideal; a kill -9 mid-dispatch resumes on the same engine; the engine is part of the plan, so switching back redoes the pairs once"
    )
    func soxrEngine() throws {
        let tree = try RepairTree(drifted: 6, frames: 48_000, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let arguments = ["repair", tree.root.path, "--out", out.path, "--workers", "2", "--heartbeat", "0.5"]
        let crashed = try Background(arguments + ["--engine", "soxr"], environment: ["DRIFTFIX_FAILPOINT": "result:2"])
        #expect(crashed.wait(seconds: 120).signaled)
        _ = waitUntil(seconds: 20) { localWorkers(of: crashed.pid).isEmpty }
        // Resumed without --engine: the stored plan keeps soxr.
        let resumed = try driftfix(arguments)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        try expectRepaired(tree, out: out.path, "soxr")
        let journal = try Journal(path: Journal.defaultPath(outputRoot: out.path), readOnly: true)
        let engines = try journal.jobEngines(run: 1)
        #expect(
            engines.count == 6 && engines.values.allSatisfy { $0 == .soxr },
            "every job of the run was a soxr job: \(engines)")
        // The next night without --engine (auto): soxr is no longer asked for by name, a change of plan, so every
        // pair is redone once (on the engine auto picks: soxr at medium).
        let switched = try driftfix(arguments)
        #expect(switched.stdout.contains("6 repaired, 0 unchanged"), "\(switched.stdout)")
        let again = try driftfix(arguments)
        #expect(again.stdout.contains("0 repaired, 6 unchanged"), "\(again.stdout)")
        try expectRepaired(tree, out: out.path, "auto after soxr")
    }

    @Test(
        "--engine auto, the default: an earlier night's outputs made by the old default (libsamplerate) stay current; its jobs name the engine that runs (polyphase at medium and best, soxr at fast); outputs exact against the ideal"
    )
    func autoEngine() throws {
        let tree = try RepairTree(drifted: 4, frames: 48_000, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let arguments = ["repair", tree.root.path, "--out", out.path, "--workers", "2"]
        let old = try driftfix(arguments + ["--engine", "libsamplerate"])
        #expect(old.status == 0 && old.stdout.contains("4 repaired, 0 unchanged"), "\(old.stdout)\(old.stderr)")
        let outputs = tree.entries.map { tree.output($0, in: out.path) }
        let identities = outputs.map(identity)
        let now = try driftfix(arguments)
        #expect(
            now.status == 0 && now.stdout.contains("0 repaired, 4 unchanged"),
            "a changed default is no change of plan: \(now.stdout)")
        #expect(outputs.map(identity) == identities)

        // A fresh tree under the default: medium and best run on the polyphase kernel, fast on soxr, each named in
        // the journal.
        for (quality, engine) in [("medium", ResampleEngine.polyphase), ("best", .polyphase), ("fast", .soxr)] {
            let fresh = TemporaryFolder("driftfix-out")
            let night = try driftfix([
                "repair", tree.root.path, "--out", fresh.path, "--workers", "2", "--quality", quality,
            ])
            #expect(night.status == 0, "\(night.stderr)")
            try expectRepaired(tree, out: fresh.path, "auto at \(quality)")
            let journal = try Journal(path: Journal.defaultPath(outputRoot: fresh.path), readOnly: true)
            let engines = try journal.jobEngines(run: 1)
            #expect(engines.count == 4 && engines.values.allSatisfy { $0 == engine }, "\(quality): \(engines)")
        }
    }

    @Test("a journal in use, damaged, or on a full disk: one clear line, exit 1, nothing written; resumable afterwards")
    func journalFailures() throws {
        let tree = try RepairTree(drifted: 3)
        let out = TemporaryFolder("driftfix-out")
        // In use: a coordinator waiting for workers owns it.
        let owner = try Background([
            "repair", tree.root.path, "--out", out.path, "--bind", uniqueEndpoint(), "--workers", "0",
            "--idle-timeout", "30",
        ])
        let journalPath = Journal.defaultPath(outputRoot: out.path)
        // Owned once its lock is held (the kernel's table of locks names the lock file's inode), not merely made.
        try #require(
            waitUntil(seconds: 60) {
                var info = stat()
                guard stat(journalPath + ".lock", &info) == 0,
                    let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
                else { return false }
                return locks.contains(":\(info.st_ino) ")
            }, "the waiting coordinator never locked its journal")
        let second = try driftfix(["repair", tree.root.path, "--out", out.path, "--workers", "1"])
        #expect(second.status == 1)
        #expect(
            second.errorLines.contains {
                $0.contains("journal \(journalPath) is in use by another driftfix repair (pid \(owner.pid)")
            },
            "\(second.stderr)")
        kill(owner.pid, SIGTERM)
        _ = owner.wait(seconds: 30)

        // Damaged: refused, left alone, no output written.
        let damaged = TemporaryFolder("driftfix-out")
        try FileManager.default.createDirectory(atPath: damaged.file(".driftfix"), withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 10_000)
        try garbage.write(to: URL(fileURLWithPath: Journal.defaultPath(outputRoot: damaged.path)))
        let refused = try driftfix(["repair", tree.root.path, "--out", damaged.path, "--workers", "1"])
        #expect(refused.status == 1)
        #expect(
            refused.errorLines.contains { $0.contains("is damaged") && $0.contains("Move it aside") },
            "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: Journal.defaultPath(outputRoot: damaged.path))) == garbage)
        #expect(damaged.entries() == [".driftfix"], "nothing repaired without a journal")

        // Full disk under the journal: refused at once; after freeing space the run goes through.
        try #require(TmpfsMount.available, "needs root to mount a tmpfs")
        let disk = try TmpfsMount(kibibytes: 1024)
        let filler = disk.file("filler")
        FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        while (try? handle.write(contentsOf: Data(repeating: 1, count: 4096))) != nil {}
        try handle.close()
        let spaceless = TemporaryFolder("driftfix-out")
        let full = try driftfix([
            "repair", tree.root.path, "--out", spaceless.path, "--workers", "1", "--journal", disk.file("j.sqlite"),
        ])
        #expect(full.status == 1)
        #expect(
            full.errorLines.contains { $0.contains(disk.file("j.sqlite")) && $0.contains("no space left") },
            "\(full.stderr)")
        try FileManager.default.removeItem(atPath: filler)
        let retry = try driftfix([
            "repair", tree.root.path, "--out", spaceless.path, "--workers", "1", "--journal", disk.file("j.sqlite"),
        ])
        #expect(retry.status == 0 && retry.stdout.contains("3 repaired"), "\(retry.stdout)\n\(retry.stderr)")
    }

    @Test("drift history over nightly runs flags the recorder that started drifting; report, metrics and history agree")
    func historyAndMetrics() throws {
        // 10 s takes: their drifts (-233, -152 and +182 ppm; the fourth, -402, no clock figure) are clocks.
        let tree = try RepairTree(drifted: 4, frames: 480_000, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let metrics = out.file("driftfix.prom")
        let arguments = [
            "repair", tree.root.path, "--out", out.path, "--workers", "1", "--report", report.path, "--metrics",
            metrics,
        ]
        for night in 1...3 {
            if night == 3 {
                // device1's recorder goes bad: one take's clock moves from -233 to -208 ppm, its device's median from
                // -25.5 ppm (with its +182 ppm take) to -208.
                let entry = tree.entries[1]
                try "\(entry.frames + 100)@48000\n"
                    .write(
                        toFile: (entry.recording as NSString).deletingPathExtension + ".duration", atomically: true,
                        encoding: .utf8)
            }
            let result = try driftfix(arguments)
            #expect(result.status == 0, "night \(night): \(result.stderr)")
            if night == 3 {
                #expect(result.stdout.contains("1 repaired, 3 unchanged"), "\(result.stdout)")
                #expect(result.stderr.contains("device1: started drifting"), "\(result.stderr)")
            }
        }
        let history = try driftfix(["history", "--out", out.path])
        #expect(history.status == 0)
        #expect(history.stdout.contains("! device1: started drifting"), "\(history.stdout)")
        #expect(!history.stdout.contains("! device0"), "\(history.stdout)")
        let json = try driftfix(["history", "--out", out.path, "--format", "json", tree.entries[1].recording])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["runs"] as? [Any])?.count == 3)
        #expect((object["files"] as? [[String: Any]])?.first?["name"] as? String == tree.entries[1].recording)

        let html = try String(contentsOfFile: report.path + "/report.html", encoding: .utf8)
        #expect(html.contains("<svg id=\"trend\"") && html.contains("data-device=\"device1\""))
        let reportObject = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report.path + "/report.json")))
                as? [String: Any])
        let devices = (reportObject["history"] as? [String: Any])?["devices"] as? [[String: Any]] ?? []
        #expect(devices.filter { $0["alert"] != nil }.map { $0["name"] as? String } == ["device1"])

        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(text.contains("driftfix_last_run_success 1"))
        #expect(text.contains("driftfix_last_run_files{outcome=\"repaired\"} 1"))
        #expect(text.contains("driftfix_last_run_files{outcome=\"unchanged\"} 3"))
        #expect(
            text.contains("driftfix_device_alert{device=\"device1\"} 1")
                && text.contains("driftfix_device_alert{device=\"device0\"} 0"))
        #expect(text.contains("driftfix_devices 2") && text.contains("driftfix_device_series_omitted 0"))
        let stamp = text.split(separator: "\n").first { $0.hasPrefix("driftfix_last_success_timestamp_seconds ") }
        let seconds = try #require(stamp.flatMap { Double($0.split(separator: " ")[1]) })
        #expect(abs(seconds - Date().timeIntervalSince1970) < 60)
    }
}

extension RepairTree {
    /// The same tree limited to its first `count` entries (for checks over the drifted ones only).
    static func prefix(_ tree: RepairTree, _ count: Int) -> RepairTree {
        var copy = tree
        copy.entries = Array(tree.entries.prefix(count))
        return copy
    }
}
