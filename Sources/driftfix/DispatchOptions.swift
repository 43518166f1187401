import ArgumentParser
import DriftConfig
import DriftRun
import DriftSupport
import Foundation

/// How a command reaches its workers: local processes, or an endpoint remote workers connect to (with CURVE).
/// Shared by `repair` and `scan --content`.
struct DispatchOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help:
            "Workers to start: local processes (default: the number of cores; 0 with --bind to use only remote ones), or Slurm tasks with --launcher slurm."
    )
    var workers: Int?

    @Option(
        help: ArgumentHelp(
            "Who starts the workers: local (processes on this machine) or slurm (a job array on the cluster; needs --bind tcp://...).",
            valueName: "local|slurm"))
    var launcher: DispatchSettings.Launcher = .local

    @Option(
        name: .customLong("slurm-arg"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "An extra sbatch option for the worker array, e.g. --slurm-arg=--partition=night (repeatable; added to slurm.args).",
            valueName: "option"))
    var slurmArguments: [String] = []

    @Option(
        help: ArgumentHelp(
            "Endpoint to bind for workers, e.g. tcp://0.0.0.0:5555 (default: a private ipc:// socket).",
            valueName: "endpoint"))
    var bind: String?

    @Option(
        name: .customLong("curve-secret"),
        help: ArgumentHelp("The coordinator's secret key file (driftfix keygen): CURVE on --bind.", valueName: "file"))
    var curveSecret: String?

    @Option(
        help: ArgumentHelp(
            "Worker public keys admitted: a folder of *.pub files or a file of keys; re-read on change.",
            valueName: "path"))
    var allow: String?

    @Flag(
        name: .customLong("insecure-plaintext"),
        help: "Bind a network endpoint without CURVE: anybody who can reach it can take jobs and send results.")
    var insecurePlaintext = false

    @Option(
        name: .customLong("idle-timeout"), parsing: .unconditional,
        help: "Give up after this many seconds with unfinished jobs and no worker alive.")
    var idleTimeout: Double = 60

    @Option(
        name: .customLong("heartbeat"), parsing: .unconditional,
        help: ArgumentHelp("Heartbeat interval in seconds.", visibility: .hidden))
    var heartbeat: Double = 1

    func validate() throws {
        if let workers, workers < 0 { throw ValidationError("--workers must not be negative") }
        if (curveSecret == nil) != (allow == nil) { throw ValidationError("--curve-secret and --allow go together") }
        if workers == 0 && bind == nil {
            throw ValidationError("--workers 0 needs --bind, or no worker could ever connect")
        }
        if launcher == .slurm {
            guard let bind, bind.hasPrefix("tcp://") else {
                throw ValidationError(
                    "--launcher slurm needs --bind tcp://HOST:PORT on an address the cluster's nodes reach (tcp://0.0.0.0:5555: they are given this host's name)"
                )
            }
            guard let workers, workers > 0 else {
                throw ValidationError("--launcher slurm: say how many worker tasks to submit with --workers N")
            }
        } else if !slurmArguments.isEmpty {
            throw ValidationError("--slurm-arg goes with --launcher slurm")
        }
        guard idleTimeout > 0, heartbeat > 0 else {
            throw ValidationError("--idle-timeout and --heartbeat must be positive")
        }
    }

    /// The dispatch settings these options and the configuration give (key files checked, paths absolute).
    func settings(configuration: Configuration, configPath: String?) throws -> DispatchSettings {
        let keys = try TransportSecurity.coordinatorKeys(
            bind: bind, secret: curveSecret, allow: allow,
            configuration: configuration.security, insecure: insecurePlaintext)
        var dispatch = DispatchSettings(localWorkers: workers ?? Cores.available)
        dispatch.bind = bind
        // The night's local workers were started for these cores: a long job may borrow the others' while they idle.
        dispatch.localIdleCores = configuration.workerIdleCores ?? max(0, dispatch.localWorkers - 1)
        dispatch.launcher = launcher
        var slurm = SlurmOptions()
        slurm.sbatchArguments = configuration.slurm.arguments + slurmArguments
        slurm.logFolder = configuration.slurm.logFolder.map(Paths.absolute)
        slurm.maxResubmits = configuration.slurm.maxResubmits
        dispatch.slurm = slurm
        dispatch.curve = keys.map { (Paths.absolute($0.secret), Paths.absolute($0.allow)) }
        dispatch.insecurePlaintext = insecurePlaintext
        dispatch.idleTimeout = idleTimeout
        dispatch.heartbeat = heartbeat
        dispatch.configPath = configPath.map(Paths.absolute)
        dispatch.maxAttempts = configuration.maxAttempts
        return dispatch
    }
}

extension DispatchSettings.Launcher: ExpressibleByArgument {}
