import DriftCore
import DriftJobs
import DriftWire

/// A job whose worker was lost while holding it: where that worker may have left a temporary file.
public struct LostLease: Sendable, Equatable {
    public var job: Int
    public var worker: String
    /// How the worker was lost ("signal 9", "went silent").
    public var how: String
    /// The job's output paths (as the coordinator names them): none for work that writes nothing.
    public var outputs: [String]
    /// The lost worker's machine and process, from its hello; nil when it never said.
    public var host: String?
    public var pid: Int32?
}

/// What happened, for progress bars and logs.
public enum DispatchEvent: Sendable, Equatable {
    case workerJoined(String, capacity: Int)
    case workerLost(String, requeued: Int)
    /// A worker stopped answering (it was then given up as lost): a local one may be hung rather than dead.
    case workerSilent(String)
    /// A lease ended with its worker (dead, silent, cut off): its leftovers can go.
    case leaseLost(LostLease)
    case jobStarted(id: Int, worker: String, attempt: Int)
    case jobFinished(JobRecord)
    case jobRequeued(id: Int, reason: String)
    case duplicateResult(id: Int, worker: String)
    /// A result from an older lease than the job's latest (its worker was cut off or fell silent past its lease, and
    /// the job was leased again): discarded, whatever it says; the newest lease decides.
    case staleResult(id: Int, worker: String, attempt: Int, latest: Int)
    case dropped(peer: String, reason: String)
}

/// The coordinator's brain, with no sockets and no clock of its own (time is passed in), so every rule is
/// tested directly: credit-based dispatch (never more jobs to a worker than its announced capacity), longest job
/// first, heartbeats both ways, leases that expire when a worker falls silent (Paranoid Pirate), requeues, late
/// and duplicate results, bounded retries.
public final class Dispatcher {
    public struct Settings: Sendable {
        /// Seconds between heartbeats each way.
        public var heartbeatInterval: Double = 1
        /// Heartbeat intervals of silence after which a worker is presumed dead.
        public var liveness: Double = 3
        /// Leases per job before it is marked failed.
        public var maxAttempts = 3
        /// The trace context each job message carries (the coordinator's span for the job), if tracing.
        public var traceparent: (@Sendable (Int) -> String?)?
        public init() {}
    }

    struct Worker {
        var capacity: Int
        var leased: Set<Int> = []
        var lastSeen: Double
        var lastHeartbeatSent: Double
        var host: String?
        var pid: Int32?
    }

    public let store: JobStore
    public let settings: Settings
    private var workers: [String: Worker] = [:]
    /// Every worker that ever said hello: a result from one presumed dead is a late result, not a stranger's.
    private var introduced: Set<String> = []
    private var dispatching = true
    public private(set) var events: [DispatchEvent] = []
    /// Per job, how each lease that ended with its worker ended ("signal 9", "went silent"): a file that kills
    /// every worker that opens it fails with that history instead of circling for ever.
    private var deaths: [Int: [String]] = [:]
    /// Per job, workers whose own disk failed it: the retry goes to another worker when there is one.
    private var avoid: [Int: Set<String>] = [:]
    /// Stale leases already reported (job, attempt): a worker sends an unconfirmed result again on reconnecting, and
    /// one late result is one event.
    private var staleSeen: Set<[Int]> = []
    /// The kind of each job's last retryable failure: what it fails with when its attempts run out.
    private var lastFailure: [Int: FailureKind] = [:]
    /// Workers that died, went silent or were cut off (not those that said goodbye).
    public private(set) var workersLost = 0
    /// Jobs put back in the queue, for any reason.
    public private(set) var jobsRequeued = 0

    public init(store: JobStore, settings: Settings = Settings()) {
        self.store = store
        self.settings = settings
    }

    /// Workers currently alive.
    public var liveWorkers: Int { workers.count }
    /// Names of the live workers.
    public var workerNames: [String] { workers.keys.sorted() }
    /// Jobs out on lease.
    public var leasedJobs: Int { workers.values.reduce(0) { $0 + $1.leased.count } }
    /// Every job done or failed.
    public var isComplete: Bool { store.unfinishedCount == 0 }

    /// Stops handing out work (graceful shutdown); running jobs may still report.
    public func stopDispatching() { dispatching = false }

