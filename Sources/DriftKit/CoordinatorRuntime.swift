import DriftCoordinator
import DriftCore
import DriftJobs
import DriftSchema
import DriftSlurm
import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The coordinator's moving parts for one run, started and stopped together: its endpoint, the ZAP handler (CURVE),
/// the socket loop with its dispatcher, and the local worker processes, as services under one `ServiceGroup`. It owns
/// its endpoint: a private `ipc://` socket file is made when it starts and removed when it ends, on every path.
///
/// Jobs reach it in rounds: `submit` adds jobs to the run and returns when each one has finished (woken by the
/// dispatcher's completion events), so a run can be held open over several rounds that depend on each other (a sound
/// night's prints, then its clips); `finish` ends the run. `run(store:)` is the one-round shape of a repair.
///
/// Shutdown order (the group stops services in reverse): first the coordinator (no new jobs, running ones drain up to
/// the drain limit, every worker is told to stop), then the local worker pool (its processes exit on that message;
/// stragglers are ended), last the ZAP handler (nothing needs authenticating any more). SIGINT, SIGTERM and SIGHUP
/// start that graceful shutdown; past `drainTimeout` plus the pool's time it escalates to cancellation, which ends the
/// loop at once.
package final class CoordinatorRuntime: JobExecutor, Sendable {
    public struct Settings: Sendable {
        /// The endpoint to bind and how it is protected; nil: a private `ipc://` socket of this runtime's own.
        public var transport: TransportPolicy?
        /// The allowlist policy for a CURVE coordinator (its ZAP handler and per-message checks).
        public var admission: AdmissionPolicy?
        public var limits = CoordinatorServer.Limits()
        public var dispatch = Dispatcher.Settings()
        /// Workers the coordinator starts itself; nil for none (remote workers only).
        public var pool: PoolSettings?
        /// Signals that start a graceful shutdown (none in benchmarks and tests that stop otherwise).
        public var shutdownSignals: [UnixSignal] = [.sigterm, .sigint, .sighup]

        public init(transport: TransportPolicy? = nil) {
            self.transport = transport
        }
    }

    /// Who starts the run's own workers.
    public enum PoolSettings: Sendable {
        /// Processes on this machine.
        case local(LocalWorkerPool.Settings)
        /// Tasks of a Slurm job array, on the cluster's nodes.
        case slurm(SlurmWorkerPool.Settings)
    }

    /// How dispatch ended, and the handshakes refused along the way.
    public struct Result: Sendable {
        public var outcome: CoordinatorServer.Outcome
        public var handshakeFailures: Int
        /// Workers lost and replaced, jobs requeued.
        public var disruptions = RunDisruptions()
    }

    private let settings: Settings
    private let logger: Logger
    private let completions = JobCompletions()
    /// Set once, by `start`.
    private let started = Mutex<Started?>(nil)
    private static let sequence = Atomic<Int>(0)

    private struct Started: Sendable {
        let store: OpenJobStore
        let inbox: CoordinatorInbox
        let services: Task<Result, Error>
        /// The socket file of a private endpoint, removed at the end.
        let socketFile: String?
    }

    public init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// Binds the endpoint and starts the services; the jobs already in `store` are handed out at once.
    ///
    /// - Parameters:
    ///   - store: the jobs, where they stand: a journal's, for a night that survives a crash.
    ///   - ready: called with the bound endpoint once workers can connect.
    ///   - onEvent: every dispatch event, on the socket loop's thread.
    public func start(
        store: sending JobStore = InMemoryJobStore(), ready: (String) -> Void = { _ in },
        onEvent: @escaping @Sendable (DispatchEvent) -> Void = { _ in }
    ) throws {
        precondition(started.withLock { $0 } == nil, "a runtime runs once")
        var socketFile: String?
        let transport: TransportPolicy
        if let given = settings.transport {
            transport = given
        } else {
            let file =
                "\(FileManager.default.temporaryDirectory.path)/driftfix-\(getpid())-\(Self.sequence.add(1, ordering: .relaxed).oldValue).sock"
            socketFile = file
            transport = try TransportPolicy(binding: "ipc://\(file)")
        }
        do {
            let launched = try launch(
                transport: transport, socketFile: socketFile, store: OpenJobStore(store), ready: ready,
                onEvent: onEvent)
            started.withLock { $0 = launched }
        } catch {
            if let socketFile { PathText.withCString(socketFile, { unlink($0) }) }
            throw error
        }
    }

    /// Adds `jobs` to the run and returns them once each has finished, or as they stand when the run ended first (no
    /// worker alive, a stop).
    public func submit(_ jobs: [JobRecord]) async -> [JobRecord] {
        guard let started = started.withLock({ $0 }), !jobs.isEmpty else { return jobs }
        let token = completions.expect(Set(jobs.map(\.id)))
        for id in started.store.adding(jobs) { completions.finished(id) }
        started.inbox.post(.jobsAdded)
        await completions.wait(token)
        return jobs.map { started.store.job($0.id) ?? $0 }
    }

    /// No more jobs: waits for the run to end (every job finished, a stop, no worker alive) and shuts everything down
    /// in order; the endpoint is gone when it returns.
    public func finish() async throws -> Result {
        guard let started = started.withLock({ $0 }) else { return Result(outcome: .complete, handshakeFailures: 0) }
        started.store.close()
        started.inbox.post(.jobsAdded)
        defer { if let file = started.socketFile { PathText.withCString(file, { unlink($0) }) } }
        return try await started.services.value
    }

    /// Runs `store`'s jobs to the end (or to a stop), then shuts everything down in order.
    public func run(
        store: sending JobStore, ready: (String) -> Void = { _ in },
        onEvent: @escaping @Sendable (DispatchEvent) -> Void = { _ in }
    ) async throws -> Result {
        guard store.unfinishedCount > 0 else { return Result(outcome: .complete, handshakeFailures: 0) }
        try start(store: store, ready: ready, onEvent: onEvent)
        return try await finish()
    }

    /// The jobs of the run so far, as they stand.
    public var jobs: [JobRecord] { started.withLock { $0 }?.store.all ?? [] }

    private func launch(
        transport: TransportPolicy, socketFile: String?, store: OpenJobStore, ready: (String) -> Void,
        onEvent: @escaping @Sendable (DispatchEvent) -> Void
    ) throws -> Started {
        let context = try MessageContext()
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        // The ZAP handler must answer before a CURVE socket binds.
        if let admission = settings.admission {
            let zap = try ZapHandler(context: context, policy: admission, logger: logger)
            services.append(.init(service: zap, successTerminationBehavior: .ignore, serviceName: "zap"))
        }
        let dispatcher = Dispatcher(store: store, settings: settings.dispatch)
        let server = try CoordinatorServer(
            context: context, transport: transport, dispatcher: dispatcher, limits: settings.limits,
            admission: settings.admission, logger: logger)
        ready(server.endpoint)
        let cleaner = LeftoverCleaner(logger: logger)
        var pool: (any WorkerPool)?
        switch settings.pool {
        case .local(var local):
            local.endpoint = server.endpoint
            pool = try LocalWorkerPool(settings: local, inbox: server.inbox, logger: logger) { identity, _ in
                cleaner.exited(identity)
            }
        case .slurm(var slurm):
            slurm.endpoint = Self.reachable(server.endpoint)
            pool = try SlurmWorkerPool(settings: slurm, inbox: server.inbox, logger: logger)
        case nil:
            break
        }
        if let pool {
            services.append(.init(service: pool, successTerminationBehavior: .ignore, serviceName: "workers"))
        }
        let completions = completions
        let inbox = server.inbox
        let coordinator = try CoordinatorService(server: server) { [pool] event in
            switch event {
            // The pool learns which of its workers connected (a crash loop is workers that never do) and which stopped
            // answering (hung: ended and replaced).
            case .workerJoined(let name, _): pool?.joined(name)
            case .workerSilent(let name): pool?.silent(name)
            case .leaseLost(let lease): cleaner.lost(lease)
            default: break
            }
            onEvent(event)
            if case .jobFinished(let job) = event { completions.finished(job.id) }
        }
        let group = ServiceGroup.process(
            coordinator, named: "coordinator", helpers: services, signals: settings.shutdownSignals,
            drain: .seconds(settings.limits.drainTimeout + 30), logger: logger)
        let (logger, idleTimeout) = (logger, settings.limits.idleTimeout)
        let task = Task {
            defer {
                completions.end()
                if let socketFile { PathText.withCString(socketFile, { unlink($0) }) }
            }
            try await group.run()
            let ended = coordinator.ended
            let outcome = ended?.outcome ?? .stopped
            if case .noWorkers = outcome {
                // Every driver's one line for it; the open store counts one more while it is open.
                let unfinished = store.all.filter { !$0.isFinished }.count
                logger.error(
                    "no worker alive for \(Int(idleTimeout)) s with \(unfinished) job\(unfinished == 1 ? "" : "s") unfinished; giving up"
                )
            }
            return Result(
                outcome: outcome, handshakeFailures: ended?.handshakeFailures ?? 0,
                disruptions: RunDisruptions(
                    workersLost: ended?.workersLost ?? 0, workersRestarted: pool?.restarts ?? 0,
                    jobsRequeued: ended?.jobsRequeued ?? 0))
        }
        return Started(store: store, inbox: inbox, services: task, socketFile: socketFile)
    }

    /// The bound endpoint as other machines reach it: a wildcard address (`tcp://0.0.0.0:5555`, what ZeroMQ reports
    /// for `tcp://*:5555`) becomes this host's name.
    static func reachable(_ endpoint: String) -> String {
        for wildcard in ["tcp://0.0.0.0:", "tcp://[::]:", "tcp://*:"] where endpoint.hasPrefix(wildcard) {
            return "tcp://\(ProcessInfo.processInfo.hostName):" + endpoint.dropFirst(wildcard.count)
        }
        return endpoint
    }
}
