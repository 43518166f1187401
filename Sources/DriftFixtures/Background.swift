import Foundation

/// A background `driftfix` process whose output is collected when it ends.
public final class Background: Sendable {
    public let child: Child

    public init(_ arguments: [String], environment: [String: String] = [:], executable: String = driftfixPath()) throws
    {
        child = try Child(executable, arguments, environment: environment)
    }

    public var pid: Int32 { child.pid }
    public var isRunning: Bool { child.isRunning }

    /// Waits up to `seconds`; kills the process (and its process group) if it has not ended.
    public func wait(seconds: Double) -> CommandResult {
        child.wait(seconds: seconds)
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
