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
        let result = try runChild(try #require(compose), ["-f", root + "/docker-compose.yml", "config", "-q"],
                                  environment: ["MEDIA": folder.file("media"), "OUT": folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("scripts/cluster.sh: a coordinator on loopback TCP and two workers repair a tree")
    func cluster() throws {
        let tree = try RepairTree(drifted: 5)
        let out = TemporaryFolder("driftfix-out")
        let port = 20_000 + Int(getpid() % 20_000)
        let result = try runChild("/bin/bash", [root + "/scripts/cluster.sh", tree.root.path, out.path, "2", "\(port)"],
                                  environment: ["DRIFTFIX_BIN": driftfixPath()], seconds: 240)
        #expect(result.status == 0 && !result.timedOut, "\(result.stderr)")
        for entry in tree.entries {
            #expect(FileManager.default.fileExists(atPath: tree.output(entry, in: out.path)))
        }
        #expect(FileManager.default.fileExists(atPath: out.file("_report/report.json")))
    }
}
