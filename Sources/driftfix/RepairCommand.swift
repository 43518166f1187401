import ArgumentParser
import DriftConfig
import DriftCoordinator
import DriftCore
import DriftMedia
import DriftReports
import DriftTransport
import DriftWire
import DriftWorker
import Foundation
import Logging

/// `driftfix repair`: scan, then repair every drifted pair on worker processes over ZeroMQ.
struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Scan the roots and repair every drifted recording on local or remote workers (ZeroMQ).",
        discussion: """
            With no --bind, it starts --workers local worker processes (default: one per core) and talks to them \\
            over ipc://. With --bind tcp://HOST:PORT it waits for workers started elsewhere with \\
            `driftfix worker --connect tcp://HOST:PORT` (use --workers 0, or also start some locally). Outputs mirror \\
            the input tree under --out; originals are never modified; in-sync pairs are skipped and refused pairs \\
            reported, not touched. SIGINT/SIGTERM stop dispatch, let running jobs finish (bounded) and write the \\
            report. Exit code 0 when every pair was repaired or skipped, 1 otherwise, 2 for usage errors.
            """
    )

    @Argument(help: "Folders to scan and repair.")
    var roots: [String]

    @Option(help: ArgumentHelp("Output root: repaired files mirror the input tree here.", valueName: "dir"))
    var out: String

    @Option(help: "Local worker processes to start (default: the number of cores; 0 with --bind to use only remote ones).")
    var workers: Int?

    @Option(help: ArgumentHelp("Endpoint to bind for workers, e.g. tcp://0.0.0.0:5555 (default: a private ipc:// socket).", valueName: "endpoint"))
    var bind: String?

    @Option(help: ArgumentHelp("Write report.json, report.csv and report.html here.", valueName: "dir"))
    var report: String?

    @Option(help: ArgumentHelp("Configuration file; default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    @Option(help: "Resampler quality (default: the config's, else medium).")
    var quality: ResampleQuality?

    @Option(name: .customLong("idle-timeout"), help: "Give up after this many seconds with unfinished jobs and no worker alive.")
    var idleTimeout: Double = 60

    @Option(name: .customLong("heartbeat"), help: ArgumentHelp("Heartbeat interval in seconds.", visibility: .hidden))
    var heartbeat: Double = 1

    func validate() throws {
        if let workers, workers < 0 { throw ValidationError("--workers must not be negative") }
        if workers == 0 && bind == nil { throw ValidationError("--workers 0 needs --bind, or no worker could ever connect") }
        guard idleTimeout > 0, heartbeat > 0 else { throw ValidationError("--idle-timeout and --heartbeat must be positive") }
    }

    func run() throws {
        let logger = Logger(label: "driftfix.repair")
        let configuration = try loadConfiguration(config)
        let stop = StopSignal()
        let absolute = roots.map(Self.absolute)
        let outRoot = Self.absolute(out)
        do {
            try FileManager.default.createDirectory(atPath: outRoot, withIntermediateDirectories: true)
        } catch {
            throw failure("\(out): cannot create the output root (\(error.localizedDescription))")
        }
        if let inside = absolute.first(where: { outRoot == $0 || outRoot.hasPrefix($0 + "/") }) {
            throw ValidationError("--out \(out) lies inside the root \(inside): repaired files would be scanned as recordings")
        }

        var scan = DriftScanner.scan(roots: absolute, rules: configuration.pairing, drift: configuration.drift,
                                     repair: configuration.repair)
        let (jobs, rows) = RepairPlanner.jobs(for: scan, roots: absolute, outRoot: outRoot,
                                              quality: quality ?? configuration.repair.quality)
        logger.notice("\(scan.pairs.count) pairs: \(jobs.count) to repair, \(scan.summary.inSync) in sync, \(scan.summary.refused) refused or unreadable")

        let store = InMemoryJobStore()
        store.add(jobs)
        var settings = Dispatcher.Settings()
        settings.heartbeatInterval = heartbeat
        let dispatcher = Dispatcher(store: store, settings: settings)
        var limits = CoordinatorServer.Limits()
        limits.idleTimeout = idleTimeout
        let context = try MessageContext()
        let endpoint = bind ?? "ipc://\(FileManager.default.temporaryDirectory.path)/driftfix-\(getpid()).sock"
        let server = try CoordinatorServer(context: context, endpoint: endpoint, dispatcher: dispatcher, limits: limits, logger: logger)
        defer { if bind == nil { unlink(String(endpoint.dropFirst("ipc://".count))) } }

        var pool: LocalWorkerPool?
        if !jobs.isEmpty {
            let count = workers ?? ProcessInfo.processInfo.activeProcessorCount
            if count > 0 {
                var passThrough = ["--heartbeat", "\(heartbeat)"]
                if let config { passThrough += ["--config", config] }
                pool = try LocalWorkerPool(count: count, endpoint: server.endpoint, executable: LocalWorkerPool.currentExecutable,
                                           extraArguments: passThrough, logger: logger)
            }
            if bind != nil { logger.notice("waiting for workers on \(server.endpoint)") }
        }

        let progress = RepairProgress(jobs: jobs, logger: logger)
        let outcome = jobs.isEmpty ? .complete : try server.run(shouldStop: { stop.requested }, onEvent: progress.handle)
        progress.clear()
        try server.farewell(seconds: 2)
        pool?.stop(within: 10)
        switch outcome {
        case .complete: break
        case .stopped: logger.warning("stopped before every job finished")
        case .noWorkers: logger.error("no worker alive for \(Int(idleTimeout)) s with \(store.unfinishedCount) jobs unfinished; giving up")
        }

        RepairPlanner.apply(store, rows: rows, to: &scan)
        print(ReportTable.render(scan, relativeTo: absolute.count == 1 ? absolute[0] : nil))
        print(outcomeLine(scan))
        fflush(nil)  // the table first, then the note on stderr
        if let report { try writeReportFolder(scan, to: report) }
        let good = scan.pairs.allSatisfy { $0.outcome == .repaired || $0.outcome == .skipped } && scan.errors.isEmpty
        if !good { throw ExitCode(ExitStatus.failure) }
    }

    private func outcomeLine(_ report: ScanReport) -> String {
        let counts = report.summary.outcomes
        return RepairOutcome.allCases.map { "\(counts[$0.rawValue] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
    }

    static func absolute(_ path: String) -> String {
        let standard = (path as NSString).standardizingPath
        return standard.hasPrefix("/") ? standard : ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(standard) as NSString).standardizingPath
    }
}

/// `driftfix worker`: connect to a coordinator and run repair jobs until told to stop.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run repair jobs for a coordinator (driftfix repair --bind ...).",
        discussion: "Reconnects with back-off when the coordinator is gone; SIGINT/SIGTERM finish running jobs, then exit."
    )

    @Option(help: ArgumentHelp("Coordinator endpoint, e.g. tcp://coordinator:5555.", valueName: "endpoint"))
    var connect: String

    @Option(help: "Jobs run at once (default: the number of cores).")
    var concurrency: Int?

    @Option(help: "Name announced to the coordinator (default: host-pid).")
    var identity: String?

    @Option(help: ArgumentHelp("Configuration file (worker path map); default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    @Option(name: .customLong("heartbeat"), help: ArgumentHelp("Heartbeat interval in seconds.", visibility: .hidden))
    var heartbeat: Double = 1

    @Option(name: .customLong("max-backoff"), help: ArgumentHelp("Longest wait between reconnects, seconds.", visibility: .hidden))
    var maxBackoff: Double = 32

    func validate() throws {
        if let concurrency, !(1...256).contains(concurrency) { throw ValidationError("--concurrency must be 1...256") }
    }

    func run() throws {
        let logger = Logger(label: "driftfix.worker")
        let configuration = try loadConfiguration(config)
        let stop = StopSignal()
        let name = identity ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        var settings = WorkerNode.Settings(
            endpoint: connect, capacity: concurrency ?? ProcessInfo.processInfo.activeProcessorCount, identity: name)
        settings.heartbeatInterval = heartbeat
        settings.initialBackoff = min(1, heartbeat)
        settings.maxBackoff = maxBackoff
        settings.pathMap = configuration.pathMap
        let context = try MessageContext()
        let node = try WorkerNode(context: context, settings: settings, logger: logger)
        logger.info("worker \(name) connecting to \(connect) with capacity \(settings.capacity)")
        try node.run(shouldStop: { stop.requested })
        logger.info("worker \(name) done after \(node.completed) jobs")
    }
}
