import DriftConfig
import DriftCore
import DriftSlurm
import DriftSupport
import DriftTransport
import DriftWorker
import Foundation
import Logging

import struct SystemPackage.FilePath

/// A worker as its command line and configuration describe it. `settings(environment:)` completes it from where the
/// process runs: under Slurm the task's name (slurm-JOB_TASK@NODE) and its allocation's CPUs, not the whole node's;
/// elsewhere the host's name and every core.
public struct WorkerLaunch: Sendable {
    public var transport: TransportPolicy
    /// Jobs at once; nil: one per core of the allocation.
    public var concurrency: Int?
    /// The worker's name in logs and reports; nil: from the environment.
    public var identity: String?
    /// Between heartbeats each way.
    public var heartbeat: Duration = .seconds(1)
    /// The longest wait between attempts to reach the coordinator.
    public var maxBackoff: Duration = .seconds(32)
    public var persistent = false
    /// How long running jobs may take to finish after a stop request.
    public var drainTimeout: Duration = .seconds(25)
    /// Cores left to one job's own threads when the worker is otherwise idle; nil: the configuration's, else all
    /// but one of its slots.
    public var idleCores: Int?
    /// Absolute folders this worker may read (empty: the configuration's).
    public var inputRoots: [FilePath] = []
    /// The absolute folder it may write (nil: the configuration's).
    public var outputRoot: FilePath?
    /// Stop when this process is no longer the parent (a coordinator's local worker).
    public var parent: Int32?
    public var metricsAddress: MetricsAddress?

    public init(transport: TransportPolicy) {
        self.transport = transport
    }

    /// The worker's settings and its name. Relative roots in the configuration are taken from the working folder.
    public func settings(configuration: Configuration, environment: [String: String]) -> (WorkerRun.Settings, String) {
        let name =
            identity ?? SlurmIdentity(environment: environment)?.description
            ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        let cores = slurmAllocatedCPUs(environment: environment) ?? Cores.available
        var node = WorkerNode.Settings(transport: transport, capacity: concurrency ?? cores, identity: name)
        node.heartbeatInterval = heartbeat.seconds
        node.initialBackoff = min(1, heartbeat.seconds)
        node.maxBackoff = maxBackoff.seconds
        node.persistent = persistent
        node.drainTimeout = drainTimeout.seconds
        node.idleCores = idleCores ?? configuration.workerIdleCores ?? (node.capacity - 1)
        node.pathMap = configuration.pathMap
        node.inputRoots =
            inputRoots.isEmpty
            ? configuration.workerInputRoots.map { $0.lexicallyNormalized().pathText } : inputRoots.map(\.pathText)
        node.outputRoot =
            outputRoot?.pathText ?? configuration.workerOutputRoot.map { $0.lexicallyNormalized().pathText }
        var settings = WorkerRun.Settings(node: node)
        settings.parent = parent
        settings.metricsAddress = metricsAddress
        settings.tracing = TraceStart.settings(
            configuration.tracing, environment: environment, logger: Logger(label: "driftfix.worker"))
        // The node hands its jobs back at the drain timeout; the service group's own limit is only a backstop.
        settings.drainTimeout = drainTimeout + .seconds(5)
        return (settings, name)
    }
}
