import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

/// A TCP port unlikely to be taken (the tests bind loopback and wildcard addresses on it).
func freePort() -> Int { freeTCPPort() }

/// A CURVE key pair for each of `names`, made by `driftfix keygen`, and an allowlist folder holding the public keys of
/// `allowed`.
private func curveKeys(_ names: [String], allowing allowed: [String]) throws -> (keys: TemporaryFolder, allow: String) {
    let keys = TemporaryFolder("driftfix-keys")
    let allow = keys.file("allow")
    try FileManager.default.createDirectory(atPath: allow, withIntermediateDirectories: true)
    for name in names {
        #expect(try driftfix(["keygen", name, "--out", keys.path]).status == 0)
    }
    for name in allowed {
        try FileManager.default.copyItem(atPath: keys.file("\(name).pub"), toPath: allow + "/\(name).pub")
    }
    return (keys, allow)
}

@Suite("authenticated workers over TCP (CURVE) and the command-line guards", .serialized)
struct SecurityTests {
    @Test("network endpoints without CURVE are refused unless --insecure-plaintext; loopback and ipc stay simple")
    func plaintextGuard() throws {
        let tree = try RepairTree(drifted: 1)
        let out = TemporaryFolder("driftfix-out")
        let wildcard = try driftfix([
            "repair", tree.root.path, "--out", out.path, "--bind", "tcp://0.0.0.0:\(freePort())", "--workers", "0",
        ])
        #expect(wildcard.status == 2)
        #expect(
            wildcard.stderr.contains("is reachable from the network")
                && wildcard.stderr.contains("--insecure-plaintext"), "\(wildcard.stderr)")
        let worker = try driftfix(["worker", "--connect", "tcp://10.11.12.13:5555"])
        #expect(worker.status == 2 && worker.stderr.contains("--server-key"), "\(worker.stderr)")
        // A worker on the network must be told its own roots: the coordinator is not trusted to name them.
        let rootless = try driftfix(["worker", "--connect", "tcp://10.11.12.13:5555", "--insecure-plaintext"])
        #expect(
            rootless.status == 2 && rootless.stderr.contains("give this worker its own --input-root"),
            "\(rootless.stderr)")
        let halfKeys = try driftfix([
            "repair", tree.root.path, "--out", out.path, "--bind", "tcp://0.0.0.0:1", "--curve-secret", "x.key",
        ])
        #expect(halfKeys.status == 2 && halfKeys.stderr.contains("--curve-secret and --allow go together"))
        #expect(out.entries().isEmpty, "nothing was started")

        // Loopback TCP needs no keys.
        let port = freePort()
        let loopback = try remoteCoordinator(tree, out: out, bind: "tcp://127.0.0.1:\(port)", ["--idle-timeout", "20"])
        let local = try Background(["worker", "--connect", "tcp://127.0.0.1:\(port)", "--heartbeat", "0.5"])
        let result = loopback.wait(seconds: 60)
        _ = local.wait(seconds: 10)
        #expect(result.status == 0 && result.stdout.contains("1 repaired"), "\(result.stderr)")
    }

    @Test(
        "keygen: secret 0600 and public 0644, no silent overwrite; a secret others can read is refused by repair and worker"
    )
    func keygen() throws {
        let keys = TemporaryFolder("driftfix-keys")
        let made = try driftfix(["keygen", "coordinator", "--out", keys.path])
        #expect(made.status == 0 && made.stdout.hasPrefix("public key "))
        let again = try driftfix(["keygen", "coordinator", "--out", keys.path])
        #expect(again.status == 1 && again.stderr.contains("already exists (use --force to replace it)"))
        #expect(try driftfix(["keygen", "coordinator", "--out", keys.path, "--force"]).status == 0)
        let permissions =
            try FileManager.default.attributesOfItem(atPath: keys.file("coordinator.key"))[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        chmod(keys.file("coordinator.key"), 0o644)
        let tree = try RepairTree(drifted: 1)
        let out = TemporaryFolder("driftfix-out")
        let refused = try driftfix([
            "repair", tree.root.path, "--out", out.path, "--bind", "tcp://0.0.0.0:\(freePort())", "--workers", "0",
            "--curve-secret", keys.file("coordinator.key"), "--allow", keys.path,
        ])
        #expect(refused.status == 1)
        #expect(
            refused.errorLines.contains {
                $0.contains(keys.file("coordinator.key")) && $0.contains("accessible to others (mode 644)")
            },
            "\(refused.stderr)")
        let worker = try driftfix([
            "worker", "--connect", "tcp://10.0.0.1:1", "--curve-secret", keys.file("coordinator.key"),
            "--server-key", keys.file("coordinator.pub"), "--input-root", tree.root.path, "--output-root", out.path,
        ])
        #expect(worker.status == 1 && worker.stderr.contains("accessible to others"), "\(worker.stderr)")
    }

    @Test(
        "a CURVE run over TCP: an allowed remote worker repairs everything; unknown-key and plaintext workers get nothing; local workers use the coordinator's key"
    )
    func curveRun() throws {
        let tree = try RepairTree(drifted: 8, frames: 96_000, folders: 2)
        let (keys, allow) = try curveKeys(["coordinator", "trusted", "rogue"], allowing: ["trusted"])
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let port = freePort()
        let coordinator = try remoteCoordinator(
            tree, out: out, bind: "tcp://0.0.0.0:\(port)",
            ["--curve-secret", keys.file("coordinator.key"), "--allow", allow, "--report", report.path],
            environment: ["DRIFTFIX_LOG_LEVEL": "info"])
        let rogue = try Background([
            "worker", "--connect", "tcp://127.0.0.1:\(port)", "--identity", "rogue", "--heartbeat", "0.5",
            "--curve-secret", keys.file("rogue.key"), "--server-key", keys.file("coordinator.pub"), "--max-backoff",
            "1",
        ])
        let plaintext = try Background([
            "worker", "--connect", "tcp://127.0.0.1:\(port)", "--identity", "plain", "--heartbeat", "0.5",
            "--max-backoff", "1",
        ])
        // The order the test is about, made to happen: both strangers knock and are refused before a worker that
        // could take every job exists.
        try #require(
            waitUntil(seconds: 90) {
                let said = coordinator.child.errorsSoFar
                return said.contains("is not in the allowlist \(allow)")
                    && said.contains("a peer failed the security handshake")
            }, "the strangers were not refused: \(coordinator.child.errorsSoFar)")
        // The trusted worker takes its keys from its config file (security section) rather than options.
        let config = keys.file("trusted.yaml")
        try "security:\n  secret-key: \(keys.file("trusted.key"))\n  server-key: \(keys.file("coordinator.pub"))\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let trusted = try Background([
            "worker", "--connect", "tcp://127.0.0.1:\(port)", "--identity", "trusted", "--heartbeat", "0.5",
            "--config", config,
        ])
        let result = coordinator.wait(seconds: 120)
        _ = trusted.wait(seconds: 15)
        for stranger in [rogue, plaintext] { kill(stranger.pid, SIGTERM) }
        _ = rogue.wait(seconds: 10)
        _ = plaintext.wait(seconds: 10)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("8 repaired"))
        #expect(
            result.stderr.contains("is not in the allowlist \(allow)"), "the rogue key was refused by the ZAP handler")
        // Which side notices the plaintext client's mismatch first is a race in libzmq: the line says either
        // "no CURVE (a plaintext client)" or that the peer hung up during the handshake.
        #expect(result.stderr.contains("a peer failed the security handshake"), "failed handshakes are reported")
        #expect(!result.stderr.contains("worker rogue joined") && !result.stderr.contains("worker plain joined"))
        let workers = Set(try reportRows(report.path).values.compactMap { $0["worker"] as? String })
        #expect(workers == ["trusted"], "\(workers)")
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }

        // Local workers of a CURVE coordinator connect with its own key pair.
        let second = TemporaryFolder("driftfix-out")
        let local = try driftfix([
            "repair", tree.root.path, "--out", second.path, "--bind", "tcp://0.0.0.0:\(freePort())",
            "--workers", "2", "--curve-secret", keys.file("coordinator.key"), "--allow", allow,
        ])
        #expect(local.status == 0 && local.stdout.contains("8 repaired"), "\(local.stderr)")
    }

    @Test(
        "removing a worker's key from the allowlist mid-run cuts it off: its jobs go to another worker, it is told to stop"
    )
    func revocation() throws {
        let tree = try RepairTree(drifted: 12, frames: 960_000, channels: 2, folders: 2)
        let (keys, allow) = try curveKeys(["coordinator", "first", "second"], allowing: ["first", "second"])
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let port = freePort()
        let coordinator = try remoteCoordinator(
            tree, out: out, bind: "tcp://0.0.0.0:\(port)",
            [
                "--quality", "best", "--curve-secret", keys.file("coordinator.key"), "--allow", allow, "--report",
                report.path,
            ])
        func worker(_ name: String, environment: [String: String] = [:]) throws -> Background {
            try Background(
                [
                    "worker", "--connect", "tcp://127.0.0.1:\(port)", "--identity", name, "--heartbeat", "0.5",
                    "--concurrency", "1",
                    "--curve-secret", keys.file("\(name).key"), "--server-key", keys.file("coordinator.pub"),
                ], environment: environment)
        }
        // The first worker delivers one file, then takes a second over each later rename (a failpoint), so however
        // fast the repairs run, it is mid-night, still talking, when its key is revoked.
        let first = try worker("first", environment: ["DRIFTFIX_FAILPOINT": "commit:2:delay"])
        let outputs = tree.entries.map { tree.output($0, in: out.path) }
        try #require(
            waitUntil(seconds: 60) { outputs.contains { FileManager.default.fileExists(atPath: $0) } },
            "no output appeared")
        try FileManager.default.removeItem(atPath: allow + "/first.pub")
        // The second worker joins once the first has been cut off, so the first cannot have finished everything.
        try #require(
            waitUntil(seconds: 90) { coordinator.child.errorsSoFar.contains("worker first: its key") },
            "the revoked worker was not cut off: \(coordinator.child.errorsSoFar)")
        let second = try worker("second")
        let result = coordinator.wait(seconds: 120)
        let firstExit = first.wait(seconds: 15)
        _ = second.wait(seconds: 15)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stderr.contains("worker first: its key"), "\(result.stderr)")
        #expect(firstExit.status == 0, "the revoked worker was told to stop and exited")
        let rows = try reportRows(report.path)
        let byWorker = Dictionary(grouping: rows.values.compactMap { $0["worker"] as? String }, by: { $0 }).mapValues(
            \.count)
        #expect((byWorker["first"] ?? 0) >= 1 && (byWorker["first"] ?? 0) < 12, "\(byWorker)")
        #expect((byWorker["second"] ?? 0) >= 1 && byWorker.values.reduce(0, +) == 12, "\(byWorker)")
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
    }
}
