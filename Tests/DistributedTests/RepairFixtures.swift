import DriftAudio
import DriftCore
import DriftSchema
import Foundation
import TestSupport

/// A background `driftfix` process whose output is collected when it ends.
final class Background {
    let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private let group = DispatchGroup()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: driftfixPath())
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let (o, e) = (out.fileHandleForReading, err.fileHandleForReading)
        let box = Box()
        let group = self.group
        group.enter()
        DispatchQueue.global().async { box.out = o.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { box.err = e.readDataToEndOfFile(); group.leave() }
        self.box = box
    }

    private final class Box: @unchecked Sendable {  // written by one reader thread each, read after the group finishes
        var out = Data()
        var err = Data()
    }
    private var box: Box!

    var pid: Int32 { process.processIdentifier }

    /// Waits up to `seconds`; kills the process if it has not ended.
    func wait(seconds: Double) -> CommandResult {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        group.wait()
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: box.out, as: UTF8.self),
                             stderr: String(decoding: box.err, as: UTF8.self))
    }
}

/// Every hidden entry (temporary files) under `folder`, except the run journal's own folder `.driftfix`.
func hiddenFiles(under folder: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: folder)
    var found: [String] = []
    while let path = enumerator?.nextObject() as? String {
        if path == ".driftfix" {
            enumerator?.skipDescendants()
            continue
        }
        if (path as NSString).lastPathComponent.hasPrefix(".") { found.append(path) }
    }
    return found
}

/// Waits until `condition` holds, up to `seconds`.
@discardableResult
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
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