    /// Takes the events gathered since the last call.
    public func drainEvents() -> [DispatchEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Handles one message from `peer`; returns the messages to send.
    public func received(_ message: WireMessage, from peer: String, at now: Double) -> [(String, WireMessage)] {
        var outgoing: [(String, WireMessage)] = []
        switch message {
        case .hello(let hello):
            // Bounded: peers that come and go (reconnects get new identities) must not grow it forever.
            if introduced.count >= 4096 { introduced = introduced.filter { workers[$0] != nil } }
            introduced.insert(peer)
            if var known = workers[peer] {
                known.capacity = hello.capacity
                known.lastSeen = now
                known.host = hello.host
                known.pid = hello.pid
                workers[peer] = known
            } else {
                workers[peer] = Worker(
                    capacity: hello.capacity, lastSeen: now, lastHeartbeatSent: now, host: hello.host,
                    pid: hello.pid)
                events.append(.workerJoined(peer, capacity: hello.capacity))
            }
            outgoing.append((peer, .heartbeat(running: [])))
        case .heartbeat(let running):
            guard workers[peer] != nil else {
                events.append(
                    .dropped(peer: peer, reason: "heartbeat from an unknown worker (it will say hello on reconnect)"))
                return []
            }
            workers[peer]?.lastSeen = now
            reconcile(peer: peer, running: Set(running), now: now)
        case .result(let result):
            guard introduced.contains(peer) else {
                events.append(.dropped(peer: peer, reason: "result from a peer that never said hello"))
                return []
            }
            workers[peer]?.lastSeen = now
            accept(result, from: peer, now: now)
        case .goodbye:
            if let worker = workers.removeValue(forKey: peer) {
                let count = requeue(worker.leased, reason: "worker \(peer) left", from: worker, named: peer, death: nil)
                events.append(.workerLost(peer, requeued: count))
            }
        case .job, .shutdown:
            events.append(.dropped(peer: peer, reason: "a coordinator-only message"))
        }
        outgoing += dispatch(now: now)
        return outgoing
    }

    /// A worker whose key was revoked: it is cut off at once - its leases go back to the queue and it is told to
    /// shut down. Returns the messages to send.
    public func revoke(_ peer: String, reason: String, at now: Double) -> [(String, WireMessage)] {
        if let worker = workers.removeValue(forKey: peer) {
            workersLost += 1
            let count = requeue(
                worker.leased, reason: "worker \(peer) was cut off: \(reason)", from: worker, named: peer,
                death: "cut off")
            events.append(.workerLost(peer, requeued: count))
        }
        return [(peer, .shutdown)] + dispatch(now: now)
    }

    /// A worker that is known to have died (a local worker process that exited: `how` is "signal 9", "exit status
    /// 1"): its leases go back to the queue at once, each counting the death against its job. Returns the messages
    /// to send.
    public func died(_ peer: String, how: String, at now: Double) -> [(String, WireMessage)] {
        guard let worker = workers.removeValue(forKey: peer) else { return dispatch(now: now) }
        workersLost += 1
        let count = requeue(
            worker.leased, reason: "worker \(peer) died (\(how))", from: worker, named: peer, death: how)
        events.append(.workerLost(peer, requeued: count))
        return dispatch(now: now)
    }

    /// Time passes: expire silent workers, send due heartbeats, hand out work.
    public func tick(at now: Double) -> [(String, WireMessage)] {
        var outgoing: [(String, WireMessage)] = []
        let deadline = settings.heartbeatInterval * settings.liveness
        for (peer, worker) in workers where now - worker.lastSeen > deadline {
            workers.removeValue(forKey: peer)
            workersLost += 1
            let count = requeue(
                worker.leased, reason: "worker \(peer) went silent", from: worker, named: peer, death: "went silent")
            events.append(.workerSilent(peer))
            events.append(.workerLost(peer, requeued: count))
        }
        for (peer, worker) in workers where now - worker.lastHeartbeatSent >= settings.heartbeatInterval {
            workers[peer]?.lastHeartbeatSent = now
            outgoing.append((peer, .heartbeat(running: worker.leased.sorted())))
        }
        outgoing += dispatch(now: now)
        return outgoing
    }

    /// A worker's heartbeat lists what it runs; a job leased to it long enough ago but not listed was lost (the
    /// worker restarted, or the job message never arrived): back to the queue.
    private func reconcile(peer: String, running: Set<Int>, now: Double) {
        guard let worker = workers[peer] else { return }
        for id in worker.leased where !running.contains(id) {
            guard case .leased(_, _, let since)? = store.job(id)?.state, now - since > 2 * settings.heartbeatInterval
            else {
                continue
            }
            workers[peer]?.leased.remove(id)
            _ = requeue(
                [id], reason: "worker \(peer) no longer runs it", from: worker, named: peer,
                death: "lost it (the worker restarted)")
        }
    }

    /// Whether a result ends its job as done (its result kept): a success, or a content job's failed verification,
    /// which the report shows with its measurement. Any other failure is retried or fails the job.
    public static func isDone(_ result: JobResult) -> Bool {
        switch result.outcome {
        case .repaired, .decided, .heard: true
        case .failed(let failure): failure.content != nil && !failure.retryable
        }
    }

    private func accept(_ result: JobResult, from peer: String, now: Double) {
        // Whoever held the lease, its credit is free again.
        for (name, worker) in workers where worker.leased.contains(result.id) {
            if name == peer || result.worker == name { workers[name]?.leased.remove(result.id) }
        }
        guard let job = store.job(result.id) else {
            events.append(.dropped(peer: peer, reason: "result for unknown job \(result.id)"))
            return
        }
        guard result.run == job.spec.run else {
            events.append(.dropped(peer: peer, reason: "result for job \(result.id) of another run"))
            return
        }
        // The lease epoch: only the newest lease's result counts. A worker partitioned past its lease reports late,
        // after the job went to another worker (who may still be at it, or done).
        guard result.attempt >= job.attempts else {
            if staleSeen.insert([result.id, result.attempt]).inserted {
                events.append(
                    .staleResult(id: result.id, worker: peer, attempt: result.attempt, latest: job.attempts))
            }
            return
        }
        guard !job.isFinished else {
            events.append(.duplicateResult(id: result.id, worker: peer))
            return
        }
        // The retry rule reads the failure's kind (a worker of this release always names one).
        if Self.isDone(result) {
            store.complete(job.id, with: result)
        } else if case .failed(let failure) = result.outcome, failure.retryable && job.attempts < settings.maxAttempts {
            // The destination failed on this worker (its disk full or read-only): another worker may reach it.
            avoid[job.id, default: []].insert(peer)
            lastFailure[job.id] = failure.kind
            if case .leased = job.state { store.requeue(job.id, reason: failure.message) }
            jobsRequeued += 1
            events.append(.jobRequeued(id: job.id, reason: failure.message + "; trying another worker"))
            return
        } else if case .failed(let failure) = result.outcome {
            store.fail(job.id, failure)
        }
        if let finished = store.job(job.id) { events.append(.jobFinished(finished)) }
    }

    /// Puts the leases of a lost worker back in the queue (or fails the jobs that used up their attempts); `death`
    /// is how the worker ended when it did not leave cleanly.
    private func requeue(_ ids: Set<Int>, reason: String, from worker: Worker, named name: String, death: String?)
        -> Int
    {
        var count = 0
        for id in ids.sorted() {
            guard let job = store.job(id), case .leased = job.state else { continue }
            if let death {
                deaths[id, default: []].append(death)
                events.append(
                    .leaseLost(
                        LostLease(
                            job: id, worker: name, how: death, outputs: job.spec.outputs, host: worker.host,
                            pid: worker.pid)))
            }
            if job.attempts >= settings.maxAttempts {
                let history = deaths[id] ?? []
                let died = history.allSatisfy { $0.hasPrefix("signal ") || $0.hasPrefix("exit status ") }
                let error =
                    history.count >= job.attempts
                    ? "worker \(died ? "died" : "lost") \(history.count) times while processing this file: \(history.joined(separator: ", "))"
                    : "failed on \(job.attempts) attempts; last: \(reason)"
                let kind = history.count >= job.attempts ? FailureKind.workerLost : lastFailure[id] ?? .workerLost
                store.fail(id, JobFailure(message: error, kind: kind))
                if let failed = store.job(id) { events.append(.jobFinished(failed)) }
            } else {
                store.requeue(id, reason: reason)
                jobsRequeued += 1
                events.append(.jobRequeued(id: id, reason: reason))
                count += 1
            }
        }
        return count
    }

    /// Hands queued jobs to workers with free credit, the freest worker first - but not to a worker whose own disk
    /// failed the job, while another worker is there.
    private func dispatch(now: Double) -> [(String, WireMessage)] {
        guard dispatching else { return [] }
        var outgoing: [(String, WireMessage)] = []
        var waiting: Set<Int> = []  // jobs left for a worker other than the ones that failed them
        while let job = store.nextQueued(excluding: waiting) {
            let avoided = avoid[job.id] ?? []
            let elsewhere = workers.keys.contains { !avoided.contains($0) }
            let free = workers.filter {
                $0.value.leased.count < $0.value.capacity && (!elsewhere || !avoided.contains($0.key))
            }
            guard
                let peer = free.max(by: {
                    ($0.value.capacity - $0.value.leased.count, $1.key) < (
                        $1.value.capacity - $1.value.leased.count, $0.key
                    )
                })?.key
            else {
                if elsewhere && workers.contains(where: { $0.value.leased.count < $0.value.capacity }) {
                    // Only avoided workers have credit now: leave this job queued, go on with the next ones.
                    waiting.insert(job.id)
                    continue
                }
                break
            }
            // Write-ahead: a lease the store could not record is not sent (the run is stopping on the failure).
            guard store.failure == nil, let attempt = store.lease(job.id, to: peer, at: now) else { break }
            workers[peer]?.leased.insert(job.id)
            events.append(.jobStarted(id: job.id, worker: peer, attempt: attempt))
            var spec = job.spec
            spec.attempt = attempt
            spec.traceparent = settings.traceparent?(job.id)
            outgoing.append((peer, .job(spec)))
        }
        return outgoing
    }
}
