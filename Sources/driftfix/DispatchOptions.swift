import ArgumentParser
import DriftKit
import Foundation

/// How a command reaches its workers: local processes, or an endpoint remote workers connect to (with CURVE).
/// Shared by `repair`, `scan --content` and scans by sound. Given or not is itself a setting: a run that has no use
/// for workers refuses them rather than ignoring them.
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
        help: "Give up after this many seconds with unfinished jobs and no worker alive (default: 60).")
    var idleTimeout: Double?

    @Option(
        name: .customLong("heartbeat"), parsing: .unconditional,
        help: ArgumentHelp("Heartbeat interval in seconds.", visibility: .hidden))
    var heartbeat: Double?

    func validate() throws {
        if let workers, workers < 0 { throw ValidationError("--workers must not be negative") }
        if (curveSecret == nil) != (allow == nil) { throw ValidationError("--curve-secret and --allow go together") }
        if workers == 0 && bind == nil {
            throw ValidationError("--workers 0 needs --bind, or no worker could ever connect")
        }
        if launcher == .slurm {
            guard let bind, Endpoint.scheme(of: bind) == .tcp else {
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
        guard idleTimeout ?? 1 > 0, heartbeat ?? 1 > 0 else {
            throw ValidationError("--idle-timeout and --heartbeat must be positive")
        }
    }

    /// Whether any of these options was given.
    var given: Bool {
        workers != nil || launcher != .local || !slurmArguments.isEmpty || bind != nil || curveSecret != nil
            || allow != nil || insecurePlaintext || idleTimeout != nil || heartbeat != nil
    }

    /// The run's work when any of these options was given (nil: the run's default, workers started here).
    func work(configuration: Configuration, configPath: String?) throws -> Run.Work? {
        given ? .workers(try settings(configuration: configuration, configPath: configPath)) : nil
    }

    /// The dispatch settings these options and the configuration give (key files checked, paths absolute).
    func settings(configuration: Configuration, configPath: String?) throws -> DispatchSettings {
        let transport = try TransportSecurity.coordinator(
            bind: bind, secret: curveSecret, allow: allow, configuration: configuration.security,
            insecure: insecurePlaintext)
        var dispatch = DispatchSettings(configuration: configuration, configurationPath: configPath.map(Paths.file))
        if let workers {
            dispatch.localWorkers = workers
            dispatch.localIdleCores = configuration.workerIdleCores ?? max(0, workers - 1)
        }
        dispatch.transport = transport
        dispatch.launcher = launcher
        dispatch.slurm.sbatchArguments += slurmArguments
        dispatch.slurm.logFolder = dispatch.slurm.logFolder.map { Paths.file($0.pathText) }
        if let idleTimeout { dispatch.idleTimeout = .seconds(idleTimeout) }
        if let heartbeat { dispatch.heartbeat = .seconds(heartbeat) }
        return dispatch
    }
}

extension DispatchSettings.Launcher: ExpressibleByArgument {}
