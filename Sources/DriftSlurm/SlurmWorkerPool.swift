import DriftCoordinator
import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The run's workers as one Slurm job array: `count` tasks, each `driftfix worker --connect ENDPOINT ...`, placed by
/// the cluster on whichever nodes it gives. As a service it watches them through the night (`squeue`): a task that
/// Slurm ends while work remains (scancel, a failed node, its time limit, preemption) has its worker's leases
/// requeued at once (posted to the coordinator's inbox, no heartbeat timeout to wait for) and is submitted again,
/// up to `maxResubmits` times with the reason in the log. When the night ends, after the coordinator told the
/// workers to stop, it cancels whatever of its jobs is still queued or running and waits until `squeue` lists none.
///
/// The jobs carry a name of their own (`jobName`), which is how every query and the final `scancel` find them: a
/// task resubmitted under a new job id is found like the first, and nothing of the run can be missed.
public final class SlurmWorkerPool: WorkerPool {
    public struct Settings: Sendable {
        /// Tasks in the array.
        public var count: Int
        /// What the workers connect to (an address the nodes can reach).
        public var endpoint: String
        public var executable: String
        /// Passed through to every worker (roots, keys, config, heartbeat...).
        public var extraArguments: [String]
        /// Extra `sbatch` options (`--partition=night`, `--time=8:00:00`, `--cpus-per-task=4`, ...).
        public var sbatchArguments: [String] = []
        /// Where each task's output goes (`%A_%a` expanded by Slurm); nil: nowhere.
        public var logFolder: String?
        /// Tasks submitted again in place of ended ones, at most, per run.
        public var maxResubmits = 8
        /// Tasks ending before their worker connected, in a row, that end the run (a missing binary, a bad config).
        public var crashLoopLimit = 5
        /// Seconds between looks at the queue.
        public var pollInterval: Double = 1
        /// Seconds a running task's worker gets to connect while the coordinator still counts it as on its way.
        public var startGrace: Double = 60
        /// How long running tasks get to exit after the workers were told to stop, before they are cancelled.
        public var stopTimeout: Double = 15
        /// The jobs' name: unique to this run.
        public var jobName: String

        public init(
            count: Int, endpoint: String, executable: String, extraArguments: [String] = [],
            jobName: String = SlurmWorkerPool.uniqueJobName()
        ) {
            self.count = count
            self.endpoint = endpoint
            self.executable = executable
            self.extraArguments = extraArguments
            self.jobName = jobName
        }
    }

    private struct State {
        var slots: SlurmSlots
        var stopping = false
        var failed = false
        var resubmits = 0
        var endedBeforeJoiningInARow = 0
        var queueTrouble: String?
        var exhaustedSaid = false
        var waitingSaid = 0
    }

    private let settings: Settings
    private let client: SlurmClient
    private let logger: Logger
    private let inbox: CoordinatorInbox?
    private let state: Mutex<State>
    private let wake: StopEvent

    public init(
        settings: Settings, client: SlurmClient = SlurmClient(), inbox: CoordinatorInbox? = nil,
        logger: Logger
    ) throws(TransportError) {
        self.settings = settings
        self.client = client
        self.logger = logger
        self.inbox = inbox
        state = Mutex(State(slots: SlurmSlots(count: settings.count)))
        wake = try StopEvent()
    }

