import DriftAudio
import DriftCore
import DriftFixtures
import DriftJournal
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
        try expectRepaired(tree, rows: rows, out: out.path, originals: before)
        // The script removed its namespaces.
        #expect(try runTool("/bin/sh", ["-c", "ip netns list | grep -cE '^dfx[0-9]+-(c|w1|w2)( |$)' || true"]) == "0")
    }

    @Test(
        "a partition that heals: a worker held at its rename and cut off past its lease; its job published by the other worker; back, its output is not renamed over the published one, its late result is discarded in one line, the journal holds each job once, and it takes new jobs",
        .enabled(if: networkNamespacesAvailable, "network namespaces are not permitted here (needs root)"))
    func partitionHeals() throws {
        let tree = try RepairTree(drifted: 24, frames: 480_000, channels: 2, folders: 3)
        let before = tree.fingerprints()
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let state = TemporaryFolder("driftfix-journal")
        let journalPath = state.file("journal.sqlite")
        let result = try runChild(
            "/bin/bash", [repository + "/scripts/multihost.sh", tree.root.path, out.path, report.path],
            environment: ["DRIFTFIX": driftfixPath(), "SCENARIO": "heal", "JOURNAL": journalPath], seconds: 600)
        let (output, errors) = (result.stdout, result.stderr)
        #expect(result.status == 0, "\(output)\n\(errors)")
        #expect(errors.contains("w1's lease given up and its job published by another worker"), "\(errors)")
        #expect(errors.contains("w1 running again and its link back up"), "\(errors)")
        #expect(!errors.contains("w1's temporary file stayed"), "\(errors)")
        // w1's fence refused the rename: it had not heard the coordinator past a lease.
        #expect(errors.contains("verified but not published: the coordinator at tcp://"), "\(errors)")
        // The late result: recognised by its lease and discarded, said once.
        let late = errors.split(separator: "\n").filter { $0.contains("late result for job ") }
        #expect(late.count == 1, "\(late)")
        #expect(late.first?.contains("from w1 discarded: it held lease 1, lease 2 was given since") == true, "\(late)")
        #expect(output.contains("24 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed, 0 unfinished"), "\(output)")

        let rows = try reportRows(report.path)
        #expect(rows.count == 24)
        #expect(
            rows.values.contains { $0["worker"] as? String == "w2" && ($0["attempts"] as? Int ?? 0) == 2 },
            "the held job was leased again and published by w2")
        // w1 was held at its first job, so every job it finished came after the partition healed.
        #expect(rows.values.contains { $0["worker"] as? String == "w1" }, "w1 took new jobs once back")
        try expectRepaired(tree, rows: rows, out: out.path, originals: before)

        // The journal: each job once, done; each output the file on disk (size and time to the ns), so nothing was
        // renamed over what the journal recorded.
        let journal = try Journal(path: journalPath, readOnly: true)
        let states = try journal.jobStates(run: 1).values
        #expect(states.count == 24 && states.allSatisfy { $0.state == .done }, "\(states.map(\.state))")
        #expect(Set(states.map(\.output)).count == 24)
        let recorded = try journal.outputs()
        for entry in tree.entries {
            let path = tree.output(entry, in: out.path)
            let record = recorded.values.first { $0.output == path }
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(record?.outputSize == Int64(info.st_size), "\(path)")
            #expect(
                record?.outputModified == Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                "\(path): the file on disk is the one the journal recorded")
        }
        #expect(try runTool("/bin/sh", ["-c", "ip netns list | grep -cE '^dfx[0-9]+-(c|w1|w2)( |$)' || true"]) == "0")
    }

    /// Every pair repaired, exact and clean against the ideal; nothing hidden left in `out`; the originals untouched.
    private func expectRepaired(
        _ tree: RepairTree, rows: [String: [String: Any]], out: String, originals: [String: UInt64]
    ) throws {
        for entry in tree.entries {
            let name = (entry.recording as NSString).lastPathComponent
            #expect(rows[name]?["outcome"] as? String == "repaired", "\(name)")
            let (samples, _, frames) = try readAll(tree.output(entry, in: out))
            #expect(frames == entry.target, "\(name)")
            let snr = SignalMeasure.snr(
                actual: samples, ideal: entry.signal.ideal(target: entry.target, start: 0, count: Int(entry.target)))
            #expect(snr > 100, "\(name): SNR \(snr) dB")
        }
        #expect(hiddenFiles(under: out).isEmpty, "no temporary files left: \(hiddenFiles(under: out))")
        #expect(tree.fingerprints() == originals, "originals unchanged")
    }
}
