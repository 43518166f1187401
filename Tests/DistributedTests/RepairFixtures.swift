import DriftAudio
import DriftCore
import DriftSchema
import Foundation
import TestSupport

/// A generated tree of recordings with sidecar references, and what each should become.
struct RepairTree {
    struct Entry {
        let recording: String
        let frames: Int64
        /// The reference length; nil for a broken recording.
        let target: Int64
        let signal: TestSignal
        let expected: RepairOutcome
    }

    let root: TemporaryFolder
    var entries: [Entry] = []

    /// `drifted` pairs at assorted clock drifts, `inSync` within tolerance, `refused` 20% short (unexplained).
    init(drifted: Int, inSync: Int = 0, refused: Int = 0, frames: Int64 = 12_000, channels: Int = 1, folders: Int = 3) throws {
        root = TemporaryFolder("driftfix-tree")
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: channels)
        let ppms: [Int64] = [-300, -131, -50, 80, 131, 250, -999, 1001]
        func add(_ index: Int, target: Int64, expected: RepairOutcome) throws {
            let folder = root.file("device\(index % folders)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let name = "take\(index)"
            let signal = TestSignal(channelCount: channels, length: frames, seed: UInt64(index + 1), maxCyclesPerSample: 0.2)
            try writeRecording(signal, to: folder + "/\(name).wav", format: format)
            try "\(target)@48000\n".write(toFile: folder + "/\(name).duration", atomically: true, encoding: .utf8)
            entries.append(Entry(recording: folder + "/\(name).wav", frames: frames, target: target, signal: signal, expected: expected))
        }
        var index = 0
        for i in 0..<drifted {
            let ppm = ppms[i % ppms.count] + Int64(i / ppms.count) * 7
            try add(index, target: frames + max(1, abs(frames * ppm / 1_000_000) + 49) * (ppm < 0 ? 1 : -1), expected: .repaired)
            index += 1
        }
        for _ in 0..<inSync {
            try add(index, target: frames + 10, expected: .skipped)  // 0.2 ms: within the 1 ms tolerance
            index += 1
        }
        for _ in 0..<refused {
            try add(index, target: frames * 5 / 4, expected: .refused)  // 20% short, no known cause
            index += 1
        }
    }

    /// Output path of an entry under `out`.
    func output(_ entry: Entry, in out: String) -> String {
        out + entry.recording.dropFirst(root.path.count)
    }

    /// Fingerprints of every original.
    func fingerprints() -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.recording, fingerprint($0.recording) ?? 0) })
    }
}

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
