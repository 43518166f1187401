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

/// A night in scripts/multihost.sh: `drifted` stereo pairs of 10 s in `folders` folders, repaired by a coordinator
/// and two workers, each in its own network namespace.
private struct MultihostNight {
    let tree: RepairTree
    /// The recordings' fingerprints before the night.
    let before: [String: UInt64]
    let out = TemporaryFolder("driftfix-out")
    let report = TemporaryFolder("driftfix-report")
    let result: CommandResult

    /// Runs the script; `environment` adds to DRIFTFIX.
    init(drifted: Int, folders: Int, environment: [String: String] = [:]) throws {
        tree = try RepairTree(drifted: drifted, frames: 480_000, channels: 2, folders: folders)
        before = tree.fingerprints()
        result = try runChild(
            "/bin/bash", [repository + "/scripts/multihost.sh", tree.root.path, out.path, report.path],
            environment: ["DRIFTFIX": driftfixPath()].merging(environment) { $1 }, seconds: 600)
    }
}

@Suite("several hosts in network namespaces", .serialized)
struct MultiHostTests {
    @Test(
        "coordinator and two workers in their own namespaces over TCP with CURVE and path maps; one worker's link cut mid-job: every file repaired exactly once",
        .enabled(if: networkNamespacesAvailable, "network namespaces are not permitted here (needs root)"))
    func multihost() throws {
        let night = try MultihostNight(drifted: 10, folders: 2)
        let (output, errors) = (night.result.stdout, night.result.stderr)
        #expect(night.result.status == 0, "\(output)\n\(errors)")
        #expect(errors.contains("cut w1's link while it was writing"), "\(errors)")
        #expect(errors.contains("worker w1 lost; 1 jobs back in the queue"), "the coordinator noticed: \(errors)")
        #expect(output.contains("10 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed, 0 unfinished"), "\(output)")

        let rows = try reportRows(night.report.path)
        #expect(rows.count == 10)
        #expect(Set(rows.values.compactMap { $0["worker"] as? String }).isSubset(of: ["w1", "w2"]))
        #expect(
            rows.values.contains { $0["worker"] as? String == "w2" && ($0["attempts"] as? Int ?? 0) >= 2 },
            "the job w1 held when its link went down was leased again and finished by w2")
        try expectRepaired(night, rows: rows)
        // The script removed its namespaces.
        #expect(try runTool("/bin/sh", ["-c", "ip netns list | grep -cE '^dfx[0-9]+-(c|w1|w2)( |$)' || true"]) == "0")
    }

    @Test(
        "a partition that heals: a worker held at its rename and cut off past its lease; its job published by the other worker; back, its output is not renamed over the published one, its late result is discarded in one line, the journal holds each job once, and it takes new jobs",
        .enabled(if: networkNamespacesAvailable, "network namespaces are not permitted here (needs root)"))
    func partitionHeals() throws {
        let state = TemporaryFolder("driftfix-journal")
        let journalPath = state.file("journal.sqlite")
        let night = try MultihostNight(
            drifted: 24, folders: 3, environment: ["SCENARIO": "heal", "JOURNAL": journalPath])
        let (output, errors) = (night.result.stdout, night.result.stderr)
        #expect(night.result.status == 0, "\(output)\n\(errors)")
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

        let rows = try reportRows(night.report.path)
        #expect(rows.count == 24)
        #expect(
            rows.values.contains { $0["worker"] as? String == "w2" && ($0["attempts"] as? Int ?? 0) == 2 },
            "the held job was leased again and published by w2")
        // w1 was held at its first job, so every job it finished came after the partition healed.
        #expect(rows.values.contains { $0["worker"] as? String == "w1" }, "w1 took new jobs once back")
        try expectRepaired(night, rows: rows)

        // The journal: each job once, done; each output the file on disk (size and time to the ns), so nothing was
        // renamed over what the journal recorded.
        let journal = try Journal(path: journalPath, readOnly: true)
        let states = try journal.jobStates(run: 1).values
        #expect(states.count == 24 && states.allSatisfy { $0.state == .done }, "\(states.map(\.state))")
        #expect(Set(states.map(\.output)).count == 24)
        try expectRecorded(night.tree.entries.map { night.tree.output($0, in: night.out.path) }, in: journal, "healed")
        #expect(try runTool("/bin/sh", ["-c", "ip netns list | grep -cE '^dfx[0-9]+-(c|w1|w2)( |$)' || true"]) == "0")
    }

    /// Every pair of the night repaired, exact and clean against the ideal; nothing hidden left in its outputs; the
    /// originals untouched.
    private func expectRepaired(_ night: MultihostNight, rows: [String: [String: Any]]) throws {
        let (tree, out) = (night.tree, night.out.path)
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
        #expect(tree.fingerprints() == night.before, "originals unchanged")
    }
}
