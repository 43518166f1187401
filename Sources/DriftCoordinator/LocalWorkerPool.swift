import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Worker processes started by the coordinator itself for the one-machine default: the same executable run as
/// `driftfix worker --connect ENDPOINT`. As a service it keeps `count` of them alive for the whole run - a worker
/// that dies (the OOM killer, a codec crash, a stray `kill`) is replaced after a short back-off and its exit is
/// posted to the coordinator, which requeues its jobs at once - and on graceful shutdown, after the coordinator has
/// told them to stop, waits for them to exit, ending any that do not within `stopTimeout`.
///
/// A pool that cannot keep workers alive (each new one dies before it connects: a missing library, a bad config)
/// posts `.poolFailed` after `crashLoopLimit` such deaths in a row instead of restarting for ever.
public final class LocalWorkerPool: WorkerPool {
    public struct Settings: Sendable {
        public var count: Int
        public var endpoint: String
        public var executable: String
        /// Passed through to every worker (config, roots, keys, heartbeat...).
        public var extraArguments: [String]
        /// Jobs each worker runs at once.
        public var capacity = 1
        /// Cores beyond its own a worker's long job may borrow while no job holds them (nil: the worker's default).
        public var idleCores: Int?
        /// How long stopping workers get before they are terminated, seconds.
        public var stopTimeout: Double = 10
        /// The first wait before a dead worker is replaced, seconds; doubled for each further worker of the same
        /// slot that dies before connecting, up to `maxRestartDelay`.
        public var restartDelay: Double = 0.25
        public var maxRestartDelay: Double = 5
        /// Workers dying before they connect, in a row with none connecting in between, that end the run.
        public var crashLoopLimit = 5

        public init(count: Int, endpoint: String, executable: String, extraArguments: [String] = []) {
            self.count = count
            self.endpoint = endpoint
            self.executable = executable
            self.extraArguments = extraArguments
        }
    }

    /// One running (or restarting) worker position.
    private struct Slot {
        var identity = ""
        var pid: Int32?
        var joined = false
        /// Workers of this slot that died before connecting, in a row: the back-off grows with it.
        var earlyDeaths = 0
    }

    private struct State {
        var slots: [Slot]
        var serial = 0
        /// Workers of any slot that died before connecting, with none connecting since.
        var earlyDeathsInARow = 0
        var stopping = false
        var failed = false
        var restarts = 0
        var launched = 0
        var live: Int { slots.filter { $0.pid != nil }.count }
    }

    private let settings: Settings
    private let logger: Logger
    private let inbox: CoordinatorInbox?
    private let onExit: @Sendable (_ identity: String, _ how: String) -> Void
    private let state: Mutex<State>
    /// Fires once stopping and no worker process is left.
    private let allExited: StopEvent

    /// - Parameters:
    ///   - inbox: where worker exits and a crash loop are posted (the coordinator loop's inbox).
    ///   - onExit: sees every worker that exited without being told to, once its process is gone (any thread).
    public init(
        settings: Settings, inbox: CoordinatorInbox? = nil, logger: Logger,
        onExit: @escaping @Sendable (_ identity: String, _ how: String) -> Void = { _, _ in }
    ) throws(TransportError) {
        self.settings = settings
        self.logger = logger
        self.inbox = inbox
        self.onExit = onExit
        state = Mutex(State(slots: Array(repeating: Slot(), count: settings.count)))
        allExited = try StopEvent()
    }

    /// Process ids of the running workers.
    public var pids: [Int32] { state.withLock { $0.slots.compactMap(\.pid) } }

    /// Workers started to replace dead ones so far.
    public var restarts: Int { state.withLock { $0.restarts } }

    /// Worker processes started so far, replacements included.
    public var launched: Int { state.withLock { $0.launched } }

    /// The path of the running executable, to start workers from.
    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    public func run() async throws {
        for slot in 0..<settings.count { launch(slot) }
        // Until the group shuts down: the coordinator's service ends the run, and its farewell tells every worker
        // to stop.
        try? await gracefulShutdown()
        let none = state.withLock { state -> Bool in
            state.stopping = true
            return state.live == 0
        }
        if none { allExited.fire() }
        await waitForExit(seconds: settings.stopTimeout)
        for pid in pids where kill(pid, 0) == 0 {
            logger.warning("worker pid \(pid) did not exit; terminating it")
            kill(pid, SIGTERM)
        }
        await waitForExit(seconds: 5)
        for pid in pids where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        await waitForExit(seconds: .infinity)
    }

