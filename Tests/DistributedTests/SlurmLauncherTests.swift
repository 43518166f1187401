import DriftAudio
import DriftFixtures
import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    .standardized.path
private let slurmTools = [
    "/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/scancel",
]
.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
private let runnable = getuid() == 0 && slurmTools

/// Processes whose command line contains `text`.
private func processes(containing text: String) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
        guard pid != getpid(), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else {
            return false
        }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: " ").contains(text)
    }
}

/// The worker process of Slurm task `job`_`task` connecting to `endpoint` (found by the variables Slurm gave it; the
/// endpoint tells it from another test cluster's task of the same number, since every test cluster starts at job 1).
private func workerProcess(job: String, task: Int, endpoint: String) -> Int32? {
    processes(containing: " worker --connect \(endpoint)").first { pid in
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
        let variables = Set(String(decoding: data, as: UTF8.self).split(separator: "\u{0}").map(String.init))
        return variables.contains("SLURM_ARRAY_JOB_ID=\(job)") && variables.contains("SLURM_ARRAY_TASK_ID=\(task)")
    }
}

/// Every file below `folder` whose name says it is a temporary output.
private func temporaryFiles(under folder: String) -> [String] {
    let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    return names.filter { ($0 as NSString).lastPathComponent.hasSuffix(".tmp") }
}

/// The first capture of `pattern` in `text`.
private func capture(_ pattern: String, in text: String) -> String? {
    guard let expression = try? NSRegularExpression(pattern: pattern),
        let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
        let range = Range(match.range(at: 1), in: text)
    else { return nil }
    return String(text[range])
}

