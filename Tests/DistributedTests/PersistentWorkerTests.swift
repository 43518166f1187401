import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

@Suite("persistent workers: night after night, drained on SIGTERM", .serialized)
struct PersistentWorkerTests {
    @Test(
        "two persistent workers serve three coordinator runs in a row, the last after the coordinator was down for 20 s: every output exact, the same two processes throughout, each absence said once"
    )
    func nightAfterNight() throws {
        let endpoint = uniqueEndpoint()
        let workers = try (1...2).map { index in
            try Background([
                "worker", "--connect", endpoint, "--persistent", "--concurrency", "1",
                "--identity", "persistent-\(index)", "--heartbeat", "0.5",
            ])
        }
        defer { for worker in workers { kill(worker.pid, SIGKILL) } }
        var served: Set<String> = []
        for night in 0..<3 {
            if night == 2 { Thread.sleep(forTimeInterval: 20) }  // no coordinator up for 20 s
            let tree = try RepairTree(drifted: 6, frames: 48_000, channels: 1, folders: 2)
            let out = TemporaryFolder("driftfix-out")
            let report = TemporaryFolder("driftfix-report")
            let result = try remoteCoordinator(
                tree, out: out, bind: endpoint, ["--idle-timeout", "60", "--report", report.path]
            ).wait(seconds: 120)
            #expect(result.status == 0, "night \(night): \(result.stdout)\n\(result.stderr)")
            #expect(
                result.stdout.contains("6 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed"),
                "night \(night): \(result.stdout)")
            for entry in tree.entries {
                #expect(
                    try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target,
                    "night \(night)")
            }
            // The report names the workers by the identities they keep across reconnects and runs.
            let rows = try reportRows(report.path)
            #expect(
                rows.values.allSatisfy { ["persistent-1", "persistent-2"].contains($0["worker"] as? String ?? "") },
                "night \(night): \(rows.values.map { $0["worker"] ?? "-" })")
            served.formUnion(rows.values.compactMap { $0["worker"] as? String })
            #expect(
                workers.allSatisfy { $0.isRunning },
                "night \(night): a persistent worker outlives its coordinator's run")
        }
        #expect(served == ["persistent-1", "persistent-2"], "both served: \(served)")
        // Waiting for the next run, a stop ends them at once, cleanly.
        for worker in workers { kill(worker.pid, SIGTERM) }
        for worker in workers {
            let ended = worker.wait(seconds: 10)
            #expect(ended.status == 0 && !ended.signaled && !ended.timedOut, "\(ended.stderr)")
            // A worker re-joins a heartbeat or three after a run ends, so one may miss a run that lasts a second.
            let ends = ended.stderr.components(separatedBy: "the run ended; waiting for the next coordinator").count - 1
            #expect((1...3).contains(ends), "each run's end said once: \(ended.stderr)")
            #expect(
                !ended.stderr.contains("silent"),
                "waiting between runs is not an outage, not a line per try: \(ended.stderr)")
        }
    }

    @Test(
        "SIGTERM mid-job: the running job finishes and the worker exits 0; with a short --drain-timeout the job is handed back, finished by another worker, and nothing is left behind"
    )
    func drain() throws {
        let tree = try RepairTree(drifted: 1, frames: 48_000 * 180, channels: 1, folders: 1, tones: 4)
        for (label, drainTimeout) in [("finishes", "60"), ("handed back", "0.5")] {
            let out = TemporaryFolder("driftfix-out")
            let endpoint = uniqueEndpoint()
            let coordinator = try remoteCoordinator(
                tree, out: out, bind: endpoint, ["--idle-timeout", "60", "--quality", "best"])
            // The job is held at its rename for 10 s (the failpoint), so the stop finds it running however fast the
            // machine converts it.
            let worker = try Background(
                [
                    "worker", "--connect", endpoint, "--persistent", "--concurrency", "1",
                    "--heartbeat", "0.5", "--drain-timeout", drainTimeout,
                ], environment: ["DRIFTFIX_FAILPOINT": "commit:1:delay10"])
            defer { kill(worker.pid, SIGKILL) }
            try #require(
                waitUntil(seconds: 60) { hiddenFiles(under: out.path).count == 1 }, "\(label): the job is being written"
            )
            kill(worker.pid, SIGTERM)
            let started = Date()
            let ended = worker.wait(seconds: 90)
            #expect(ended.status == 0 && !ended.signaled && !ended.timedOut, "\(label): \(ended.stderr)")
            if drainTimeout == "60" {
                #expect(ended.stderr.contains("stopping: finishing 1 running jobs"), "\(label): \(ended.stderr)")
            } else {
                #expect(Date().timeIntervalSince(started) < 10, "\(label): the timeout bounds the drain")
                #expect(
                    ended.stderr.contains("drain timeout: handing back 1 running jobs"), "\(label): \(ended.stderr)")
                // The job went back to the queue; another worker (not persistent: it ends with the run) finishes it.
                let helper = try Background([
                    "worker", "--connect", endpoint, "--concurrency", "1", "--heartbeat", "0.5",
                ])
                _ = helper.wait(seconds: 120)
            }
            let result = coordinator.wait(seconds: 120)
            #expect(result.status == 0, "\(label): \(result.stdout)\n\(result.stderr)")
            #expect(
                result.stdout.contains("1 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed"),
                "\(label): \(result.stdout)")
            let entry = try #require(tree.entries.first)
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target, "\(label)")
            #expect(hiddenFiles(under: out.path).isEmpty, "\(label): \(hiddenFiles(under: out.path))")
        }
    }
}