    /// The coordinator heard from `identity`: a worker that connects ends any crash-loop count.
    public func joined(_ identity: String) {
        state.withLock { state in
            guard let index = state.slots.firstIndex(where: { $0.identity == identity }) else { return }
            state.slots[index].joined = true
            state.slots[index].earlyDeaths = 0
            state.earlyDeathsInARow = 0
        }
    }

    /// The coordinator gave up on `identity` because it stopped answering: a local worker that is hung rather than
    /// dead still holds its slot, so it is ended (and then replaced).
    public func silent(_ identity: String) {
        let pid = state.withLock { state in
            state.stopping ? nil : state.slots.first(where: { $0.identity == identity })?.pid
        }
        guard let pid else { return }
        logger.warning("local worker \(identity) (pid \(pid)) stopped answering; ending it")
        kill(pid, SIGKILL)
    }

    /// Starts a worker in `slot` under a new identity (a replacement must not inherit the dead one's leases).
    private func launch(_ slot: Int) {
        let identity: String? = state.withLock { state in
            guard !state.stopping, !state.failed else { return nil }
            state.serial += 1
            state.slots[slot].identity = "local-\(getpid())-\(state.serial)"
            state.slots[slot].joined = false
            return state.slots[slot].identity
        }
        guard let identity else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: settings.executable)
        // --parent: a worker of a coordinator that crashed stops instead of living on as an orphan.
        process.arguments =
            [
                "worker", "--connect", settings.endpoint, "--concurrency", "\(settings.capacity)",
                "--identity", identity, "--parent", "\(getpid())",
            ]
            + (settings.idleCores.map { ["--idle-cores", "\($0)"] } ?? []) + settings.extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["DRIFTFIX_LOG_LEVEL"] = environment["DRIFTFIX_WORKER_LOG_LEVEL"] ?? "warning"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [weak self] process in
            let status = process.terminationStatus
            let how = process.terminationReason == .uncaughtSignal ? "signal \(status)" : "exit status \(status)"
            self?.exited(
                slot: slot, pid: process.processIdentifier, how: how,
                clean: process.terminationReason == .exit && status == 0)
        }
        // Recorded before the process can exit, so its exit always finds its slot; and not started at all once
        // shutdown began meanwhile (a delayed replacement), or it would outlive the pool.
        do {
            try state.withLock { state throws in
                guard !state.stopping, !state.failed else { return }
                try process.run()
                state.slots[slot].pid = process.processIdentifier
                state.launched += 1
            }
        } catch {
            // Not a crash to retry: the executable itself cannot be started.
            fail("cannot start local workers (\(settings.executable)): \(error.localizedDescription)")
        }
    }

    private func exited(slot: Int, pid: Int32, how: String, clean: Bool) {
        enum Next {
            case nothing
            case restart(Double)
            case crashLoop(Int)
        }
        var identity = ""
        let next: Next = state.withLock { state in
            guard state.slots[slot].pid == pid else { return .nothing }
            identity = state.slots[slot].identity
            state.slots[slot].pid = nil
            // A worker told to stop exits cleanly; after shutdown began nothing is replaced.
            if state.stopping || state.failed || clean { return .nothing }
            if state.slots[slot].joined {
                state.slots[slot].earlyDeaths = 0
            } else {
                state.slots[slot].earlyDeaths += 1
                state.earlyDeathsInARow += 1
                if state.earlyDeathsInARow >= settings.crashLoopLimit {
                    state.failed = true
                    return .crashLoop(state.earlyDeathsInARow)
                }
            }
            state.restarts += 1
            let doublings = max(0, state.slots[slot].earlyDeaths - 1)
            return .restart(min(settings.maxRestartDelay, settings.restartDelay * Double(1 << min(doublings, 20))))
        }
        if !clean {
            inbox?.post(.workerExited(identity: identity, how: how))
            onExit(identity, how)
        }
        switch next {
        case .nothing:
            break
        case .restart(let delay):
            logger.warning(
                "local worker \(identity) (pid \(pid)) died: \(how); starting another in \(delay.formatted(.number.precision(.fractionLength(0...2)))) s"
            )
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in self?.launch(slot) }
        case .crashLoop(let count):
            fail(
                "local workers keep dying before they connect (\(count) in a row, the last with \(how)): giving up; the next run resumes"
            )
        }
        if state.withLock({ $0.stopping && $0.live == 0 }) { allExited.fire() }
    }

    /// Stops replacing workers and tells the coordinator loop to end the run.
    private func fail(_ reason: String) {
        state.withLock { $0.failed = true }
        if let inbox { inbox.post(.poolFailed(reason)) } else { logger.error("\(reason)") }
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