/// What the test cluster below `state` says about itself, for a failure's message: every task with its state and
/// why it waits (`%r`), the nodes, the last lines of the daemons' logs and of every task's log. A task that never
/// started or never connected is otherwise a timeout with nothing to read.
private func clusterAccount(_ state: TemporaryFolder) -> String {
    let slurm = ["SLURM_CONF": state.file("slurm.conf")]
    var parts: [String] = []
    let queue = try? runChild(
        "/usr/bin/squeue", ["--noheader", "--array", "--states=all", "--format=%i %T %r %N %M"],
        environment: slurm, seconds: 20)
    parts.append("squeue:\n\(queue?.stdout ?? "?")\(queue?.stderr ?? "")")
    let nodes = try? runChild("/usr/bin/sinfo", ["--Node", "--long"], environment: slurm, seconds: 20)
    parts.append("sinfo:\n\(nodes?.stdout ?? "?")\(nodes?.stderr ?? "")")
    // The controller's log, each node's slurmd log (slurmd.log, or slurmd-nI.log on a cluster of namespaced nodes)
    // and each task's.
    let daemons = ((try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []).filter {
        $0.hasPrefix("slurm") && $0.hasSuffix(".log")
    }
    let logs = ((try? FileManager.default.contentsOfDirectory(atPath: state.file("logs"))) ?? []).sorted()
    for name in daemons.sorted() + logs.map({ "logs/" + $0 }) {
        let text = (try? String(contentsOfFile: state.file(name), encoding: .utf8)) ?? "(none)"
        parts.append("\(name), last lines:\n" + text.split(separator: "\n").suffix(15).joined(separator: "\n"))
    }
    return parts.joined(separator: "\n")
}

@Suite("Slurm launcher on a real cluster", .serialized)
struct SlurmLauncherTests {
    @Test(
        "a night on Slurm: two worker tasks, one killed like a failed node and one cancelled; every output exact, the killed task's job finished elsewhere, both tasks replaced, nothing left in squeue, no temporary file, no process, daemons stopped",
        .enabled(
            if: runnable,
            "needs root and apt's slurm-wlm and munge (scripts/install-deps.sh installs them): the test runs munged, slurmctld and slurmd"
        ))
    func nightOnSlurm() throws {
        // When each step was reached, for a failure's message: in a full run the machine is shared with every other
        // suite, and a wait that ran out says more beside how long the steps before it took.
        let began = Date()
        var steps: [String] = []
        func reached(_ step: String) { steps.append("\(step) at \(Int(Date().timeIntervalSince(began))) s") }
        let state = TemporaryFolder("driftfix-slurm")
        let cluster = try runChild("/bin/bash", [root + "/scripts/slurm-cluster.sh", "start", state.path])
        try #require(cluster.status == 0, "the test cluster did not start: \(cluster.stderr)")
        reached("cluster up")
        var stopped = false
        let stop = { _ = try? runChild("/bin/bash", [root + "/scripts/slurm-cluster.sh", "stop", state.path]) }
        defer { if !stopped { stop() } }
        let slurm = ["SLURM_CONF": state.file("slurm.conf")]
        let held = slurm.merging(["DRIFTFIX_FAILPOINT": "commit:1:delay"]) { $1 }

        // Jobs of a second and more each (40 s stereo at best quality, and each commit held a second by a failpoint
        // the tasks inherit with the environment, whatever the kernel's speed), so the tasks are busy when ended.
        let tree = try RepairTree(drifted: 20, frames: 48_000 * 40, channels: 2, folders: 4, tones: 3)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let config = state.file("driftfix.yaml")
        try "slurm:\n  log-folder: \(state.path)/logs\n  max-resubmits: 4\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: state.file("logs"), withIntermediateDirectories: true)
        reached("media made")
        let endpoint = "tcp://127.0.0.1:\(freeTCPPort())"
        let coordinator = try Background(
            [
                "repair", tree.root.path, "--out", out.path, "--launcher", "slurm", "--workers", "2",
                "--bind", endpoint, "--config", config, "--quality", "best", "--heartbeat", "2",
                "--report", report.path, "--slurm-arg=--time=10",
            ], environment: held)
        defer { if coordinator.isRunning { kill(coordinator.pid, SIGKILL) } }
        let log = { coordinator.child.errorsSoFar }
        // The waits are long: they cost nothing when the cluster is quick, and a full run of the suite shares two
        // cores with every other test (a task's start has taken over a minute there).
        let stuck = { "\(steps.joined(separator: ", ")); log:\n\(log())\n\(clusterAccount(state))" }
        #expect(waitUntil(seconds: 120) { log().contains("submitted 2 worker tasks to Slurm as job ") }, "\(stuck())")
        let job = try #require(capture("to Slurm as job ([0-9]+)", in: log()))
        reached("tasks submitted")

        // Task 1 dies as on a failed node or under the OOM killer: its worker is killed outright and cannot hand
        // anything back; the heartbeat (2 s, given up after several) is slower than the pool's look at the queue.
        #expect(waitUntil(seconds: 240) { log().contains(", slurm-\(job)_1@") }, "\(stuck())")
        reached("task 1 awaited")
        let victim = try #require(
            workerProcess(job: job, task: 1, endpoint: endpoint), "the worker of task \(job)_1: \(stuck())")
        kill(victim, SIGKILL)
        reached("task 1 killed")
        #expect(waitUntil(seconds: 120) { log().contains("_1 in its place") }, "task 1 not replaced; \(stuck())")

        // Task 0 is cancelled as an operator would: SIGTERM, its worker drains.
        #expect(waitUntil(seconds: 120) { log().contains(", slurm-\(job)_0@") }, "\(stuck())")
        reached("task 0 awaited")
        let cancelled = try runChild("/usr/bin/scancel", ["\(job)_0"], environment: slurm)
        #expect(cancelled.status == 0, "\(cancelled.stderr)")

        let result = coordinator.wait(seconds: 300)
        reached("night ended")
        print("SlurmLauncherTests: \(steps.joined(separator: ", "))")
        #expect(result.status == 0, "\(result.stderr)\n\(steps.joined(separator: ", "))\n\(clusterAccount(state))")
        #expect(
            result.stderr.contains("Slurm worker task \(job)_0 on ") && result.stderr.contains("cancelled"),
            "\(result.stderr)")
        #expect(
            capture("submitted ([0-9]+)_0 in its place", in: result.stderr) != nil, "task 0 replaced: \(result.stderr)")
        // The killed worker's lease went back as soon as the pool saw its task end, not after a heartbeat timeout.
        #expect(
            result.stderr.contains("requeued: worker slurm-\(job)_1@")
                && result.stderr.contains("died (Slurm task \(job)_1 failed"),
            "\(result.stderr)")

        // Every output exact; the job the killed task held was finished by another worker.
        let rows = try reportRows(report.path)
        #expect(rows.count == 20)
        for entry in tree.entries {
            let name = (entry.recording as NSString).lastPathComponent
            #expect(rows[name]?["outcome"] as? String == "repaired", "\(name): \(rows[name] ?? [:])")
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target, "\(name)")
        }
        let retried = rows.values.filter { ($0["attempts"] as? Int ?? 1) > 1 }
        #expect(
            !retried.isEmpty && retried.allSatisfy { !(($0["worker"] as? String) ?? "").hasPrefix("slurm-\(job)_1@") },
            "the killed task's job finished elsewhere: \(retried.map { $0["worker"] ?? "" })")
        #expect(
            rows.values.allSatisfy { (($0["worker"] as? String) ?? "").hasPrefix("slurm-") },
            "every worker named by its Slurm job and node")

        // Nothing left: no job queued or running, no temporary file, no worker process.
        let queue = try runChild("/usr/bin/squeue", ["--noheader"], environment: slurm)
        #expect(
            queue.status == 0 && queue.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
            "squeue: \(queue.stdout)")
        #expect(temporaryFiles(under: out.path).isEmpty, "\(temporaryFiles(under: out.path))")
        #expect(
            waitUntil(seconds: 10) { processes(containing: endpoint).isEmpty },
            "workers left: \(processes(containing: endpoint))")
        // Every task wrote its output where slurm.log-folder says (the first two and their replacements).
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: state.file("logs"))) ?? []
        #expect(logs.filter { $0.hasSuffix(".log") }.count >= 4, "task logs: \(logs)")

        stop()
        stopped = true
        #expect(processes(containing: state.path).isEmpty, "daemons left: \(processes(containing: state.path))")
    }
}

