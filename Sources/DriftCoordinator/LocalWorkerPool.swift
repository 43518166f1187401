import Foundation
import Logging

/// Worker processes started by the coordinator itself for the one-machine default: the same executable run as
/// `driftfix worker --connect ENDPOINT`, one job at a time each.
public final class LocalWorkerPool {
    private var processes: [Process] = []
    private let logger: Logger

    /// Starts `count` workers connecting to `endpoint`; `extraArguments` are passed through (config, ...).
    public init(count: Int, endpoint: String, executable: String, extraArguments: [String] = [], logger: Logger) throws {
        self.logger = logger
        for index in 0..<count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["worker", "--connect", endpoint, "--concurrency", "1",
                                 "--identity", "local-\(getpid())-\(index + 1)"] + extraArguments
            var environment = ProcessInfo.processInfo.environment
            environment["DRIFTFIX_LOG_LEVEL"] = environment["DRIFTFIX_WORKER_LOG_LEVEL"] ?? "warning"
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            try process.run()
            processes.append(process)
        }
    }

    /// Process ids, for tests and logs.
    public var pids: [Int32] { processes.map(\.processIdentifier) }

    /// Waits up to `seconds` for the workers to exit after a shutdown message, then ends the stragglers.
    public func stop(within seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while processes.contains(where: \.isRunning) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        for process in processes where process.isRunning {
            logger.warning("worker pid \(process.processIdentifier) did not exit; terminating it")
            process.terminate()
        }
        for process in processes { process.waitUntilExit() }
    }

    /// The path of the running executable, to start workers from.
    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
