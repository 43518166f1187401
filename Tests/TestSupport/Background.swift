import Foundation

/// A background `driftfix` process whose output is collected when it ends.
public final class Background: @unchecked Sendable {  // `process` is thread-safe for these calls; `box` is read after the readers finish
    public let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private let group = DispatchGroup()

    public init(_ arguments: [String], environment: [String: String] = [:], executable: String = driftfixPath()) throws {
        process.executableURL = URL(fileURLWithPath: executable)
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

    public var pid: Int32 { process.processIdentifier }

    /// Waits up to `seconds`; kills the process if it has not ended.
    public func wait(seconds: Double) -> CommandResult {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        group.wait()
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: box.out, as: UTF8.self),
                             stderr: String(decoding: box.err, as: UTF8.self))
    }
}

/// Processes whose command line contains `--parent PID` (the local workers of coordinator PID).
public func localWorkers(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { candidate in
        guard let data = FileManager.default.contents(atPath: "/proc/\(candidate)/cmdline") else { return false }
        return String(decoding: data, as: UTF8.self).contains("--parent\u{0}\(pid)\u{0}")
    }
}
