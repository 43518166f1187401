import DriftAudio
import DriftCore
import DriftSupport
import DriftTransport
import DriftWire
import Foundation
import Logging
import Synchronization

import struct SystemPackage.FilePath

/// A worker process's loop: one DEALER socket owned by the calling thread, jobs on threads of their own (at most
/// `capacity` at once), heartbeats both ways, and a fresh connection with back-off when the coordinator falls
/// silent (Paranoid Pirate). Running jobs continue across reconnects; their results are sent when the
/// coordinator is back, and it accepts them if nobody finished the job meanwhile.
public final class WorkerNode {
    public struct Settings: Sendable {
        /// The coordinator's endpoint and how the connection is protected.
        public var transport: TransportPolicy
        public var endpoint: String { transport.endpoint }
        public var capacity: Int
        public var identity: String
        public var heartbeatInterval: Double = 1
        public var liveness: Double = 3
        public var initialBackoff: Double = 1
        public var maxBackoff: Double = 32
        /// Coordinator path prefix → this machine's prefix, for shared storage mounted elsewhere.
        public var pathMap: [(String, String)] = []
        /// Folders jobs may read from, and the folder they may write into (this machine's paths, or the
        /// coordinator's, which the path map turns into this machine's; checked after the path map, links and `..`
        /// resolved). Empty / nil: the roots the coordinator names in each job, which
        /// only a coordinator on this machine may do (`WorkerNode.init` refuses a network one without both).
        public var inputRoots: [String] = []
        public var outputRoot: String?
        /// Serve night after night: a coordinator's shutdown ends its run, not this worker, which waits for the next
        /// one (reconnecting with back-off) until it is stopped.
        public var persistent = false
        /// Cores beyond its own a long job may borrow while no job on this host holds them (`CoreSlots`).
        public var idleCores = 0
        /// Once stopped, how long running jobs may take to finish before they are handed back (seconds).
        public var drainTimeout: Double = 25
        /// Told of each job as it starts and ends, and of the coordinator coming and going (metrics); on the loop
        /// thread.
        public var observer: (any WorkerObserver)?

        public init(transport: TransportPolicy, capacity: Int, identity: String) {
            self.transport = transport
            self.capacity = capacity
            self.identity = identity
        }
    }

    private let context: MessageContext
    private let settings: Settings
    private let logger: Logger
    private var socket: MessageSocket?
    private let finished = FinishedJobs()
    private var running: [Int: JobSpec] = [:]
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private let start = ContinuousClock.now
    /// When the coordinator was last heard (seconds since `start`), read by the job threads' publish fence.
    private let heard = LastHeard()
    /// Results sent on the current connection and not yet followed by a word from the coordinator: a reconnect
    /// closes the socket with whatever it still queued, so these are sent again on the new one (the coordinator
    /// ignores a copy it already has).
    private var unconfirmed: [JobResult] = []
    public private(set) var completed = 0

