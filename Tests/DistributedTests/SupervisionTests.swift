import DriftAudio
import DriftFixtures
import DriftJournal
import Foundation
import Testing

@Suite("supervised workers: replaced, ended when hung, a crash loop ends the run, a worker's own disk", .serialized)
struct SupervisionTests {
    @Test("workers that die before they connect (a crash loop) end the run with one clear line; the next run resumes")
    func crashLoop() throws {
        let tree = try RepairTree(drifted: 4)
        let out = TemporaryFolder("driftfix-out")
        let arguments = ["repair", tree.root.path, "--out", out.path, "--workers", "2", "--heartbeat", "0.5"]
        let started = Date()
        // Every worker kills itself before it connects (as a missing library or a broken build would end it).
        let failing = try Background(arguments, environment: ["DRIFTFIX_FAILPOINT": "worker-start:1"])
        let result = failing.wait(seconds: 60)
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 30, "detected, not waited out by the idle timeout")
        let lines = result.errorLines.filter { $0.contains("local workers keep dying before they connect") }
        #expect(lines.count == 1 && lines[0].contains("(5 in a row, the last with signal 9)"), "\(result.stderr)")
        #expect(waitUntil(seconds: 10) { localWorkers(of: failing.pid).isEmpty }, "no worker left behind")
        let runs = try Journal(path: Journal.defaultPath(outputRoot: out.path), readOnly: true).runs(limit: 5)
        #expect(runs.first?.status == .workersFailing, "\(runs)")

        let fixed = try driftfix(arguments)
        #expect(fixed.status == 0 && fixed.stderr.contains("resuming run 1"), "\(fixed.stdout)\n\(fixed.stderr)")
        #expect(fixed.stdout.contains("4 repaired"), "\(fixed.stdout)")
    }

    @Test(
        "a hung worker (SIGSTOP) is given up, ended and replaced; its temporary file goes when it is gone; the night ends complete"
    )
    func hungWorker() throws {
        let tree = try RepairTree(drifted: 4, frames: 480_000, channels: 2, folders: 1, tones: 2)
        let out = TemporaryFolder("driftfix-out")
        let coordinator = try Background([
            "repair", tree.root.path, "--out", out.path, "--workers", "1", "--heartbeat", "0.3",
            "--quality", "best",
        ])
        // Freeze the worker in the middle of writing an output.
        var frozen: Int32?
        let caught = waitUntil(seconds: 60) {
            guard !hiddenFiles(under: out.path).isEmpty, let worker = localWorkers(of: coordinator.pid).first else {
                return false
            }
            kill(worker, SIGSTOP)
            frozen = worker
            return true
        }
        try #require(caught, "no temporary file was ever seen")
        let result = coordinator.wait(seconds: 120)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stderr.contains("stopped answering; ending it"), "\(result.stderr)")
        #expect(result.stderr.contains("left by worker") && result.stderr.contains("(went silent)"), "\(result.stderr)")
        #expect(result.stderr.contains("disruptions: 1 worker lost, 1 worker replaced"), "\(result.stderr)")
        #expect(result.stdout.contains("4 repaired"), "\(result.stdout)")
        #expect(hiddenFiles(under: out.path).isEmpty, "\(hiddenFiles(under: out.path))")
        if let frozen { #expect(kill(frozen, 0) != 0, "the hung worker was ended") }
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
    }

    @Test(
        "a worker whose own output volume is read-only fails its jobs as retryable; they go to another worker, and the run says whose volume",
        .enabled(if: TmpfsMount.available, "needs root to mount a tmpfs"))
    func readOnlyVolume() throws {
        let tree = try RepairTree(drifted: 10, frames: 96_000, channels: 2, folders: 2, tones: 2)
        let out = TemporaryFolder("driftfix-out")
        let readOnly = try TmpfsMount(kibibytes: 64, readOnly: true)
        let endpoint = uniqueEndpoint()
        let coordinator = try remoteCoordinator(
            tree, out: out, bind: endpoint, ["--idle-timeout", "30", "--quality", "best"])
        let socket = String(endpoint.dropFirst("ipc://".count))
        try #require(
            waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: socket) }, "coordinator did not bind")
        let healthy = try Background(["worker", "--connect", endpoint, "--identity", "healthy", "--heartbeat", "0.5"])
        // The second worker joins once the first is at work, so both are there when its failures come back.
        #expect(
            waitUntil(seconds: 60) {
                tree.entries.contains { FileManager.default.fileExists(atPath: tree.output($0, in: out.path)) }
            })
        let config = TemporaryFolder("driftfix-config")
        try "worker:\n  path-map:\n    - from: \(out.path)\n      to: \(readOnly.path)\n"
            .write(toFile: config.file("w.yaml"), atomically: true, encoding: .utf8)
        let stuck = try Background([
            "worker", "--connect", endpoint, "--identity", "read-only-disk", "--heartbeat", "0.5",
            "--config", config.file("w.yaml"),
        ])
        let result = coordinator.wait(seconds: 120)
        _ = healthy.wait(seconds: 15)
        _ = stuck.wait(seconds: 15)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("10 repaired"), "\(result.stdout)")
        let requeued = result.errorLines.filter { $0.contains("trying another worker") }
        #expect(!requeued.isEmpty, "the read-only worker got no job: \(result.stderr)")
        #expect(
            requeued.allSatisfy { $0.contains("worker read-only-disk on ") && $0.contains("volume \(readOnly.path)") },
            "\(requeued)")
        let rows = try Journal(path: Journal.defaultPath(outputRoot: out.path), readOnly: true).outputs()
        #expect(rows.values.allSatisfy { $0.worker == "healthy" }, "every output was written by the healthy worker")
    }
}