    /// A job name no other run shares: this host, this process, a random tag.
    public static func uniqueJobName() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        return "driftfix-\(host)-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
    }

    public var restarts: Int { state.withLock { $0.resubmits } }

    /// The Slurm job ids of the array's current tasks (`4711_0`, `4712_1` after a resubmit).
    public var taskIDs: [String] {
        state.withLock { state in
            state.slots.slots.enumerated().compactMap { index, slot in slot.job.map { "\($0)_\(index)" } }
        }
    }

    public func run() async throws {
        do {
            let job = try submit(Array(0..<settings.count))
            state.withLock { state in for index in state.slots.slots.indices { state.slots.start(index, job: job) } }
            logger.notice(
                "submitted \(settings.count) worker task\(settings.count == 1 ? "" : "s") to Slurm as job \(job) (\(settings.jobName)); they connect to \(settings.endpoint)"
            )
        } catch {
            fail("cannot submit the workers to Slurm: \(error)")
        }
        let done = try StopEvent()
        let watcher = Thread { [self] in
            watch()
            done.fire()
        }
        watcher.start()
        try? await gracefulShutdown()
        state.withLock { $0.stopping = true }
        wake.fire()
        // Waited for on a thread of its own: the wait blocks.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                _ = done.wait(seconds: .infinity)
                continuation.resume()
            }.start()
        }
    }

    public func joined(_ identity: String) {
        guard let name = SlurmIdentity(identity) else { return }
        state.withLock { state in
            if state.slots.joined(name) { state.endedBeforeJoiningInARow = 0 }
        }
    }

    public func silent(_ identity: String) {
        guard let name = SlurmIdentity(identity), state.withLock({ !$0.stopping }) else { return }
        logger.warning("Slurm worker \(identity) stopped answering; cancelling its task \(name.jobID)")
        state.withLock { $0.slots.silent(name) }
        do {
            try client.cancel(job: name.jobID)
        } catch {
            logger.warning("\(error)")
        }
    }

    /// Looks at the queue every `pollInterval` until shutdown, then ends the array (on a thread of its own: the
    /// Slurm commands block).
    private func watch() {
        while true {
            _ = wake.wait(seconds: settings.pollInterval)
            wake.reset()
            if state.withLock({ $0.stopping }) { break }
            look()
        }
        close()
    }

    /// One look at the queue: tasks that ended are reported and replaced.
    private func look() {
        let tasks: [SlurmTask]
        do {
            tasks = try client.tasks(named: settings.jobName)
        } catch {
            // slurmctld restarting or busy: the tasks keep running; say it once, and once when it is back.
            let first = state.withLock { state -> Bool in
                defer { state.queueTrouble = error.description }
                return state.queueTrouble == nil
            }
            if first { logger.warning("cannot read the Slurm queue (\(error)); retrying") }
            // Unknown while the queue does not answer: the idle timeout counts again.
            if state.withLock({ state in
                defer { state.waitingSaid = 0 }
                return state.waitingSaid > 0
            }) {
                inbox?.post(.workersOnTheirWay(0))
            }
            return
        }
        if state.withLock({ state in
            defer { state.queueTrouble = nil }
            return state.queueTrouble != nil
        }) {
            logger.notice("the Slurm queue answers again")
        }
        let ended = state.withLock { $0.slots.ended(in: tasks) }
        for task in ended { replace(task) }
        // Tasks waiting for a node or starting their worker: the coordinator does not count the wait as idle (a
        // busy cluster, a loaded node).
        // The grace is timed on the monotonic clock: a wall clock set back must not stretch it.
        let now = ProcessInfo.processInfo.systemUptime
        let waiting = state.withLock { $0.slots.waiting(in: tasks, at: now, startGrace: settings.startGrace) }
        let said = state.withLock { state in
            defer { state.waitingSaid = waiting }
            return state.waitingSaid
        }
        if waiting != said { inbox?.post(.workersOnTheirWay(waiting)) }
        if waiting > 0 && said == 0 {
            logger.notice(
                "\(waiting) worker task\(waiting == 1 ? "" : "s") waiting in the Slurm queue or starting (squeue --name=\(settings.jobName)); the idle timeout waits too"
            )
        }
        let late = state.withLock { $0.slots.overdue(in: tasks, at: now, grace: settings.startGrace) }
        for task in late { tell(task) }
    }

    /// Says why a task is late: Slurm's reason for keeping it queued (the night waits for it), or a worker that
    /// runs and has not connected (the night no longer counts on it; its log says why).
    private func tell(_ task: SlurmSlots.Overdue) {
        let name = "\(task.job)_\(task.index)"
        if task.queued {
            let why = task.waitReason.isEmpty ? "Slurm gives no reason yet" : "Slurm's reason: \(task.waitReason)"
            logger.notice(
                "Slurm worker task \(name) has waited \(task.seconds) s in the queue (\(why)); the night waits for it (squeue --jobs=\(name))"
            )
        } else {
            logger.warning(
                "Slurm worker task \(name) has run \(task.seconds) s on \(task.node.isEmpty ? "its node" : task.node) and its worker has not connected to \(settings.endpoint); the idle timeout no longer waits for it\(logHint)"
            )
        }
    }

    private func replace(_ task: SlurmSlots.Ended) {
        let name = "\(task.job)_\(task.index)"
        if !task.node.isEmpty {
            // Its worker cannot say goodbye (a failed node, SIGKILL): its leases go back to the queue now.
            inbox?.post(
                .workerExited(
                    identity: SlurmIdentity(job: task.job, task: task.index, node: task.node).description,
                    how: "Slurm task \(name) \(task.why)"))
        }
        enum Next {
            case resubmit(Int)
            case exhausted
            case crashLoop(Int)
            case nothing
        }
        let next: Next = state.withLock { state in
            if state.stopping || state.failed { return .nothing }
            if !task.joined {
                state.endedBeforeJoiningInARow += 1
                if state.endedBeforeJoiningInARow >= settings.crashLoopLimit {
                    return .crashLoop(state.endedBeforeJoiningInARow)
                }
            }
            guard state.resubmits < settings.maxResubmits else {
                defer { state.exhaustedSaid = true }
                return state.exhaustedSaid ? .nothing : .exhausted
            }
            state.resubmits += 1
            return .resubmit(state.resubmits)
        }
        let place = task.node.isEmpty ? "" : " on \(task.node)"
        switch next {
        case .nothing:
            break
        case .exhausted:
            logger.error(
                "Slurm worker task \(name)\(place) \(task.why); not replaced: \(settings.maxResubmits) resubmits used (slurm.max-resubmits)"
            )
        case .crashLoop(let count):
            fail(
                "Slurm worker tasks keep ending before their worker connects (\(count) in a row, the last \(name)\(place): \(task.why))\(logHint); giving up, the next run resumes"
            )
        case .resubmit(let number):
            do {
                let job = try submit([task.index])
                state.withLock { state in
                    state.slots.start(task.index, job: job)
                }
                logger.warning(
                    "Slurm worker task \(name)\(place) \(task.why); submitted \(job)_\(task.index) in its place (resubmit \(number) of at most \(settings.maxResubmits))"
                )
            } catch {
                logger.error("Slurm worker task \(name)\(place) \(task.why); cannot submit another: \(error)")
            }
        }
    }

    /// After the workers were told to stop: give the running tasks `stopTimeout` to exit, then cancel what is left
    /// (queued tasks that never started included) and wait until the queue lists nothing of the run.
    private func close() {
        let deadline = Date().addingTimeInterval(settings.stopTimeout)
        while Date() < deadline, let live = try? active(), !live.isEmpty, !live.allSatisfy({ $0.state == .pending }) {
            Thread.sleep(forTimeInterval: 0.25)
        }
        do {
            try client.cancel(named: settings.jobName)
        } catch {
            logger.error("\(error): cancel the workers' jobs by hand (scancel --name=\(settings.jobName))")
            return
        }
        let end = Date().addingTimeInterval(60)
        while Date() < end {
            guard let live = try? active() else { break }
            if live.isEmpty { return }
            Thread.sleep(forTimeInterval: 0.25)
        }
        logger.error(
            "Slurm still lists worker tasks of this run a minute after scancel (scancel --name=\(settings.jobName), squeue --name=\(settings.jobName))"
        )
    }

    /// The run's tasks that are still queued or running.
    private func active() throws(SlurmError) -> [SlurmTask] {
        try client.tasks(named: settings.jobName).filter { !$0.state.isFinished }
    }

    /// Submits the array's `indices` as one job; its id.
    private func submit(_ indices: [Int]) throws(SlurmError) -> Int {
        try client.submit(script: script, arguments: submission(indices))
    }

    /// `sbatch`'s options for the array's `indices`.
    func submission(_ indices: [Int]) -> [String] {
        var arguments = [
            "--job-name=\(settings.jobName)", "--array=\(indices.map(String.init).joined(separator: ","))",
        ]
        if let folder = settings.logFolder {
            arguments += ["--output=\(folder)/\(settings.jobName)-%A_%a.log", "--open-mode=append"]
        } else {
            arguments += ["--output=/dev/null"]
        }
        // The submitting environment (Slurm's default, said in case a site changed it). Not `ALL,VAR=...`: any
        // variable listed makes Slurm load the user's login environment on the node first (`su - USER`), which
        // costs every task's start a login shell's time (a minute where a login blocks) and puts the login's
        // variables over the submitting ones. The workers' log level is set by the script.
        arguments += ["--export=ALL"]
        arguments += settings.sbatchArguments
        return arguments
    }

    /// The batch script: the worker, as the task's one process (exec), so Slurm's signals reach it directly.
    var script: String {
        let command = [settings.executable, "worker", "--connect", settings.endpoint] + settings.extraArguments
        let level = ProcessInfo.processInfo.environment["DRIFTFIX_WORKER_LOG_LEVEL"] ?? "notice"
        return """
            #!/bin/sh
            # A driftfix worker for the coordinator on \(ProcessInfo.processInfo.hostName) (pid \(getpid())); it names
            # itself slurm-JOB_TASK@NODE from Slurm's variables and runs as many jobs as its allocation has CPUs.
            DRIFTFIX_LOG_LEVEL=\(Self.quoted(level))
            export DRIFTFIX_LOG_LEVEL
            exec \(command.map(Self.quoted).joined(separator: " "))

            """
    }

    private var logHint: String {
        settings.logFolder.map { "; see \($0)/\(settings.jobName)-*.log" }
            ?? "; set slurm.log-folder to keep the tasks' output"
    }

    private func fail(_ reason: String) {
        state.withLock { $0.failed = true }
        if let inbox { inbox.post(.poolFailed(reason)) } else { logger.error("\(reason)") }
    }

    /// A word for sh: single-quoted, with embedded quotes closed and reopened.
    static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
