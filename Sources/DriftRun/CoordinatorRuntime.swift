import DriftCoordinator
import DriftJobs
import DriftSchema
import DriftSlurm
import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// The coordinator's moving parts for one run, started and stopped together: the ZAP handler (CURVE), the socket
/// loop with its dispatcher, and the local worker processes, as services under one `ServiceGroup`.
///
/// Shutdown order (the group stops services in reverse): first the coordinator (no new jobs, running ones drain up to
/// the drain limit, every worker is told to stop), then the local worker pool (its processes exit on that message;
/// stragglers are ended), last the ZAP handler (nothing needs authenticating any more). SIGINT, SIGTERM and SIGHUP
/// start that graceful shutdown; past `drainTimeout` plus the pool's time it escalates to cancellation, which ends the
/// loop at once.
public struct CoordinatorRuntime {
    public struct Settings: Sendable {
        public var endpoint: String
        public var security: SocketSecurity = .none
        /// The allowlist policy for a CURVE coordinator (its ZAP handler and per-message checks).
        public var admission: AdmissionPolicy?
        public var limits = CoordinatorServer.Limits()
        public var dispatch = Dispatcher.Settings()
        /// Workers the coordinator starts itself; nil for none (remote workers only).
        public var pool: PoolSettings?
        /// Signals that start a graceful shutdown (none in benchmarks and tests that stop otherwise).
        public var shutdownSignals: [UnixSignal] = [.sigterm, .sigint, .sighup]

        public init(endpoint: String) {
            self.endpoint = endpoint
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

    public init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// Runs `store`'s jobs to the end (or to a stop), then shuts everything down in order.
    ///
    /// - Parameters:
    ///   - ready: called with the bound endpoint once workers can connect.
    ///   - onEvent: every dispatch event, on the socket loop's thread.
    public func run(
        store: JobStore, ready: (String) -> Void = { _ in },
        onEvent: @escaping @Sendable (DispatchEvent) -> Void = { _ in }
    ) async throws -> Result {
        guard store.unfinishedCount > 0 else { return Result(outcome: .complete, handshakeFailures: 0) }
        let context = try MessageContext()
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        // The ZAP handler must answer before a CURVE socket binds.
        if let admission = settings.admission {
            let zap = try ZapHandler(context: context, policy: admission, logger: logger)
            services.append(.init(service: zap, successTerminationBehavior: .ignore, serviceName: "zap"))
        }
        let dispatcher = Dispatcher(store: store, settings: settings.dispatch)
        let server = try CoordinatorServer(
            context: context, endpoint: settings.endpoint, dispatcher: dispatcher,
            limits: settings.limits, security: settings.security,
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
        }
        services.append(
            .init(
                service: coordinator, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "coordinator"))
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: settings.shutdownSignals,
            logger: logger)
        configuration.logging.keys.serviceKey = "service"
        configuration.maximumGracefulShutdownDuration = .seconds(settings.limits.drainTimeout + 30)
        try await ServiceGroup(configuration: configuration).run()
        return Result(
            outcome: coordinator.outcome ?? .stopped, handshakeFailures: server.handshakeFailures,
            disruptions: RunDisruptions(
                workersLost: dispatcher.workersLost, workersRestarted: pool?.restarts ?? 0,
                jobsRequeued: dispatcher.jobsRequeued))
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