/// Node names in the log's `slurm-JOB_TASK@NODE` worker names.
private func nodes(in text: String) -> Set<String> {
    guard let expression = try? NSRegularExpression(pattern: "slurm-[0-9]+_[0-9]+@(n[0-9]+)") else { return [] }
    return Set(
        expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        })
}

@Suite("Slurm across nodes: namespaced machines over a bridge, CURVE, a node lost mid-night", .serialized)
struct SlurmNodesTests {
    @Test(
        "repair --launcher slurm --workers 4 on 3 nodes, each its own network and mount namespace reaching the files through its view and the path map, CURVE over the bridge; a node dies mid-night (link down, slurmd and its tasks killed): Slurm marks it down, its leases go back, the night finishes on the others; every output exact, nothing in squeue, no temporary file",
        .enabled(
            if: runnable && networkNamespacesAvailable,
            "needs root, network namespaces and apt's slurm-wlm and munge (scripts/install-deps.sh installs them)"))
    func nightAcrossNodes() throws {
        let state = TemporaryFolder("driftfix-slurm")
        let tree = try RepairTree(drifted: 24, frames: 48_000 * 40, channels: 2, folders: 4, tones: 3)
        let before = tree.fingerprints()
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        // Each node sees the media and the output only at its own mount points (the coordinator's paths are empty
        // there), as a machine mounting the shared storage elsewhere does.
        let script = root + "/scripts/slurm-cluster.sh"
        let cluster = try runChild(
            "/bin/bash",
            [
                script, "start", state.path, "--nodes", "3", "--view", "\(tree.root.path)=view/media",
                "--view", "\(out.path)=view/out", "--hide", tree.root.path, "--hide", out.path,
            ])
        var stopped = false
        let stop = { _ = try? runChild("/bin/bash", [script, "stop", state.path]) }
        defer { if !stopped { stop() } }
        try #require(cluster.status == 0, "the test cluster did not start: \(cluster.stderr)")
        let controller = try #require(capture("CONTROLLER ([0-9.]+)", in: cluster.stdout), "\(cluster.stdout)")
        let slurm = ["SLURM_CONF": state.file("slurm.conf")]

        let keys = state.file("keys")
        try FileManager.default.createDirectory(atPath: keys + "/allow", withIntermediateDirectories: true)
        let keygen = try runChild(driftfixPath(), ["keygen", "coordinator", "--out", keys])
        try #require(keygen.status == 0, "\(keygen.stderr)")
        let config = state.file("driftfix.yaml")
        try """
        slurm:
          log-folder: \(state.path)/logs
          max-resubmits: 4
        worker:
          path-map:
            - from: \(tree.root.path)
              to: \(state.path)/view/media
            - from: \(out.path)
              to: \(state.path)/view/out

        """.write(toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: state.file("logs"), withIntermediateDirectories: true)
        let endpoint = "tcp://\(controller):\(freeTCPPort())"
        let coordinator = try Background(
            [
                "repair", tree.root.path, "--out", out.path, "--launcher", "slurm", "--workers", "4",
                "--bind", endpoint, "--curve-secret", keys + "/coordinator.key", "--allow", keys + "/allow",
                "--config", config, "--quality", "best", "--heartbeat", "1", "--report", report.path,
                "--slurm-arg=--time=10",
            ],
            // Every rename waits a second (a failpoint the workers inherit through sbatch's --export=ALL): however
            // fast the repairs run, the night lasts past the node's death and the node holds jobs when it dies.
            environment: slurm.merging(["DRIFTFIX_FAILPOINT": "commit:1:delay"]) { $1 })
        defer { if coordinator.isRunning { kill(coordinator.pid, SIGKILL) } }
        let log = { coordinator.child.errorsSoFar }

        // Workers joined from at least two nodes; then the node of a worker that has taken jobs dies. The waits are
        // long for a full run on two shared cores; one that runs out says what the cluster said.
        let stuck = { "log:\n\(log())\n\(clusterAccount(state))" }
        #expect(waitUntil(seconds: 240) { nodes(in: log()).count >= 2 }, "\(stuck())")
        #expect(waitUntil(seconds: 60) { log().contains("CURVE on tcp://") }, "\(stuck())")
        let victim = try #require(nodes(in: log()).sorted().first, "\(log())")
        let failed = try runChild("/bin/bash", [script, "fail", state.path, victim])
        #expect(failed.status == 0, "\(failed.stderr)")
        // Slurm marks it down (SlurmdTimeout 10 s), as a lost machine is.
        #expect(
            waitUntil(seconds: 60) {
                let info = try? runChild(
                    "/usr/bin/sinfo", ["--noheader", "--nodes=\(victim)", "--format=%t"], environment: slurm)
                return info?.stdout.contains("down") == true
            }, "\(victim) never marked down")

