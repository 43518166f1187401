import DriftCore
import DriftRules
import DriftSchema
import Foundation
import Yams

public import struct SystemPackage.FilePath

/// Everything `config/driftfix.yaml` can set. Every key is optional; missing keys keep the defaults.
public struct Configuration: Sendable, Equatable {
    /// How lengths are repaired: default method, quality, per-path rules.
    public var repair = RepairPolicy()
    /// How many times a job is leased before it is failed (`repair.max-attempts`): a worker that dies running it,
    /// or a retryable failure, uses one.
    public var maxAttempts = 3
    /// Which files the scan looks at and how it pairs them.
    public var pairing = PairingRules()
    /// Tolerance and limits for measuring drift and planning.
    public var drift = DriftPolicy()
    /// Which measurement plans repairs: headers, content (the sound), or both.
    public var content = ContentPolicy()
    /// Worker side: coordinator path prefix → this machine's prefix, where shared storage is mounted elsewhere.
    public var pathMapping: [PathMapping] = []
    /// The run journal, drift history and nightly metrics.
    public var journal = JournalSettings()
    /// OpenTelemetry traces (off unless enabled here or by the standard `OTEL_*` variables).
    public var tracing = TracingSettings()
    /// CURVE key files for network endpoints.
    public var security = SecuritySettings()
    /// `driftfix process`: the output's file type and sample encoding, when not OUT's extension and the input's.
    public var process = ProcessSettings()
    /// The Slurm launcher (`repair --launcher slurm`): extra sbatch options, the tasks' log folder, resubmits.
    public var slurm = SlurmSettings()
    /// Worker side: the folders its jobs may read, and the folder they may write into (this machine's paths).
    public var workerInputRoots: [FilePath] = []
    public var workerOutputRoot: FilePath?
    /// Cores beyond its own a worker's long job may borrow while no job holds them; nil: the concurrency less one.
    public var workerIdleCores: Int?
    /// The path map as (from, to) pairs.
    public var pathMap: [(String, String)] { pathMapping.map { ($0.from, $0.to) } }

    public init(
        repair: RepairPolicy = RepairPolicy(), pairing: PairingRules = PairingRules(),
        drift: DriftPolicy = DriftPolicy()
    ) {
        self.repair = repair
        self.pairing = pairing
        self.drift = drift
    }

    /// Reads and validates the YAML file at `path`.
    ///
    /// - Throws: `ConfigurationError` with the line and key at fault: unreadable file, YAML syntax, unknown key,
    ///   wrong type or an invalid value.
    public static func load(path: FilePath) throws(ConfigurationError) -> Configuration {
        guard let data = PathText.contents(of: path.pathText) else {
            let exists = path.withPlatformString { access($0, F_OK) == 0 }
            throw ConfigurationError(
                path: path, line: nil, key: nil, message: exists ? "cannot be read" : "no such file")
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    /// Parses YAML text; `path` names it in errors.
    public static func parse(_ yaml: String, path: FilePath) throws(ConfigurationError) -> Configuration {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw ConfigurationError(
                path: path, line: YamlLocation.line(of: error), key: nil,
                message: "YAML syntax: \(YamlLocation.problem(of: error))")
        } catch {
            throw ConfigurationError(path: path, line: nil, key: nil, message: "YAML syntax: \(error)")
        }
        var configuration = Configuration()
        guard let root else { return configuration }  // an empty file: all defaults
        let reader = NodeReader(path: path)
        let top = try reader.mapping(root, key: "")
        for (key, value) in top {
            switch key.name {
            case "repair": try reader.repairSection(value, key: "repair", into: &configuration)
            case "scan": configuration.pairing = try reader.pairingRules(value, key: "scan")
            case "drift": configuration.drift = try reader.driftPolicy(value, key: "drift")
            case "worker": try reader.workerSection(value, key: "worker", into: &configuration)
            case "journal": try reader.journalSection(value, key: "journal", into: &configuration.journal)
            case "metrics": try reader.metricsSection(value, key: "metrics", into: &configuration.journal)
            case "security": configuration.security = try reader.securitySection(value, key: "security")
            case "slurm": configuration.slurm = try reader.slurmSection(value, key: "slurm")
            case "process": configuration.process = try reader.processSection(value, key: "process")
            case "content": configuration.content = try reader.contentSection(value, key: "content")
            case "tracing": configuration.tracing = try reader.tracingSection(value, key: "tracing")
            default:
                throw reader.unknown(
                    key, in: "",
                    allowed: [
                        "repair", "scan", "drift", "content", "worker", "journal", "metrics",
                        "security", "slurm", "process", "tracing",
                    ])
            }
        }
        return configuration
    }
}

/// Where the coordinator keeps its journal, how much history reports show, and where metrics go.
public struct JournalSettings: Sendable, Equatable {
    /// The journal file; nil: `OUTPUT_ROOT/.driftfix/journal.sqlite`.
    public var path: FilePath?
    /// Runs shown in the drift history (report trend chart, `driftfix history`).
    public var historyRuns = 10
    /// A device or file is flagged when its latest drift moved more than this from the median of its earlier runs.
    public var alertPPM = 20.0
    /// A device is flagged when the spread between its recordings (interquartile range) grew by more than this over
    /// the median of its earlier runs' spreads.
    public var alertSpreadPPM = 10.0
    /// A device is flagged when the median sync at its recordings' first frames (by their sound) is further than this
    /// from zero in the latest run, ms: a recorder started late or early. Nil: never (the default), for that is an
    /// operator's habit, not a clock fault.
    package var alertStartMs: Double?
    /// Finished runs whose plans and job rows are kept (older ones keep only their drift samples).
    public var keepRuns = 3

