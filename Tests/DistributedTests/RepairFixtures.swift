import DriftAudio
import DriftCore
import DriftFixtures
import DriftSchema
import Foundation

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

func uniqueEndpoint() -> String { "ipc:///tmp/driftfix-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock" }

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