        let result = coordinator.wait(seconds: 300)
        #expect(result.status == 0, "\(result.stderr)\n\(clusterAccount(state))")
        // Its workers' leases went back (they fell silent with the link).
        #expect(
            capture("worker (slurm-[0-9]+_[0-9]+@\(victim)) lost; [0-9]+ jobs? back in the queue", in: result.stderr)
                != nil, "\(result.stderr)")
        // Its task is replaced when the pool gives up on it before the night ends; a night that the other nodes
        // finish first needs no replacement. Which happened depends on the machine's speed, so both pass, and the
        // test says which; either way nothing is left in the queue (below).
        if let replacement = capture(
            "task [0-9]+_[0-9]+ on \(victim) [^;]+; submitted ([0-9]+_[0-9]+) in its place", in: result.stderr)
        {
            print("SlurmLauncherTests: the lost node's task was replaced by \(replacement)")
        } else {
            print("SlurmLauncherTests: the night finished before the lost node's task was replaced")
        }

        let rows = try reportRows(report.path)
        #expect(rows.count == 24)
        // Which nodes published depends on how fast the repairs ran before the node died (workers of two nodes or
        // more joined, above): said, not required.
        let workers = rows.values.compactMap { $0["worker"] as? String }
        print("SlurmLauncherTests: outputs published from \(nodes(in: workers.joined(separator: " ")).sorted())")
        // The jobs the lost node held were finished on another node.
        let retried = rows.values.filter { ($0["attempts"] as? Int ?? 1) > 1 }
        #expect(
            !retried.isEmpty && retried.allSatisfy { !(($0["worker"] as? String) ?? "").hasSuffix("@\(victim)") },
            "\(retried.map { $0["worker"] ?? "" })")
        for entry in tree.entries {
            let name = (entry.recording as NSString).lastPathComponent
            #expect(rows[name]?["outcome"] as? String == "repaired", "\(name): \(rows[name] ?? [:])")
            let (samples, _, frames) = try readAll(tree.output(entry, in: out.path))
            #expect(frames == entry.target, "\(name)")
            let snr = SignalMeasure.snr(
                actual: samples, ideal: entry.signal.ideal(target: entry.target, start: 0, count: Int(entry.target)))
            #expect(snr > 100, "\(name): SNR \(snr) dB")
        }
        #expect(tree.fingerprints() == before, "originals unchanged")
        let queue = try runChild("/usr/bin/squeue", ["--noheader"], environment: slurm)
        #expect(
            queue.status == 0 && queue.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
            "squeue: \(queue.stdout)")
        // No temporary file on any node's view (the same storage, seen from the coordinator).
        #expect(temporaryFiles(under: out.path).isEmpty, "\(temporaryFiles(under: out.path))")

        stop()
        stopped = true
        #expect(processes(containing: state.path).isEmpty, "daemons left: \(processes(containing: state.path))")
        let links = try runChild("/bin/sh", ["-c", "ip -o link; ip netns list"])
        let tag = try #require(capture("NODE n1 [0-9.]+ ([A-Za-z0-9]+)-n1", in: cluster.stdout), "\(cluster.stdout)")
        #expect(!links.stdout.contains(tag), "namespaces or links left: \(links.stdout)")
    }
}

