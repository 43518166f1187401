import DriftAudio
import DriftCore
import DriftFixtures
import DriftTransport
import DriftWire
import Foundation
import Testing

@Suite("driftfix repair with worker processes over ZeroMQ", .serialized)
struct RepairRunTests {
    @Test("a tree of 34 pairs with 3 local workers: repaired, verified and aligned; skipped and refused untouched")
    func fullRun() throws {
        let tree = try RepairTree(drifted: 28, inSync: 4, refused: 2)
        let before = tree.fingerprints()
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let run = try Background([
            "repair", tree.root.path, "--out", out.path, "--workers", "3", "--report", report.path,
        ])
        let result = run.wait(seconds: 240)
        #expect(result.status == 1, "refused pairs make the exit code 1: \(result.stderr)")
        #expect(
            result.stdout.contains("28 repaired, 0 unchanged, 4 skipped, 2 refused, 0 failed, 0 unfinished"),
            "\(result.stdout)")
        let rows = try reportRows(report.path)
        for entry in tree.entries {
            let output = tree.output(entry, in: out.path)
            let name = (entry.recording as NSString).lastPathComponent
            #expect(rows[name]?["outcome"] as? String == entry.expected.rawValue, "\(name)")
            switch entry.expected {
            case .repaired:
                let (samples, _, frames) = try readAll(output)
                #expect(frames == entry.target, "\(name): \(frames) frames, expected \(entry.target)")
                #expect(rows[name]?["outputFrames"] as? Int == Int(entry.target))
                #expect((rows[name]?["worker"] as? String)?.hasPrefix("local-") == true)
                let ideal = entry.signal.ideal(target: entry.target, start: 0, count: Int(entry.target))
                let snr = SignalMeasure.snr(actual: samples, ideal: ideal)
                #expect(snr > 100, "\(name): SNR \(snr) dB against the ideal repair")
            default:
                #expect(!FileManager.default.fileExists(atPath: output), "\(name) must not be written")
            }
        }
        #expect(tree.fingerprints() == before, "originals unchanged")
        #expect(hiddenFiles(under: out.path).isEmpty, "no temporary files left")
    }

    @Test("kill -9 a worker in the middle of a job: the run completes, every file repaired exactly once")
    func killedWorker() throws {
        // Long enough jobs (20 s of stereo at best quality) that one is surely in flight when the worker dies.
        let tree = try RepairTree(drifted: 6, frames: 960_000, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let endpoint = uniqueEndpoint()
        let coordinator = try remoteCoordinator(
            tree, out: out, bind: endpoint, ["--quality", "best", "--report", report.path])
        let workers = try (1...3).map { index in
            try Background([
                "worker", "--connect", endpoint, "--concurrency", "1", "--identity", "w\(index)", "--heartbeat", "0.5",
            ])
        }
        // Find a worker writing a temporary file, and kill it mid-job.
        var victim: Int32?
        waitUntil(seconds: 60) {
            for name in hiddenFiles(under: out.path) {
                let parts = (name as NSString).lastPathComponent.components(separatedBy: "-")
                if parts.count >= 4, let pid = Int32(parts[parts.count - 2]), workers.contains(where: { $0.pid == pid })
                {
                    victim = pid
                    return true
                }
            }
            return false
        }
        let pid = try #require(victim, "no worker was caught writing")
        kill(pid, SIGKILL)
        let result = coordinator.wait(seconds: 240)
        for worker in workers { _ = worker.wait(seconds: 15) }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("6 repaired"), "\(result.stdout)")
        let rows = try reportRows(report.path)
        for entry in tree.entries {
            let output = tree.output(entry, in: out.path)
            #expect(try AudioFileReader(path: output).frameCount == entry.target)
            let row = rows[(entry.recording as NSString).lastPathComponent]
            #expect(row?["outcome"] as? String == "repaired")
        }
        #expect(rows.values.contains { ($0["attempts"] as? Int ?? 0) >= 2 }, "the killed worker's job was leased again")
        #expect(hiddenFiles(under: out.path).isEmpty, "the dead worker's temporary file was cleaned up")
    }

    @Test(
        "a worker started late is used; when every worker is gone the coordinator reports unfinished jobs and exits 1")
    func lateWorkerAndNoWorkers() throws {
        let tree = try RepairTree(drifted: 4)
        let out = TemporaryFolder("driftfix-out")
        let endpoint = uniqueEndpoint()
        let coordinator = try remoteCoordinator(tree, out: out, bind: endpoint, ["--idle-timeout", "20"])
        // Late: once the coordinator listens (its socket file exists), with nobody there to take its jobs.
        let socket = String(endpoint.dropFirst("ipc://".count))
        try #require(waitUntil(seconds: 60) { FileManager.default.fileExists(atPath: socket) }, "never listened")
        let worker = try Background(["worker", "--connect", endpoint, "--concurrency", "2", "--heartbeat", "0.5"])
        let result = coordinator.wait(seconds: 120)
        _ = worker.wait(seconds: 15)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("4 repaired"))

        // Now nobody ever comes: the jobs stay unfinished and the run ends after the idle timeout.
        let lonely = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let start = Date()
        let abandoned = try remoteCoordinator(
            tree, out: lonely, bind: uniqueEndpoint(), ["--idle-timeout", "2", "--report", report.path]
        ).wait(seconds: 60)
        #expect(abandoned.status == 1)
        #expect(Date().timeIntervalSince(start) < 30)
        #expect(
            abandoned.stdout.contains("0 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed, 4 unfinished"),
            "\(abandoned.stdout)")
        #expect(try reportRows(report.path).values.allSatisfy { $0["outcome"] as? String == "unfinished" })
    }

    @Test("garbage, oversized, wrong-version and stranger messages leave the run unaffected")
    func hostileClient() throws {
        let tree = try RepairTree(drifted: 8)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let endpoint = uniqueEndpoint()
        let coordinator = try remoteCoordinator(
            tree, out: out, bind: endpoint, ["--idle-timeout", "30", "--report", report.path])
        let context = try MessageContext()
        let rogue = try MessageSocket(context: context, kind: .dealer, maxMessageBytes: 1 << 20)
        try rogue.setIdentity(Array("rogue".utf8))
        try rogue.connect(endpoint)
        let payloads: [[[UInt8]]] = [
            [Array("garbage".utf8)],
            // Over the limit: libzmq drops the connection.
            [[UInt8](repeating: 0x41, count: WireCodec.maxMessageBytes + 1)],
            [Array(#"{"v":99,"type":"hello"}"#.utf8)],
            [Array(#"{"v":2,"type":"launch"}"#.utf8)],
            [Array("a".utf8), Array("b".utf8), Array("c".utf8)],
            [
                try WireCodec.encode(
                    .result(
                        JobResult(
                            id: 1, attempt: 1, worker: "rogue", seconds: 0,
                            outcome: .repaired(WrittenOutput(frames: 1, checksum: nil))))
                )
            ],
            [try WireCodec.encode(.heartbeat(running: [1, 2, 3]))],
        ]
        for _ in 0..<20 { for frames in payloads { _ = try? rogue.send(frames) } }
        // A flood of garbage: it must not flood the log.
        for index in 0..<5000 { _ = try? rogue.send([Array("noise \(index)".utf8)]) }
        // A second rogue says hello, takes a job, and falls silent: its lease expires and the job is redone.
        let silent = try MessageSocket(context: context, kind: .dealer, maxMessageBytes: 1 << 20)
        try silent.setIdentity(Array("silent".utf8))
        try silent.connect(endpoint)
        try silent.send([
            try WireCodec.encode(.hello(WorkerHello(worker: "silent", capacity: 1, software: "x", host: "h", pid: 1)))
        ])
        // It has its job before the real worker exists (so it cannot have gone elsewhere first).
        var leased: JobSpec?
        let deadline = Date().addingTimeInterval(60)
        while leased == nil, Date() < deadline {
            guard try silent.poll(milliseconds: 200).0, let frames = try silent.receive(), let last = frames.last,
                case .job(let spec)? = try? WireCodec.decode(last)
            else { continue }
            leased = spec
        }
        let taken = try #require(leased, "the silent client was never given a job")
        let worker = try Background(["worker", "--connect", endpoint, "--concurrency", "2", "--heartbeat", "0.5"])
        let result = coordinator.wait(seconds: 120)
        _ = worker.wait(seconds: 15)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("8 repaired"))
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
        #expect(result.stderr.contains("dropped message"), "drops are logged")
        let dropLines = result.errorLines.filter { $0.contains("dropped message") }.count
        #expect(dropLines <= 40, "over 5,000 bad messages, \(dropLines) log lines (rate-limited)")
        // The silent client's lease expired and its job was done again, by the real worker.
        let row = try #require(try reportRows(report.path)[(taken.input as NSString).lastPathComponent])
        #expect((row["attempts"] as? Int ?? 0) >= 2 && row["worker"] as? String != "silent", "\(row)")
        #expect(row["outcome"] as? String == "repaired", "\(row)")
    }
}

@Suite("driftfix repair: graceful stop", .serialized)
struct GracefulStopTests {
    @Test(
        "SIGTERM or SIGINT stops dispatch, lets running jobs finish, writes the report and exits 1 with the rest unfinished; no worker, no temporary file is left",
        arguments: [SIGTERM, SIGINT])
    func sigterm(signal: Int32) throws {
        let tree = try RepairTree(drifted: 12, frames: 480_000, channels: 2, folders: 1)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let run = try Background([
            "repair", tree.root.path, "--out", out.path, "--workers", "1", "--quality", "best",
            "--report", report.path,
        ])
        // Wait until the first job is being written, then ask the run to stop.
        try #require(waitUntil(seconds: 60) { !hiddenFiles(under: out.path).isEmpty })
        let workers = localWorkers(of: run.pid)
        kill(run.pid, signal)
        let result = run.wait(seconds: 90)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            !workers.isEmpty && workers.allSatisfy { kill($0, 0) != 0 }, "no local worker outlives the run: \(workers)")
        let rows = try reportRows(report.path)
        let outcomes = rows.values.compactMap { $0["outcome"] as? String }
        #expect(outcomes.contains("repaired"), "the running job finished")
        #expect(outcomes.contains("unfinished"), "the rest was not started")
        #expect(hiddenFiles(under: out.path).isEmpty, "no temporary files left")
        for entry in tree.entries
        where rows[(entry.recording as NSString).lastPathComponent]?["outcome"] as? String == "repaired" {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
    }
}

@Suite("driftfix worker: path map", .serialized)
struct PathMapTests {
    @Test(
        "a worker that sees the media under another mount point maps the coordinator's paths",
        .enabled(if: TmpfsMount.available, "needs root to bind-mount"))
    func pathMap() throws {
        let tree = try RepairTree(drifted: 3)
        let base = TemporaryFolder("driftfix-mounts")
        let out = base.file("out-real")
        // The coordinator sees media and output through bind mounts (its own mount points); they are unmounted once
        // it has scanned, so a worker succeeds only through its path map.
        let view = base.file("coordinator-view")
        for folder in [out, view + "/media", view + "/out"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        #expect(run("/bin/mount", ["--bind", tree.root.path, view + "/media"]) == 0)
        #expect(run("/bin/mount", ["--bind", out, view + "/out"]) == 0)
        defer {
            run("/bin/umount", [view + "/media"])
            run("/bin/umount", [view + "/out"])
        }
        let endpoint = uniqueEndpoint()
        let report = TemporaryFolder("driftfix-report")
        // The journal lives outside the mount points, or the coordinator's open journal would keep them busy.
        let coordinator = try Background([
            "repair", view + "/media", "--out", view + "/out", "--bind", endpoint, "--workers", "0",
            "--heartbeat", "0.5", "--idle-timeout", "20", "--report", report.path,
            "--journal", base.file("journal.sqlite"),
        ])
        let socket = String(endpoint.dropFirst("ipc://".count))
        try #require(
            waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: socket) }, "coordinator did not bind")
        #expect(run("/bin/umount", [view + "/media"]) == 0)
        #expect(run("/bin/umount", [view + "/out"]) == 0)
        let config = base.file("worker.yaml")
        try """
        worker:
          path-map:
            - from: \(view)/media
              to: \(tree.root.path)
            - from: \(view)/out
              to: \(out)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let worker = try Background([
            "worker", "--connect", endpoint, "--concurrency", "2", "--heartbeat", "0.5", "--config", config,
        ])
        let result = coordinator.wait(seconds: 120)
        _ = worker.wait(seconds: 15)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for entry in tree.entries {
            let output = out + entry.recording.dropFirst(tree.root.path.count)
            #expect(try AudioFileReader(path: output).frameCount == entry.target)
        }
    }
}
