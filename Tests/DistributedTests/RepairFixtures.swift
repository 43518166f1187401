import DriftAudio
import DriftCore
import DriftFixtures
import DriftJournal
import DriftSchema
import Foundation
import Testing

/// Every entry under `folder` (paths relative to it), except the run journal's own folder `.driftfix`.
func treeEntries(under folder: String) -> [String] {
    // By hand, not FileManager's enumerator: that one does not cross into a file system mounted below (the chaos
    // night's small output volume).
    var found: [String] = []
    func walk(_ relative: String) {
        let path = relative.isEmpty ? folder : folder + "/" + relative
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() {
            let entry = relative.isEmpty ? name : relative + "/" + name
            if entry == ".driftfix" { continue }
            found.append(entry)
            var info = stat()
            if lstat(folder + "/" + entry, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { walk(entry) }
        }
    }
    walk("")
    return found
}

/// Every hidden entry (temporary files) under `folder`, except the run journal's own folder `.driftfix`.
func hiddenFiles(under folder: String) -> [String] {
    treeEntries(under: folder).filter { ($0 as NSString).lastPathComponent.hasPrefix(".") }
}

/// A coordinator for workers the test starts itself: `driftfix repair` of `tree` into `out`, bound at `endpoint`, with
/// no local workers, a heartbeat every 0.5 s, and `options`.
func remoteCoordinator(
    _ tree: RepairTree, out: TemporaryFolder, bind endpoint: String, _ options: [String] = [],
    environment: [String: String] = [:]
) throws -> Background {
    try Background(
        ["repair", tree.root.path, "--out", out.path, "--bind", endpoint, "--workers", "0", "--heartbeat", "0.5"]
            + options, environment: environment)
}

func uniqueEndpoint() -> String { "ipc:///tmp/driftfix-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock" }

/// Each of `outputs` is the file on disk that `journal` recorded, size and modification time to the ns: nothing was
/// renamed over it after.
func expectRecorded(
    _ outputs: some Sequence<String>, in journal: Journal, _ context: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let recorded = try journal.outputs()
    for output in outputs {
        let record = recorded.values.first { $0.output == output }
        var info = stat()
        #expect(stat(output, &info) == 0, "\(context): \(output)", sourceLocation: sourceLocation)
        #expect(record?.outputSize == Int64(info.st_size), "\(context): \(output)", sourceLocation: sourceLocation)
        #expect(
            record?.outputModified == Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            "\(context): \(output) is not the file the journal recorded", sourceLocation: sourceLocation)
    }
}

/// The report rows keyed by recording file name.
func reportRows(_ folder: String) throws -> [String: [String: Any]] {
    let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/report.json"))
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    var rows: [String: [String: Any]] = [:]
    for row in object["pairs"] as? [[String: Any]] ?? [] {
        rows[((row["recording"] as? String ?? "") as NSString).lastPathComponent] = row
    }
    return rows
}