    /// The start alert's threshold (`alertStartMs` in the YAML); nil: never.
    public var alertStart: Duration? {
        get { Duration(milliseconds: alertStartMs) }
        set { alertStartMs = newValue?.inMilliseconds }
    }

    /// The alert rule these settings describe.
    public var alertRule: AlertRule { AlertRule(driftPPM: alertPPM, spreadPPM: alertSpreadPPM, startMs: alertStartMs) }
    /// The Prometheus text file written after each run; nil: none.
    public var metricsFile: FilePath?
    /// Devices with series of their own in the metrics at most (alerting and worst first): a cap on label
    /// cardinality for the metrics store.
    public var metricsDeviceLimit = 100

    public init() {}
}

/// What `driftfix process` writes when its options do not say: `--format` and `--encoding` take precedence.
public struct ProcessSettings: Sendable, Equatable {
    /// The file type to write whatever OUT's extension; nil: OUT's extension decides (or the input's, without one).
    public var format: FileType?
    /// The sample encoding; nil: the input's wherever the container holds it.
    public var encoding: SampleEncoding?

    public init() {}
}

/// CURVE key files, used on endpoints reachable from the network (command-line options take precedence).
public struct SecuritySettings: Sendable, Equatable {
    /// This process's secret key file (coordinator or worker).
    public var secretKey: FilePath?
    /// Coordinator: the worker public keys admitted (a folder of *.pub files or a file of keys).
    public var allow: FilePath?
    /// Worker: the coordinator's public key file.
    public var serverKey: FilePath?

    public init() {}
}

/// How `--launcher slurm` submits the workers (`slurm:` in the config; `--slurm-arg` adds to `args`).
public struct SlurmSettings: Sendable, Equatable {
    /// Extra `sbatch` options, e.g. `--partition=night`, `--time=8:00:00`, `--cpus-per-task=4`.
    public var arguments: [String] = []
    /// A folder every node can write (shared) for each task's output; nil: the output is dropped.
    public var logFolder: FilePath?
    /// Tasks submitted again in place of ended ones, at most, per run.
    public var maxResubmits = 8
    /// How long a task may wait in the queue, or run without its worker connecting, before the log says why (and,
    /// running, before the idle timeout stops waiting for it).
    public var startGrace: Duration = .seconds(60)

    public init() {}
}

/// One path-map entry: a prefix as the coordinator sees it, and the same place on this machine.
public struct PathMapping: Sendable, Equatable {
    public var from: String
    public var to: String
    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}

/// Where a YAML syntax error is.
enum YamlLocation {
    static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return mark.line
        case .duplicatedKeysInMapping(_, let context):
            return context.mark.line
        default:
            return nil
        }
    }

    static func problem(of error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _):
            return problem
        case .duplicatedKeysInMapping(let duplicates, _):
            return "duplicate key " + duplicates.map { "'\($0)'" }.joined(separator: ", ")
        default:
            return "\(error)"
        }
    }
}
