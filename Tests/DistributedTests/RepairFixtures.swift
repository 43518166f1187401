import DriftAudio
import DriftCore
import DriftSchema
import Foundation
import TestSupport

/// Every entry under `folder` (paths relative to it), except the run journal's own folder `.driftfix`.
func treeEntries(under folder: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: folder)
    var found: [String] = []
    while let path = enumerator?.nextObject() as? String {
        if path == ".driftfix" {
            enumerator?.skipDescendants()
            continue
        }
        found.append(path)
    }
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