@Suite("Slurm launcher: a busy queue is no idle night", .serialized)
struct SlurmQueueTests {
    @Test(
        "worker tasks held in the queue (--begin=now+8) longer than --idle-timeout 3: the night waits for them, says why they wait (slurm.start-grace 2: Slurm's reason, BeginTime) and completes, nothing left behind",
        .enabled(
            if: runnable,
            "needs root and apt's slurm-wlm and munge (scripts/install-deps.sh installs them): the test runs munged, slurmctld and slurmd"
        ))
    func queuedWorkersAreNotIdle() throws {
        let state = TemporaryFolder("driftfix-slurm")
        let cluster = try runChild("/bin/bash", [root + "/scripts/slurm-cluster.sh", "start", state.path])
        try #require(cluster.status == 0, "the test cluster did not start: \(cluster.stderr)")
        defer { _ = try? runChild("/bin/bash", [root + "/scripts/slurm-cluster.sh", "stop", state.path]) }
        let slurm = ["SLURM_CONF": state.file("slurm.conf")]
        let tree = try RepairTree(drifted: 4, frames: 48_000, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let endpoint = "tcp://127.0.0.1:\(freeTCPPort())"
        // A grace shorter than the hold: the log says why the tasks are late, as Slurm gives it.
        let config = state.file("driftfix.yaml")
        try "slurm:\n  start-grace: 2\n".write(toFile: config, atomically: true, encoding: .utf8)
        let started = Date()
        let result = try runChild(
            driftfixPath(),
            [
                "repair", tree.root.path, "--out", out.path, "--launcher", "slurm", "--workers", "2",
                "--bind", endpoint, "--idle-timeout", "3", "--slurm-arg=--begin=now+8", "--config", config,
            ],
            environment: slurm)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) > 6, "the tasks were held in the queue")
        #expect(result.stderr.contains("waiting in the Slurm queue"), "\(result.stderr)")
        for task in 0..<2 {
            #expect(
                capture(
                    "Slurm worker task ([0-9]+)_\(task) has waited [0-9]+ s in the queue \\(Slurm's reason: BeginTime\\)",
                    in: result.stderr) != nil, "\(result.stderr)")
        }
        #expect(!result.stderr.contains("has not connected"), "\(result.stderr)")
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
        let queue = try runChild("/usr/bin/squeue", ["--noheader"], environment: slurm)
        #expect(queue.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "squeue: \(queue.stdout)")
    }
}
