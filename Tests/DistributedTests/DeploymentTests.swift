import Foundation
import Testing
import TestSupport

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
private let compose = ["/usr/bin/docker-compose"].first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite("Deployment files", .serialized)
struct DeploymentTests {
    @Test("docker-compose.yml is valid (docker-compose config -q, no engine needed)", .enabled(if: compose != nil, "docker-compose not installed"))
    func composeFile() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("media"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(compose))
        process.arguments = ["-f", root + "/docker-compose.yml", "config", "-q"]
        var environment = ProcessInfo.processInfo.environment
        environment["MEDIA"] = folder.file("media")
        environment["OUT"] = folder.file("out")
        process.environment = environment
        let pipe = Pipe()
        process.standardError = pipe
        try process.run()
        let errors = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors)")
    }

    @Test("scripts/cluster.sh: a coordinator on loopback TCP and two workers repair a tree")
    func cluster() throws {
        let tree = try RepairTree(drifted: 5)
        let out = TemporaryFolder("driftfix-out")
        let port = 20_000 + Int(getpid() % 20_000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root + "/scripts/cluster.sh", tree.root.path, out.path, "2", "\(port)"]
        var environment = ProcessInfo.processInfo.environment
        environment["DRIFTFIX_BIN"] = driftfixPath()
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        #expect(waitUntil(seconds: 120) { !process.isRunning }, "cluster.sh did not finish")
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for entry in tree.entries {
            #expect(FileManager.default.fileExists(atPath: tree.output(entry, in: out.path)))
        }
        #expect(FileManager.default.fileExists(atPath: out.file("_report/report.json")))
    }
}
