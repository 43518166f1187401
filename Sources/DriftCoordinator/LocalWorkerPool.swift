import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Worker processes started by the coordinator itself for the one-machine default: the same executable run as
/// `driftfix worker --connect ENDPOINT`, one job at a time each. As a service it starts them, and on graceful
/// shutdown - after the coordinator has told them to stop - waits for them to exit, ending any that do not within
/// `stopTimeout`.
public final class LocalWorkerPool: Service, Sendable {
    public struct Settings: Sendable {
        public var count: Int
        public var endpoint: String
        public var executable: String
        /// Passed through to every worker (config, roots, keys, heartbeat...).
        public var extraArguments: [String]
        /// Jobs each worker runs at once.
        public var capacity = 1
        /// How long stopping workers get before they are terminated, seconds.
        public var stopTimeout: Double = 10

        public init(count: Int, endpoint: String, executable: String, extraArguments: [String] = []) {
            self.count = count
            self.endpoint = endpoint
            self.executable = executable
            self.extraArguments = extraArguments
        }
    }

    private let settings: Settings
    private let logger: Logger
    /// The running processes (Foundation's `Process` is thread-safe for the calls made here).
    private let processes = Mutex<[Int32]>([])
    private let remaining = Mutex(0)
    /// Fires when the last worker has exited.
    private let allExited: StopEvent

    public init(settings: Settings, logger: Logger) throws(TransportError) {
        self.settings = settings
        self.logger = logger
        allExited = try StopEvent()
    }

    /// Process ids of the running workers.
    public var pids: [Int32] { processes.withLock { $0 } }

    /// The path of the running executable, to start workers from.
    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    public func run() async throws {
        try start()
        // Until the group shuts down: the coordinator's service ends the run, and its farewell tells every worker
        // to stop. Workers that die earlier are simply gone (the coordinator requeues their jobs).
        try? await gracefulShutdown()
        await waitForExit(seconds: settings.stopTimeout)
        for pid in pids where kill(pid, 0) == 0 {
            logger.warning("worker pid \(pid) did not exit; terminating it")
            kill(pid, SIGTERM)
        }
        await waitForExit(seconds: 5)
        for pid in pids where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        await waitForExit(seconds: .infinity)
    }

    private func start() throws {
        for index in 0..<settings.count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: settings.executable)
            process.arguments = ["worker", "--connect", settings.endpoint, "--concurrency", "\(settings.capacity)",
                                 "--identity", "local-\(getpid())-\(index + 1)"] + settings.extraArguments
            var environment = ProcessInfo.processInfo.environment
            environment["DRIFTFIX_LOG_LEVEL"] = environment["DRIFTFIX_WORKER_LOG_LEVEL"] ?? "warning"
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            remaining.withLock { $0 += 1 }
            process.terminationHandler = { [weak self] process in self?.exited(process.processIdentifier) }
            do {
                try process.run()
            } catch {
                remaining.withLock { $0 -= 1 }
                throw error
            }
            let pid = process.processIdentifier
            processes.withLock { $0.append(pid) }
        }
        if remaining.withLock({ $0 }) <= 0 { allExited.fire() }
    }

    private func exited(_ pid: Int32) {
        processes.withLock { $0.removeAll { $0 == pid } }
        if remaining.withLock({ value -> Int in
            value -= 1
            return value
        }) <= 0 { allExited.fire() }
    }

    /// Waits until every worker has exited, or `seconds` passed (on a thread of its own: the wait blocks).
    private func waitForExit(seconds: Double) async {
        let event = allExited
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                _ = event.wait(seconds: seconds)
                continuation.resume()
            }
            thread.start()
        }
    }
}
