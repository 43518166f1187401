import DriftAudio
import DriftSupport
import DriftTransport
import DriftWorker
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// One `driftfix worker`: the composition root of the worker side. Its loop runs as a service under a
/// `ServiceGroup`: SIGINT, SIGTERM and SIGHUP let running jobs finish, then the worker says goodbye and exits.
public struct WorkerRun {
    public struct Settings: Sendable {
        public var node: WorkerNode.Settings
        /// Stop when this process is no longer the parent (a coordinator's local worker).
        public var parent: Int32?
        public var shutdownSignals: [UnixSignal] = [.sigterm, .sigint, .sighup]
        /// How long running jobs may take after a stop, seconds, before the worker quits anyway.
        public var drainTimeout: Double = 3600

        public init(node: WorkerNode.Settings) {
            self.node = node
        }
    }

    private let settings: Settings
    private let logger: Logger

    public init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// Works until told to stop; returns the number of jobs completed.
    public func run() async throws -> Int {
        Failpoint.hit("worker-start")  // the crash-loop test: every worker dies before it connects
        let context = try MessageContext()
        let node = try WorkerNode(context: context, settings: settings.node, logger: logger)
        let service = try WorkerService(node: node, parent: settings.parent)
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup,
                             failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "worker")],
            gracefulShutdownSignals: settings.shutdownSignals, logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(settings.drainTimeout)
        logger.info("worker \(settings.node.identity) connecting to \(settings.node.endpoint) with capacity \(settings.node.capacity)")
        defer {
            // Jobs abandoned by a cancellation must not leave their temporary files behind.
            StagedOutput.removeAllPending()
        }
        try await ServiceGroup(configuration: configuration).run()
        return service.completed
    }
}
