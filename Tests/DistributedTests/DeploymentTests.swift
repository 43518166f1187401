import DriftAudio
import DriftFixtures
import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    .standardized.path
private let compose = ["/usr/bin/docker-compose"].first { FileManager.default.isExecutableFile(atPath: $0) }
private let systemdAnalyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}
private let units = root + "/deploy/systemd"

/// A unit's `ExecStart=` as systemd runs it: `${VAR}` one word, `$VAR` split on white space, `%H`/`%i` specifiers,
/// /usr/bin/driftfix the binary under test.
private func execStart(_ unit: String, environment: [String: String], instance: String = "") throws -> [String] {
    let text = try String(contentsOfFile: units + "/" + unit, encoding: .utf8)
    let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }).dropFirst(
        "ExecStart=".count)
    var words: [String] = []
    for word in line.split(separator: " ").map(String.init) {
        if word.hasPrefix("${") && word.hasSuffix("}") {
            words.append(environment[String(word.dropFirst(2).dropLast())] ?? "")
        } else if word.hasPrefix("$") {
            words += (environment[String(word.dropFirst())] ?? "").split(separator: " ").map(String.init)
        } else {
            words.append(
                word.replacingOccurrences(of: "%H", with: ProcessInfo.processInfo.hostName).replacingOccurrences(
                    of: "%i", with: instance))
        }
    }
    return words
}

/// The settings of an env file (KEY=VALUE lines), with `overrides`.
private func environmentFile(_ name: String, _ overrides: [String: String]) throws -> [String: String] {
    var values: [String: String] = [:]
    for line in try String(contentsOfFile: units + "/" + name, encoding: .utf8).split(separator: "\n")
    where !line.hasPrefix("#") {
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { values[parts[0]] = parts[1] }
    }
    return values.merging(overrides) { _, new in new }
}

@Suite("Deployment files", .serialized)
struct DeploymentTests {
    @Test(
        "docker-compose.yml is valid (docker-compose config -q, no engine needed)",
        .enabled(if: compose != nil, "docker-compose not installed"))
    func composeFile() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("media"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let result = try runChild(
            try #require(compose), ["-f", root + "/docker-compose.yml", "config", "-q"],
            environment: ["MEDIA": folder.file("media"), "OUT": folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(
        "the systemd units pass systemd-analyze verify, warnings included",
        .enabled(if: systemdAnalyze != nil, "systemd-analyze not installed"))
    func systemdUnits() throws {
        let folder = TemporaryFolder("driftfix-units")
        var names: [String] = []
        for name in ["driftfix-worker@.service", "driftfix-night.service", "driftfix-night.timer"] {
            // The binary the units name is not installed here: the one under test stands in for it.
            let text = try String(contentsOfFile: units + "/" + name, encoding: .utf8).replacingOccurrences(
                of: "/usr/bin/driftfix", with: driftfixPath())
            let target = name.replacingOccurrences(of: "@.", with: "@night1.")
            try text.write(toFile: folder.file(target), atomically: true, encoding: .utf8)
            names.append(folder.file(target))
        }
        try String(contentsOfFile: folder.file("driftfix-worker@night1.service"), encoding: .utf8)
            .write(toFile: folder.file("driftfix-worker@.service"), atomically: true, encoding: .utf8)
        let result = try runChild(try #require(systemdAnalyze), ["verify", "--man=no"] + names)
        #expect(
            result.status == 0 && result.stderr.isEmpty && result.stdout.isEmpty, "\(result.stdout)\(result.stderr)")
    }

    @Test(
        "the units' command lines, as systemd expands them from their env files, run a night with a persistent worker that drains on SIGTERM"
    )
    func unitCommandLines() throws {
        let tree = try RepairTree(drifted: 4)
        let out = TemporaryFolder("driftfix-out")
        let endpoint = uniqueEndpoint()
        let night = try environmentFile(
            "night.env",
            [
                "DRIFTFIX_ROOTS": tree.root.path, "DRIFTFIX_OUT": out.path,
                "DRIFTFIX_REPAIR_ARGS": "--workers 0 --bind \(endpoint) --report \(out.path)/_report --heartbeat 0.5",
            ])
        var nightCommand = try execStart("driftfix-night.service", environment: night)
        // The packaged config is /etc/driftfix/driftfix.yaml; here, the repository's.
        nightCommand = nightCommand.map { $0 == "/etc/driftfix/driftfix.yaml" ? root + "/config/driftfix.yaml" : $0 }
        let worker = try environmentFile(
            "worker.env", ["DRIFTFIX_CONNECT": endpoint, "DRIFTFIX_WORKER_ARGS": "--concurrency 1 --heartbeat 0.5"])
        let workerCommand = try execStart("driftfix-worker@.service", environment: worker, instance: "a")
        #expect(nightCommand.first == "/usr/bin/driftfix" && workerCommand.first == "/usr/bin/driftfix")
        #expect(workerCommand.contains("--persistent"))
        let persistent = try Background(Array(workerCommand.dropFirst()))
        defer { kill(persistent.pid, SIGKILL) }
        let result = try Background(Array(nightCommand.dropFirst())).wait(seconds: 120)
        #expect(result.status == 0, "\(nightCommand)\n\(result.stderr)")
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
        #expect(persistent.isRunning, "the worker waits for the next night")
        kill(persistent.pid, SIGTERM)
        let ended = persistent.wait(seconds: 30)
        #expect(ended.status == 0 && !ended.signaled, "\(ended.stderr)")
    }

    @Test("driftfix --version names the release and the source revision it was built from")
    func version() throws {
        let result = try runChild(driftfixPath(), ["--version"])
        let line = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            line.range(of: #"^\d+\.\d+\.\d+ \(revision [0-9a-z.-]+\)$"#, options: .regularExpression) != nil, "\(line)")
        if FileManager.default.fileExists(atPath: root + "/.git") {
            // A checkout owned by another user (a CI runner's) is still this one: git is told so, and must answer.
            let git = try runChild(
                "/usr/bin/git", ["-c", "safe.directory=*", "-C", root, "rev-parse", "--short=12", "HEAD"])
            let head = git.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(git.status == 0 && head.count == 12, "git rev-parse: \(git.stderr)")
            #expect(line.contains(head), "\(line) vs HEAD \(head)")
        }
    }

    @Test("scripts/cluster.sh: a coordinator on loopback TCP and two workers repair a tree")
    func cluster() throws {
        let tree = try RepairTree(drifted: 5)
        let out = TemporaryFolder("driftfix-out")
        let port = 20_000 + Int(getpid() % 20_000)
        let result = try runChild(
            "/bin/bash", [root + "/scripts/cluster.sh", tree.root.path, out.path, "2", "\(port)"],
            environment: ["DRIFTFIX_BIN": driftfixPath()], seconds: 240)
        #expect(result.status == 0 && !result.timedOut, "\(result.stderr)")
        for entry in tree.entries {
            #expect(FileManager.default.fileExists(atPath: tree.output(entry, in: out.path)))
        }
        #expect(FileManager.default.fileExists(atPath: out.file("_report/report.json")))
    }
}