    /// - Throws: `WorkerSetupError` for settings no worker may run with (a coordinator on the network trusted to say
    ///   where this machine reads and writes); `WorkerError` when the process cannot set up its loop.
    public init(context: MessageContext, settings: Settings, logger: Logger) throws {
        precondition(settings.transport.role == .connect, "a worker connects to its coordinator")
        // A coordinator on the network is not trusted to say where this machine may read and write.
        if settings.transport.isNetwork && (settings.inputRoots.isEmpty || settings.outputRoot == nil) {
            throw WorkerSetupError.networkWithoutOwnRoots(settings.endpoint)
        }
        self.context = context
        self.settings = settings
        self.logger = logger
        // A pipe the job threads write a byte to, polled beside the socket, so a finished job wakes the loop at once.
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw WorkerError("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wake = (fds[0], fds[1])
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    private var now: Double {
        (ContinuousClock.now - start).seconds
    }

    private func connect() throws {
        let socket = try MessageSocket(
            context: context, kind: .dealer, maxMessageBytes: WireCodec.maxMessageBytes,
            security: settings.transport.socketSecurity)
        try socket.setIdentity(Array(settings.identity.utf8))
        try socket.connect(settings.endpoint)
        self.socket = socket
        send(
            .hello(
                WorkerHello(
                    worker: settings.identity, capacity: settings.capacity, software: "driftfix",
                    host: Machine.name, pid: getpid())))
    }

    private func send(_ message: WireMessage) {
        guard let socket else { return }
        do {
            let (frame, refused) = try Self.frame(message)
            if let refused, case .result(let result) = message {
                logger.error("job \(result.id): its result cannot be sent (\(refused)); it is reported as failed")
            }
            if try !socket.send([frame]) { logger.debug("send queue full; message dropped") }
        } catch {
            logger.error("send: \(error)")
        }
    }

    /// The message's frame; a result the wire cannot carry (a NaN in a measurement) goes as that job's failure, so
    /// the coordinator hears of it and the batch goes on (`refused` says why).
    static func frame(_ message: WireMessage) throws(WireError) -> (bytes: [UInt8], refused: WireError?) {
        do {
            return (try WireCodec.encode(message), nil)
        } catch {
            guard case .result(let result) = message else { throw error }
            var failed = result
            failed.outcome = .failed(
                JobFailure(message: "the worker's result held a value the wire cannot carry: \(error)", kind: .other))
            return (try WireCodec.encode(.result(failed)), error)
        }
    }

    /// Works until the coordinator says shutdown (a persistent worker: until `stop`), `stop` fires or the parent
    /// process `parent` is gone, and running jobs are done or the drain timeout has passed (they are then handed
    /// back); `abort` returns at once (jobs still running are abandoned).
    public func run(stop: StopEvent, abort: StopEvent? = nil, parent: Int32? = nil) throws {
        try connect()
        let firstHeard = now
        heard.heard(at: firstHeard, after: firstHeard, limit: fenceLimit)
        var state = LoopState(lastHeard: firstHeard, lastSent: now, backoff: settings.initialBackoff)
        func stopRequested() -> Bool { stop.isFired || (parent.map { getppid() != $0 } ?? false) }
        while true {
            guard let socket else { break }
            if abort?.isFired == true { return }
            let (readable, fired) = try socket.poll(
                milliseconds: 100, descriptors: [wake.read] + (state.stopping ? [] : [stop.descriptor]))
            if fired.first == true { drainWakePipe() }
            if readable { try receiveAll(from: socket, state: &state) }
            sendFinished(state: &state)
            if !state.away && now - state.lastSent >= settings.heartbeatInterval {
                send(.heartbeat(running: running.keys.sorted()))
                state.lastSent = now
            }
            if !state.stopping && stopRequested() {
                state.stopping = true
                state.drainDeadline = now + settings.drainTimeout
                logger.notice("stopping: finishing \(running.count) running jobs (at most \(settings.drainTimeout) s)")
            }
            if drained(state) {
                send(.goodbye)
                return
            }
            if state.runEnded && running.isEmpty {
                awaitNextRun(state: &state)
                continue
            }
            // Silent too long: a fresh connection (a restarted coordinator needs a new hello), then again after a
            // back-off that doubles. The new socket is polled meanwhile, so a coordinator that comes back is heard at
            // once, whatever the back-off.
            if now - state.lastHeard > settings.heartbeatInterval * settings.liveness && now >= state.nextAttempt {
                try reconnectAfterSilence(state: &state)
            }
        }
    }

    /// What `run`'s loop keeps from one turn to the next.
    private struct LoopState {
        var lastHeard: Double
        var lastSent: Double
        var backoff: Double
        var stopping = false
        var runEnded = false
        var drainDeadline: Double?
        /// Whether the coordinator is away (silent, or between runs): said once when it goes, once when it is back.
        var away = true  // until the first word from a coordinator
        var nextAttempt = 0.0
    }

    /// Takes every message the socket holds: each proves the coordinator is there; jobs start, a shutdown stops.
    private func receiveAll(from socket: MessageSocket, state: inout LoopState) throws {
        while let frames = try socket.receive() {
            heard.heard(at: now, after: state.lastHeard, limit: fenceLimit)
            state.lastHeard = now
            unconfirmed.removeAll()
            state.backoff = settings.initialBackoff
            guard frames.count == 1 else { continue }
            let message: WireMessage
            do {
                message = try WireCodec.decode(frames[0])
            } catch {
                logger.warning("dropped message from the coordinator: \(error)")
                continue
            }
            if case .shutdown = message, state.away {
                // A closing coordinator repeats its farewell to whoever speaks (our goodbye crossed it, or
                // we reached it as it closed): a worker that stays keeps waiting for the next run; it is
                // neither back nor at another run's end.
                if !settings.persistent { state.stopping = true }
                continue
            }
            if state.away {
                state.away = false
                logger.notice("connected to the coordinator at \(settings.endpoint)")
                settings.observer?.coordinator(connected: true)
            }
            switch message {
            case .job(let job): start(job, stopping: state.stopping || state.runEnded)
            case .shutdown:
                // A persistent worker ends its part in the run; any other stops.
                if !settings.persistent { state.stopping = true } else { state.runEnded = true }
            default: break
            }
        }
    }

    /// Sends the results of the jobs that finished since the last turn (kept until the coordinator speaks again).
    private func sendFinished(state: inout LoopState) {
        for result in finished.takeAll() {
            if running.removeValue(forKey: result.id) != nil { settings.observer?.jobFinished(result) }
            completed += 1
            if case .failed(let failure) = result.outcome, failure.kind == .leaseLost {
                logger.warning("job \(result.id): \(failure.message)")
            }
            send(.result(result))
            unconfirmed.append(result)
            state.lastSent = now
        }
    }

    /// Whether a stopping worker is done: its jobs finished, or the drain timeout passed (they are handed back).
    private func drained(_ state: LoopState) -> Bool {
        guard state.stopping else { return false }
        if running.isEmpty { return true }
        guard let drainDeadline = state.drainDeadline, now >= drainDeadline else { return false }
        // The coordinator requeues what a goodbye leaves leased; the abandoned jobs' temporary files are
        // unlocked when this process exits, and swept.
        logger.warning("drain timeout: handing back \(running.count) running jobs")
        return true
    }

    /// The night is over: say so, and wait for the next coordinator. The closing one is left to go (silent, it is
    /// given up like any other); then fresh connections look for the next.
    private func awaitNextRun(state: inout LoopState) {
        send(.goodbye)
        state.runEnded = false
        state.away = true
        settings.observer?.coordinator(connected: false)
        logger.notice("the run ended; waiting for the next coordinator at \(settings.endpoint)")
        state.backoff = settings.initialBackoff
    }

    /// A fresh connection to a coordinator silent too long, the next one after a back-off that doubles.
    private func reconnectAfterSilence(state: inout LoopState) throws {
        if !state.away {
            state.away = true
            settings.observer?.coordinator(connected: false)
            logger.warning(
                "coordinator at \(settings.endpoint) silent for \(Int(now - state.lastHeard)) s; reconnecting (back-off up to \(settings.maxBackoff) s)"
            )
        } else {
            logger.debug("coordinator still away; connecting again, next try in \(state.backoff) s")
        }
        try reconnect()
        state.nextAttempt = now + state.backoff
        state.backoff = min(state.backoff * 2, settings.maxBackoff)
        // Tell the coordinator what still runs here, so it does not hand those jobs out again, and what
        // ended here that it may not have heard.
        send(.heartbeat(running: running.keys.sorted()))
        for result in unconfirmed { send(.result(result)) }
        state.lastSent = now
    }

    /// A job's output is published only while this worker may still hold its lease: the coordinator gives a lease up
    /// after `liveness` heartbeat intervals without word from the worker, so a worker that has not heard the
    /// coordinator for one interval less than that (one is the margin for the heartbeats' own spacing) discards its
    /// verified output instead of renaming it over what the job's next holder may have written. Its result says so,
    /// and reaches the coordinator as a stale lease's (discarded) or, if the lease still stood, as a retryable failure.
    ///
    /// Silence is judged over the whole job, not only at the rename: a worker stopped for a while (SIGSTOP, a VM
    /// paused, swapped out) hears the coordinator's words that waited in its socket the moment it runs again, and
    /// those prove nothing about the lease. So a silence longer than the limit that ended while the job ran fences it
    /// as surely as one that goes on.
    private var fence: PublishFence {
        let (heard, start, endpoint) = (heard, start, settings.endpoint)
        let limit = fenceLimit
        let lease = settings.heartbeatInterval * settings.liveness
        let began = now
        return PublishFence {
            let (last, gap) = heard.read()
            let silent = (ContinuousClock.now - start).seconds - last
            if silent > limit {
                return
                    "the coordinator at \(endpoint) was not heard for \(Self.tenths(silent)) s (a lease is given up after \(lease) s without word), so the job may be another worker's now"
            }
            guard let gap, gap.ended > began else { return nil }
            return
                "the coordinator at \(endpoint) went unheard for \(Self.tenths(gap.length)) s while the job ran (a lease is given up after \(lease) s without word), so the job may be another worker's now"
        }
    }

    /// The longest silence a job's lease is trusted through: one heartbeat interval less than the coordinator's
    /// liveness (the margin for the heartbeats' own spacing).
    private var fenceLimit: Double { settings.heartbeatInterval * max(1, settings.liveness - 1) }

    private static func tenths(_ seconds: Double) -> Double { (seconds * 10).rounded() / 10 }

    /// A new connection in place of the old one, announced with a hello.
    private func reconnect() throws {
        socket = nil
        try connect()
    }

    private func start(_ original: JobSpec, stopping: Bool) {
        guard !stopping else { return }  // the coordinator requeues it when we say goodbye
        guard running[original.id] == nil else { return }
        let job = mapped(original)
        if case .noop = job.work {
            finished.add(JobRunner.run(job, worker: settings.identity))
            return
        }
        running[job.id] = job
        settings.observer?.jobStarted(job)
        let box = Handover(value: (job, settings.identity, settings.idleCores, finished, wake.write, fence))
        let thread = Thread {
            let (job, identity, idleCores, finished, fd, fence) = box.value
            finished.add(
                PublishFence.$current.withValue(fence) { JobRunner.run(job, worker: identity, idleCores: idleCores) })
            var byte: UInt8 = 1
            _ = write(fd, &byte, 1)
        }
        thread.name = "driftfix-job-\(job.id)"
        thread.start()
    }

    private func mapped(_ job: JobSpec) -> JobSpec {
        var copy = job
        copy.input = map(job.input)
        copy.work = job.work.mapped(map)
        // Its own roots go through the path map too: a launcher (Slurm) names them in the coordinator's paths.
        copy.outputRoot = job.outputRoot.map { settings.outputRoot.map(map) ?? map($0) }
        copy.inputRoots = settings.inputRoots.isEmpty ? job.inputRoots?.map(map) : settings.inputRoots.map(map)
        return copy
    }

    private func map(_ path: String) -> String {
        // By whole components: `/media` maps `/media/a`, never `/media2/a`.
        for (from, to) in settings.pathMap {
            if let relative = FilePath(path).relative(to: FilePath(from)) {
                return FilePath(to).pushing(relative).string
            }
        }
        return path
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &buffer, buffer.count) > 0 {}
    }
}

/// What a worker's loop reports as it goes (its metrics).
public protocol WorkerObserver: Sendable {
    func jobStarted(_ job: JobSpec)
    func jobFinished(_ result: JobResult)
    func coordinator(connected: Bool)
}

/// A worker that cannot start.
/// Settings a worker refuses to run with.
public enum WorkerSetupError: Error, Equatable, CustomStringConvertible {
    /// The coordinator is on the network and the worker has no input roots or no output root of its own.
    case networkWithoutOwnRoots(String)

    public var description: String {
        switch self {
        case .networkWithoutOwnRoots(let endpoint):
            return
                "the coordinator at \(endpoint) is on the network: this worker needs its own input roots and output root; jobs outside them are refused"
        }
    }
}

public struct WorkerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Results handed from job threads to the socket thread.
final class FinishedJobs: Sendable {
    private let results = Mutex<[JobResult]>([])

    func add(_ result: JobResult) { results.withLock { $0.append(result) } }

    func takeAll() -> [JobResult] {
        results.withLock { results in
            defer { results.removeAll() }
            return results
        }
    }
}

/// When the coordinator was last heard, and the last silence longer than the fence's limit (when it ended, how long it
/// was), shared by the loop (which writes them) and the job threads' fences.
private final class LastHeard: Sendable {
    private let state = Mutex<(last: Double, gap: (ended: Double, length: Double)?)>((0, nil))

    /// A word from the coordinator at `time`, the one before it at `previous`.
    func heard(at time: Double, after previous: Double, limit: Double) {
        state.withLock { state in
            if time - previous > limit { state.gap = (time, time - previous) }
            state.last = time
        }
    }

    func read() -> (last: Double, gap: (ended: Double, length: Double)?) { state.withLock { $0 } }
}
