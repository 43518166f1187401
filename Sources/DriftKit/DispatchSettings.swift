import DriftConfig
import DriftCoordinator
import DriftSlurm
import DriftSupport
import DriftTransport
import Foundation
import Logging
import UnixSignals

import struct SystemPackage.FilePath

/// How a run reaches its workers: local processes it starts, an endpoint remote ones connect to, CURVE, the
/// timeouts. Shared by `repair` and `scan --content`, which both hand jobs to workers.
public struct DispatchSettings: Sendable {
    /// Who starts the run's own workers.
    public enum Launcher: String, Sendable, CaseIterable {
        /// Processes on this machine.
        case local
        /// A Slurm job array on the cluster's nodes (the endpoint must be one they reach).
        case slurm
    }

    /// Workers to start (0: remote workers only): local processes, or Slurm tasks.
    public var localWorkers: Int
    public var launcher = Launcher.local
    /// For `.slurm`: extra sbatch options, the tasks' log folder, how many ended tasks are replaced.
    public var slurm = SlurmOptions()
    /// The endpoint to bind and how it is protected (CURVE, or plaintext acknowledged on the network); nil: a
    /// private ipc:// socket.
    public var transport: TransportPolicy?
    /// The endpoint workers are given; nil: a private ipc:// socket.
    public var bind: String? { transport?.endpoint }
    /// How long a run with unfinished jobs and no worker alive waits before giving up.
    public var idleTimeout: Duration = .seconds(60)
    /// Between heartbeats each way.
    public var heartbeat: Duration = .seconds(1)
    /// How long running jobs may take to finish after a stop request.
    public var drainTimeout: Duration = .seconds(30)
    /// The executable local workers run.
    public var workerExecutable = LocalWorkerPool.currentExecutable
    public var shutdownSignals: [UnixSignal] = [.sigterm, .sigint, .sighup]
    /// The configuration file, handed on to local workers.
    public var configurationPath: FilePath?
    /// How many times a job is leased before it fails.
    public var maxAttempts = 3
    /// Cores beyond its own a local worker's long job may borrow while no job holds them (nil: the worker's default).
    public var localIdleCores: Int?

    public init(localWorkers: Int) {
        self.localWorkers = localWorkers
    }

    /// What a run uses when asked for nothing else: a local worker per core, the configuration's Slurm options,
    /// idle cores and attempts, and its file handed on to the workers.
    public init(configuration: Configuration, configurationPath: FilePath?) {
        localWorkers = Cores.available
        // The night's local workers were started for these cores: a long job may borrow the others' while they idle.
        localIdleCores = configuration.workerIdleCores ?? max(0, localWorkers - 1)
        slurm.sbatchArguments = configuration.slurm.arguments
        slurm.logFolder = configuration.slurm.logFolder
        slurm.maxResubmits = configuration.slurm.maxResubmits
        slurm.startGrace = configuration.slurm.startGrace
        self.configurationPath = configurationPath
        maxAttempts = configuration.maxAttempts
    }

    /// The coordinator's endpoint, security and local workers for a run over `roots` writing below `outputRoot` (nil
    /// for measure-only runs, whose workers write nothing).
    func runtime(roots: [String], outputRoot: String?, logger: Logger) throws(RunError) -> CoordinatorRuntime.Settings {
        var runtime = CoordinatorRuntime.Settings(transport: transport)
        runtime.limits.idleTimeout = idleTimeout.seconds
        runtime.limits.drainTimeout = drainTimeout.seconds
        runtime.dispatch.heartbeatInterval = heartbeat.seconds
        runtime.dispatch.maxAttempts = maxAttempts
        runtime.shutdownSignals = shutdownSignals
        var passThrough = ["--heartbeat", "\(heartbeat.seconds)"]
        if let outputRoot { passThrough += ["--output-root", outputRoot] }
        passThrough += roots.flatMap { ["--input-root", $0] }
        if let configurationPath { passThrough += ["--config", configurationPath.pathText] }
        switch transport?.protection {
        case .curveServer(let keys, let secretKeyFile, let allowlist):
            // Local workers use the coordinator's own key pair, which is therefore admitted too.
            let policy = AdmissionPolicy(allowlist: allowlist, alsoAllow: [keys.publicKey])
            guard policy.exists else { throw .security("\(allowlist): no such allowlist file or folder") }
            if let problem = policy.unsafePermissions { throw .security("allowlist: \(problem)") }
            for problem in policy.problems { logger.warning("allowlist: \(problem)") }
            logger.notice("CURVE on \(bind ?? "ipc://"): \(policy.count) worker keys admitted from \(allowlist)")
            runtime.admission = policy
            passThrough += ["--curve-secret", secretKeyFile, "--server-key", secretKeyFile]
        case .insecurePlaintext:
            passThrough.append("--insecure-plaintext")
            logger.warning("\(bind ?? "") is bound WITHOUT authentication or encryption (plaintext acknowledged)")
        case .localOnly, .curveClient, nil:
            break
        }
        guard localWorkers > 0 else { return runtime }
        switch launcher {
        case .local:
            // The endpoint is the one the runtime binds (set when it starts).
            var pool = LocalWorkerPool.Settings(
                count: localWorkers, endpoint: bind ?? "", executable: workerExecutable,
                extraArguments: passThrough)
            pool.idleCores = localIdleCores
            runtime.pool = .local(pool)
        case .slurm:
            var pool = SlurmWorkerPool.Settings(
                count: localWorkers, endpoint: bind ?? "", executable: workerExecutable,
                extraArguments: passThrough)
            pool.sbatchArguments = slurm.sbatchArguments
            pool.logFolder = slurm.logFolder?.pathText
            pool.maxResubmits = slurm.maxResubmits
            pool.startGrace = slurm.startGrace.seconds
            runtime.pool = .slurm(pool)
        }
        return runtime
    }
}

/// The Slurm launcher's options (`--slurm-arg`, the config's `slurm:` section).
public struct SlurmOptions: Sendable {
    public var sbatchArguments: [String] = []
    /// Where the tasks' logs go (nil: sbatch's default, the submitting folder).
    public var logFolder: FilePath?
    public var maxResubmits = 8
    /// How long a task may wait in the queue, or run without its worker connecting, before the log says why.
    public var startGrace: Duration = .seconds(60)

    public init() {}
}
