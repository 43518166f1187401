import ArgumentParser
import DriftConfig
import DriftCoordinator
import DriftCore
import DriftJournal
import DriftMedia
import DriftReports
import DriftAudio
import DriftSchema
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
            With no --bind, it starts --workers local worker processes (default: one per core) and talks to them \
            over ipc://. With --bind tcp://HOST:PORT it waits for workers started elsewhere with \
            `driftfix worker --connect tcp://HOST:PORT` (use --workers 0, or also start some locally); a network endpoint \
            needs CURVE keys (--curve-secret and --allow, see `driftfix keygen`) or --insecure-plaintext. Outputs mirror \
            the input tree under --out; originals are never modified; in-sync pairs are skipped and refused pairs \
            reported, not touched. SIGINT/SIGTERM stop dispatch, let running jobs finish (bounded) and write the \
            report. Exit code 0 when every pair was repaired, unchanged or skipped, 1 otherwise, 2 for usage errors.

            Every run is recorded in a journal (default OUT/.driftfix/journal.sqlite), each job state before it is \
            acted upon. If a run did not finish (crash, reboot, SIGTERM, no workers), the next `driftfix repair` over \
            the same roots resumes it: verified work is kept, jobs out on lease run again. A pair whose recording, \
            reference, plan and verified output are unchanged since an earlier run is not repaired again (outcome \
            `unchanged`); --full redoes everything. See also `driftfix history`.
            """
    )

    @Argument(help: "Folders to scan and repair.")
    var roots: [String]

    @Option(help: ArgumentHelp("Output root: repaired files mirror the input tree here.", valueName: "dir"))
    var out: String

    @Option(parsing: .unconditional, help: "Local worker processes to start (default: the number of cores; 0 with --bind to use only remote ones).")
    var workers: Int?

    @Option(help: ArgumentHelp("Endpoint to bind for workers, e.g. tcp://0.0.0.0:5555 (default: a private ipc:// socket).", valueName: "endpoint"))
    var bind: String?

    @Option(help: ArgumentHelp("Write report.json, report.csv and report.html here.", valueName: "dir"))
    var report: String?

    @Option(help: ArgumentHelp("Configuration file; default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    @Option(help: "Resampler quality (default: the config's, else medium).")
    var quality: ResampleQuality?

    @Option(name: .customLong("idle-timeout"), parsing: .unconditional, help: "Give up after this many seconds with unfinished jobs and no worker alive.")
    var idleTimeout: Double = 60

    @Option(help: ArgumentHelp("Run journal (default: the config's journal.path, else OUT/.driftfix/journal.sqlite).", valueName: "file"))
    var journal: String?

    @Flag(inversion: .prefixedNo, help: "Resume the unfinished run over these roots (default: resume when there is one; --resume fails when there is none; --no-resume starts afresh).")
    var resume: Bool?

    @Flag(help: "Repair every drifted pair, even those whose output from an earlier run is still current.")
    var full = false

    @Option(help: ArgumentHelp("Write Prometheus metrics here after the run (default: the config's metrics.textfile).", valueName: "file"))
    var metrics: String?

    @Option(name: .customLong("curve-secret"), help: ArgumentHelp("The coordinator's secret key file (driftfix keygen): CURVE on --bind.", valueName: "file"))
    var curveSecret: String?

    @Option(help: ArgumentHelp("Worker public keys admitted: a folder of *.pub files or a file of keys; re-read on change.", valueName: "path"))
    var allow: String?

    @Flag(name: .customLong("insecure-plaintext"), help: "Bind a network endpoint without CURVE: anybody who can reach it can take jobs and send results.")
    var insecurePlaintext = false

    @Option(name: .customLong("heartbeat"), parsing: .unconditional, help: ArgumentHelp("Heartbeat interval in seconds.", visibility: .hidden))
    var heartbeat: Double = 1

    func validate() throws {
        if let workers, workers < 0 { throw ValidationError("--workers must not be negative") }
        if (curveSecret == nil) != (allow == nil) { throw ValidationError("--curve-secret and --allow go together") }
        if workers == 0 && bind == nil { throw ValidationError("--workers 0 needs --bind, or no worker could ever connect") }
        guard idleTimeout > 0, heartbeat > 0 else { throw ValidationError("--idle-timeout and --heartbeat must be positive") }
    }

    func run() throws {
        let logger = Logger(label: "driftfix.repair")
        let configuration = try loadConfiguration(config)
        let keys = try TransportSecurity.coordinatorKeys(bind: bind, secret: curveSecret, allow: allow,
                                                         configuration: configuration.security, insecure: insecurePlaintext)
        let stop = StopSignal()
        let absolute = roots.map(Self.absolute)
        let outRoot = Self.absolute(out)
        let journalPath = Self.absolute(journal ?? configuration.journal.path ?? Journal.defaultPath(outputRoot: outRoot))
        if resume == true && !FileManager.default.fileExists(atPath: journalPath) {
            throw failure("nothing to resume: there is no journal at \(journalPath)")
        }
        // Checked on the real paths (links resolved) and before anything is created: a refused run leaves no trace.
        let realOut = Self.resolved(outRoot)
        if let inside = absolute.first(where: { Self.isInside(realOut, Self.resolved($0)) }) {
            throw ValidationError("--out \(out) lies inside the root \(inside): repaired files would be scanned as recordings")
        }
        if let root = absolute.first(where: { Self.isInside(Self.resolved($0), realOut) }) {
            throw ValidationError("the root \(root) lies inside --out \(out): repaired files could land on recordings")
        }
        do {
            try FileManager.default.createDirectory(atPath: outRoot, withIntermediateDirectories: true)
        } catch {
            throw failure("\(out): cannot create the output root (\(error.localizedDescription))")
        }

        let started = Date()
        let metricsFile = metrics ?? configuration.journal.metricsFile
        let runJournal: Journal
        var plan: RunPlan
        do {
            runJournal = try Journal(path: journalPath)
            // Before any job runs: the temporary files of workers that died with an earlier run (all at once: power
            // loss, the OOM killer, a container killed) are deleted, or they would stay in the tree forever.
            let swept = StaleTemporaryFiles.sweep(root: outRoot, otherHostsBefore: try runJournal.oldestOpenLease())
            if !swept.removed.isEmpty {
                logger.notice("removed \(swept.removed.count) temporary file\(swept.removed.count == 1 ? "" : "s") left under \(outRoot) by driftfix processes that no longer run")
            }
            for path in swept.kept { logger.info("\(path): kept: its writer may still be running") }
            for (path, reason) in swept.failed { logger.warning("\(path): cannot remove this leftover temporary file (\(reason))") }
            plan = try RunPlan.prepare(journal: runJournal, options: RunPlan.Options(
                roots: absolute, outputRoot: outRoot, configuration: configuration,
                quality: quality ?? configuration.repair.quality, resume: resume, full: full), logger: logger)
        } catch let error as JournalError {
            // The nightly job failed before it began: the metrics must say so (the last success stays as it was).
            if let metricsFile {
                try? RunMetrics.failedBeforeStart(started: started, previous: metricsFile).write(to: metricsFile)
            }
            throw failure(error.description)
        }
        let jobs = plan.jobs
        let store = JournalJobStore(journal: runJournal, run: plan.run, jobs: jobs, prints: plan.prints)
        var settings = Dispatcher.Settings()
        settings.heartbeatInterval = heartbeat
        let dispatcher = Dispatcher(store: store, settings: settings)
        var limits = CoordinatorServer.Limits()
        limits.idleTimeout = idleTimeout
        let context = try MessageContext()
        let endpoint = bind ?? "ipc://\(FileManager.default.temporaryDirectory.path)/driftfix-\(getpid()).sock"
        var security = SocketSecurity.none
        var zap: ZapHandler?
        if let (curveSecret, allow) = keys {
            let keys = try TransportSecurity.secret(curveSecret)
            // Local workers use the coordinator's own key pair, which is therefore admitted too.
            let allowlist = KeyAllowlist(path: Self.absolute(allow), alsoAllow: [keys.publicKey])
            guard allowlist.exists else { throw failure("\(allow): no such allowlist file or folder") }
            if let problem = allowlist.unsafePermissions { throw failure("allowlist: \(problem)") }
            for problem in allowlist.problems { logger.warning("allowlist: \(problem)") }
            logger.notice("CURVE on \(endpoint): \(allowlist.count) worker keys admitted from \(allow)")
            zap = try ZapHandler(context: context, allowlist: allowlist, logger: logger)
            security = .curveServer(keys)
        } else if !Endpoint.isLocal(endpoint) {
            logger.warning("\(endpoint) is bound WITHOUT authentication or encryption (--insecure-plaintext)")
        }
        defer { zap?.stop() }
        let server = try CoordinatorServer(context: context, endpoint: endpoint, dispatcher: dispatcher, limits: limits,
                                           security: security, logger: logger)
        if case .curveServer(let own) = security, let allow = keys?.allow {
            // The socket thread's own view of the allowlist (the ZAP thread has another): revocation mid-run.
            let current = KeyAllowlist(path: Self.absolute(allow), alsoAllow: [own.publicKey], recheckInterval: 1)
            server.authorize = { current.admits($0) }
        }
        defer { if bind == nil { unlink(String(endpoint.dropFirst("ipc://".count))) } }

        var pool: LocalWorkerPool?
        if store.unfinishedCount > 0 {
            let count = workers ?? ProcessInfo.processInfo.activeProcessorCount
            if count > 0 {
                var passThrough = ["--heartbeat", "\(heartbeat)", "--parent", "\(getpid())", "--output-root", outRoot]
                passThrough += absolute.flatMap { ["--input-root", $0] }
                if let config { passThrough += ["--config", config] }
                if let curveSecret = keys?.secret {
                    passThrough += ["--curve-secret", Self.absolute(curveSecret), "--server-key", Self.absolute(curveSecret)]
                } else if insecurePlaintext {
                    passThrough.append(TransportSecurity.insecureFlag)
                }
                pool = try LocalWorkerPool(count: count, endpoint: server.endpoint, executable: LocalWorkerPool.currentExecutable,
                                           extraArguments: passThrough, logger: logger)
            }
            if bind != nil { logger.notice("waiting for workers on \(server.endpoint)") }
        }

        let progress = RepairProgress(jobs: jobs.filter { !$0.isFinished }, logger: logger)
        let outcome = store.unfinishedCount == 0 ? .complete : try server.run(shouldStop: { stop.requested }, onEvent: progress.handle)
        progress.clear()
        try server.farewell(seconds: 2)
        pool?.stop(within: 10)
        let status: RunStatus
        switch outcome {
        case .complete: status = .complete
        case .stopped:
            status = .stopped
            logger.warning("stopped before every job finished; the next run over these roots resumes")
        case .noWorkers:
            status = .noWorkers
            logger.error("no worker alive for \(Int(idleTimeout)) s with \(store.unfinishedCount) jobs unfinished; giving up (the next run resumes)")
        case .storeFailed: status = .storeFailed
        }

        var scan = plan.report
        RepairPlanner.apply(store, rows: plan.rows, to: &scan)
        let good = scan.pairs.allSatisfy { $0.outcome?.isGood ?? false } && scan.errors.isEmpty
        var journalFailure: String?
        do {
            try runJournal.finishRun(plan.run, status: status, succeeded: good, report: scan)
            do {
                try runJournal.prune(keepRuns: configuration.journal.keepRuns)
            } catch {
                logger.warning("\(error) (pruning old runs; the run itself is recorded)")
            }
            scan.history = try runJournal.history(runs: configuration.journal.historyRuns,
                                                  alertPPM: configuration.journal.alertPPM, includeFiles: false)
        } catch {
            // The outputs are fine, but the next run would resume this one: the exit code must not say all is well.
            journalFailure = error.description
            logger.error("\(error)")
        }
        for alert in scan.history?.alerts ?? [] { logger.warning("\(alert.name): \(alert.alert ?? "")") }
        print(ReportTable.render(scan, relativeTo: absolute.count == 1 ? absolute[0] : nil))
        print(outcomeLine(scan))
        fflush(nil)  // the table first, then the note on stderr
        if let report { try writeReportFolder(scan, to: report) }
        if let metricsFile {
            let lastSuccess = (try? runJournal.lastSuccess()) ?? nil
            var numbers = RunMetrics(report: scan, started: started, finished: Date(), lastSuccess: lastSuccess)
            if journalFailure != nil {
                numbers.succeeded = false
                numbers.lastSuccess = lastSuccess
            }
            do {
                try numbers.write(to: metricsFile)
            } catch {
                throw failure("\(error)")
            }
        }
        if case .storeFailed(let reason) = outcome { throw failure(reason) }
        if let journalFailure { throw failure(journalFailure) }
        if !good { throw ExitCode(ExitStatus.failure) }
    }

    private func outcomeLine(_ report: ScanReport) -> String {
        let counts = report.summary.outcomes
        return RepairOutcome.allCases.map { "\(counts[$0.rawValue] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
    }

    /// `path` with every link resolved, as far as it exists; the missing rest appended as given.
    static func resolved(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while !existing.isEmpty && existing != "/" {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                return ([String(cString: real)] + rest.reversed()).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
            }
            rest.append((existing as NSString).lastPathComponent)
            existing = (existing as NSString).deletingLastPathComponent
        }
        return path
    }

    /// Whether `path` is `root` or below it.
    static func isInside(_ path: String, _ root: String) -> Bool {
        path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
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

    @Option(parsing: .unconditional, help: "Jobs run at once (default: the number of cores).")
    var concurrency: Int?

    @Option(help: "Name announced to the coordinator (default: host-pid).")
    var identity: String?

    @Option(help: ArgumentHelp("Configuration file (worker path map); default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    @Option(name: .customLong("heartbeat"), parsing: .unconditional, help: ArgumentHelp("Heartbeat interval in seconds.", visibility: .hidden))
    var heartbeat: Double = 1

    @Option(name: .customLong("max-backoff"), parsing: .unconditional, help: ArgumentHelp("Longest wait between reconnects, seconds.", visibility: .hidden))
    var maxBackoff: Double = 32

    @Option(name: .customLong("curve-secret"), help: ArgumentHelp("This worker's secret key file (driftfix keygen).", valueName: "file"))
    var curveSecret: String?

    @Option(name: .customLong("server-key"), help: ArgumentHelp("The coordinator's public key file (its NAME.pub).", valueName: "file"))
    var serverKey: String?

    @Flag(name: .customLong("insecure-plaintext"), help: "Connect to a network endpoint without CURVE.")
    var insecurePlaintext = false

    @Option(name: .customLong("input-root"), help: ArgumentHelp("A folder jobs may read (repeatable; default: the coordinator's roots in each job, after the path map).", valueName: "dir"))
    var inputRoots: [String] = []

    @Option(name: .customLong("output-root"), help: ArgumentHelp("The folder jobs may write into (default: the job's, after the path map).", valueName: "dir"))
    var outputRoot: String?

    /// Set by a coordinator's local worker pool: stop (finishing running jobs) when that process is gone, so a
    /// crashed coordinator leaves no orphan workers behind.
    @Option(help: ArgumentHelp("Stop when the process with this pid is no longer our parent.", visibility: .hidden))
    var parent: Int32?

    func validate() throws {
        if let concurrency, !(1...256).contains(concurrency) { throw ValidationError("--concurrency must be 1...256") }
        if (curveSecret == nil) != (serverKey == nil) { throw ValidationError("--curve-secret and --server-key go together") }
    }

    func run() throws {
        let logger = Logger(label: "driftfix.worker")
        let configuration = try loadConfiguration(config)
        let keys = try TransportSecurity.workerKeys(connect: connect, secret: curveSecret, serverKey: serverKey,
                                                    configuration: configuration.security, insecure: insecurePlaintext)
        let stop = StopSignal()
        let name = identity ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        var settings = WorkerNode.Settings(
            endpoint: connect, capacity: concurrency ?? ProcessInfo.processInfo.activeProcessorCount, identity: name)
        settings.heartbeatInterval = heartbeat
        settings.initialBackoff = min(1, heartbeat)
        settings.maxBackoff = maxBackoff
        settings.pathMap = configuration.pathMap
        settings.inputRoots = (inputRoots.isEmpty ? configuration.workerInputRoots : inputRoots).map(RepairCommand.absolute)
        settings.outputRoot = (outputRoot ?? configuration.workerOutputRoot).map(RepairCommand.absolute)
        // A coordinator on the network is not trusted to say where this machine may read and write.
        if !Endpoint.isLocal(connect) && (settings.inputRoots.isEmpty || settings.outputRoot == nil) {
            throw ValidationError("""
                --connect \(connect) is on the network: give this worker its own --input-root (one per media folder) and \
                --output-root (or worker.input-roots and worker.output-root in its config); jobs outside them are refused
                """)
        }
        if keys == nil && !Endpoint.isLocal(connect) {
            logger.warning("connecting to \(connect) WITHOUT authentication or encryption (--insecure-plaintext)")
        }
        if let keys {
            settings.security = .curveClient(try TransportSecurity.secret(keys.secret), serverKey: try TransportSecurity.publicKey(keys.serverKey))
        }
        let context = try MessageContext()
        let node = try WorkerNode(context: context, settings: settings, logger: logger)
        logger.info("worker \(name) connecting to \(connect) with capacity \(settings.capacity)")
        let parent = parent
        try node.run(shouldStop: { stop.requested || (parent.map { getppid() != $0 } ?? false) })
        logger.info("worker \(name) done after \(node.completed) jobs")
    }
}
