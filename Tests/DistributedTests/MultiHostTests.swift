import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    .standardized.path

/// Whether this process may create network namespaces (root with CAP_SYS_ADMIN; CI here can).
let networkNamespacesAvailable: Bool = {
    guard getuid() == 0 else { return false }
    let name = "dfx-probe-\(getpid())"
    guard run("/sbin/ip", ["netns", "add", name]) == 0 || run("/usr/sbin/ip", ["netns", "add", name]) == 0 else {
        return false
    }
    _ = run("/sbin/ip", ["netns", "del", name]) == 0 || run("/usr/sbin/ip", ["netns", "del", name]) == 0
    return true
}()

@Suite("several hosts in network namespaces", .serialized)
struct MultiHostTests {
    @Test(
        "coordinator and two workers in their own namespaces over TCP with CURVE and path maps; one worker's link cut mid-job: every file repaired exactly once",
        .enabled(if: networkNamespacesAvailable, "network namespaces are not permitted here (needs root)"))
    func multihost() throws {
        let tree = try RepairTree(drifted: 10, frames: 480_000, channels: 2, folders: 2)
        let before = tree.fingerprints()
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let result = try runChild(
            "/bin/bash", [repository + "/scripts/multihost.sh", tree.root.path, out.path, report.path],
            environment: ["DRIFTFIX": driftfixPath()], seconds: 600)
        let (output, errors) = (result.stdout, result.stderr)
        #expect(result.status == 0, "\(output)\n\(errors)")
        #expect(errors.contains("cut w1's link while it was writing"), "\(errors)")
        #expect(errors.contains("worker w1 lost; 1 jobs back in the queue"), "the coordinator noticed: \(errors)")
        #expect(output.contains("10 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed, 0 unfinished"), "\(output)")

        let rows = try reportRows(report.path)
        #expect(rows.count == 10)
        #expect(Set(rows.values.compactMap { $0["worker"] as? String }).isSubset(of: ["w1", "w2"]))
        #expect(
            rows.values.contains { $0["worker"] as? String == "w2" && ($0["attempts"] as? Int ?? 0) >= 2 },
            "the job w1 held when its link went down was leased again and finished by w2")
        for entry in tree.entries {
            let name = (entry.recording as NSString).lastPathComponent
            #expect(rows[name]?["outcome"] as? String == "repaired", "\(name)")
            let (samples, _, frames) = try readAll(tree.output(entry, in: out.path))
            #expect(frames == entry.target, "\(name)")
            let snr = SignalMeasure.snr(
                actual: samples, ideal: entry.signal.ideal(target: entry.target, start: 0, count: Int(entry.target)))
            #expect(snr > 100, "\(name): SNR \(snr) dB")
        }
        #expect(hiddenFiles(under: out.path).isEmpty, "no temporary files left: \(hiddenFiles(under: out.path))")
        #expect(tree.fingerprints() == before, "originals unchanged")
        // The script removed its namespaces.
        #expect(try runTool("/bin/sh", ["-c", "ip netns list | grep -c dfx || true"]) == "0")
    }
}
