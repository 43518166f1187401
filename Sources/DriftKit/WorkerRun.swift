import DriftSupport
import DriftTrace
import DriftTransport
import DriftWire
import DriftWorker
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

#if LiveMetrics
    import DriftMetrics
#endif

/// One `driftfix worker`: the composition root of the worker side. Its loop runs as a service under a
/// `ServiceGroup`: SIGINT, SIGTERM and SIGHUP let running jobs finish, then the worker says goodbye and exits.
public struct WorkerRun {
    public struct Settings: Sendable {
        public var node: WorkerNode.Settings
        /// Stop when this process is no longer the parent (a coordinator's local worker).
        public var parent: Int32?
        public var shutdownSignals: [UnixSignal] = [.sigterm, .sigint, .sighup]
        /// How long running jobs may take after a stop before the worker quits anyway.
        public var drainTimeout: Duration = .seconds(3600)
        /// Where to serve live metrics (`/metrics`, `/healthz`); nil: nowhere.
        public var metricsAddress: MetricsAddress?
        /// Where this worker's spans go; nil: not traced.
        public var tracing: TraceSettings?

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
        Traces.start(settings.tracing, role: "worker", instance: settings.node.identity, logger: logger)
        defer { Traces.shutdown() }
        let context = try MessageContext()
        var nodeSettings = settings.node
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let address = settings.metricsAddress {
            try serveMetrics(at: address, node: &nodeSettings, services: &services)
        }
        let node = try WorkerNode(context: context, settings: nodeSettings, logger: logger)
        let service = try WorkerService(node: node, parent: settings.parent)
        let group = ServiceGroup.process(
            service, named: "worker", helpers: services, signals: settings.shutdownSignals,
            drain: settings.drainTimeout, logger: logger)
        logger.info(
            "worker \(settings.node.identity) connecting to \(settings.node.endpoint) with capacity \(settings.node.capacity)"
        )
        try await group.run()
        return service.completed
    }

    /// The worker's `/metrics` listener, fed by the worker loop's reports (refused when this build has none).
    private func serveMetrics(
        at address: MetricsAddress, node: inout WorkerNode.Settings,
        services: inout [ServiceGroupConfiguration.ServiceConfiguration]
    ) throws {
        #if LiveMetrics
            let metrics = WorkerMetrics()
            node.observer = MetricsObserver(metrics: metrics)
            let server = try MetricsServer(address: address, logger: logger) {
                metrics.spans(Traces.spanCounts)
                return metrics.render()
            }
            services.append(
                .init(
                    service: server, successTerminationBehavior: .ignore,
                    failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "metrics"))
        #else
            throw MetricsError.notBuilt(address)
        #endif
    }
}

#if LiveMetrics
    /// The worker loop's reports, counted for `/metrics`.
    private struct MetricsObserver: WorkerObserver {
        let metrics: WorkerMetrics

        func jobStarted(_ job: JobSpec) { metrics.started() }
        func jobFinished(_ result: JobResult) {
            switch result.outcome {
            case .repaired(let output), .decided(_, output: let output?):
                metrics.finished(outputFrames: output.frames, failure: nil)
            case .decided, .heard: metrics.finished(outputFrames: nil, failure: nil)
            case .failed(let failure): metrics.finished(outputFrames: nil, failure: failure.kind)
            }
        }
        func coordinator(connected: Bool) { metrics.coordinator(connected: connected) }
    }
#endif
