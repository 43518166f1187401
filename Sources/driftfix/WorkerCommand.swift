import ArgumentParser
import DriftKit
import Foundation
import Logging

/// `driftfix worker`: connect to a coordinator and run repair jobs until told to stop.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run repair jobs for a coordinator (driftfix repair --bind ...).",
        discussion: """
            Reconnects with back-off when the coordinator is gone. Without --persistent it exits when its coordinator's \
            run ends; with it, it waits for the next run, night after night. SIGINT/SIGTERM drain it: no new job is \
            taken, running jobs finish or, after --drain-timeout, are handed back to the coordinator; then it exits 0.
            """
    )

    @OptionGroup
    var liveMetrics: MetricsServingOptions<WorkerCommand>

    @Flag(help: "Serve night after night: the end of a run does not end the worker (for systemd, Kubernetes, compose).")
    var persistent = false

    @Option(
        name: .customLong("drain-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds running jobs may take to finish after SIGTERM before they are handed back.", valueName: "seconds"))
    var drainTimeout: Double = 25

    @Option(help: ArgumentHelp("Coordinator endpoint, e.g. tcp://coordinator:5555.", valueName: "endpoint"))
    var connect: String

    @Option(parsing: .unconditional, help: "Jobs run at once (default: the number of cores).")
    var concurrency: Int?

    @Option(
        name: .customLong("idle-cores"), parsing: .unconditional,
        help:
            "Cores beyond its own a long resample may borrow while no driftfix job on this host holds them (default: worker.idle-cores, else the concurrency less one)."
    )
    var idleCores: Int?

    @Option(help: "Name announced to the coordinator (default: host-pid).")
    var identity: String?

    @Option(
        help: ArgumentHelp("Configuration file (worker path map); default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    @Option(
        name: .customLong("heartbeat"), parsing: .unconditional,
        help: ArgumentHelp("Heartbeat interval in seconds.", visibility: .hidden))
    var heartbeat: Double = 1

    @Option(
        name: .customLong("max-backoff"), parsing: .unconditional,
        help: ArgumentHelp("Longest wait between reconnects, seconds.", visibility: .hidden))
    var maxBackoff: Double = 32

    @Option(
        name: .customLong("curve-secret"),
        help: ArgumentHelp("This worker's secret key file (driftfix keygen).", valueName: "file"))
    var curveSecret: String?

    @Option(
        name: .customLong("server-key"),
        help: ArgumentHelp("The coordinator's public key file (its NAME.pub).", valueName: "file"))
    var serverKey: String?

    @Flag(name: .customLong("insecure-plaintext"), help: "Connect to a network endpoint without CURVE.")
    var insecurePlaintext = false

    @Option(
        name: .customLong("input-root"),
        help: ArgumentHelp(
            "A folder jobs may read (repeatable; default: the coordinator's roots in each job, after the path map).",
            valueName: "dir"))
    var inputRoots: [String] = []

    @Option(
        name: .customLong("output-root"),
        help: ArgumentHelp("The folder jobs may write into (default: the job's, after the path map).", valueName: "dir")
    )
    var outputRoot: String?

    /// Set by a coordinator's local worker pool: stop (finishing running jobs) when that process is gone, so a
    /// crashed coordinator leaves no orphan workers behind.
    @Option(help: ArgumentHelp("Stop when the process with this pid is no longer our parent.", visibility: .hidden))
    var parent: Int32?

    func validate() throws {
        if let concurrency, !(1...256).contains(concurrency) { throw ValidationError("--concurrency must be 1...256") }
        if let idleCores, !(0...1024).contains(idleCores) { throw ValidationError("--idle-cores must be 0...1024") }
        if !(drainTimeout >= 0) { throw ValidationError("--drain-timeout must be 0 or more seconds") }
        _ = try liveMetrics.address()
        if (curveSecret == nil) != (serverKey == nil) {
            throw ValidationError("--curve-secret and --server-key go together")
        }
    }

    func run() async throws {
        let logger = Logger(label: "driftfix.worker")
        let configuration = try loadConfiguration(config)
        var launch = WorkerLaunch(
            transport: try TransportSecurity.worker(
                connect: connect, secret: curveSecret, serverKey: serverKey, configuration: configuration.security,
                insecure: insecurePlaintext))
        launch.concurrency = concurrency
        launch.identity = identity
        launch.heartbeat = .seconds(heartbeat)
        launch.maxBackoff = .seconds(maxBackoff)
        launch.persistent = persistent
        launch.drainTimeout = .seconds(drainTimeout)
        launch.idleCores = idleCores
        launch.inputRoots = inputRoots.map(Paths.file)
        launch.outputRoot = outputRoot.map(Paths.file)
        launch.parent = parent
        launch.metricsAddress = try liveMetrics.address()
        if launch.transport.protection == .insecurePlaintext {
            logger.warning("connecting to \(connect) WITHOUT authentication or encryption (--insecure-plaintext)")
        }
        let (settings, name) = launch.settings(
            configuration: configuration, environment: ProcessInfo.processInfo.environment)
        let signals = SecondSignal()
        // Jobs abandoned by a cancellation must not leave their temporary files behind. The process owns that list,
        // so the process clears it: a library run in a shared process (the tests) must not clear other work's files.
        defer { PendingOutputs.removeAll() }
        let completed: Int
        do {
            completed = try await WorkerRun(settings: settings, logger: logger).run()
        } catch let refused as WorkerSetupError {
            throw TransportSecurity.worded(refused)
        }
        _ = signals
        logger.info("worker \(name) done after \(completed) jobs")
    }
}

extension WorkerCommand: ServesMetrics {
    static let metricsAddressHelp =
        "Serve live metrics at http://ADDRESS/metrics (and /healthz): PORT (loopback) or HOST:PORT."
}
