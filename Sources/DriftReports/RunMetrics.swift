import DriftCore
import DriftSchema
import Foundation

public import struct SystemPackage.FilePath

/// The nightly run's numbers as a Prometheus text file, for node_exporter's textfile collector: written to a
/// temporary file in the same folder and renamed over the old one, so the collector never reads half a file.
public struct RunMetrics: Sendable, Equatable {
    /// When a run last ended with every pair good (this one, or an earlier one from the journal).
    public var lastSuccess: Date?
    public var started: Date
    public var finished: Date
    public var succeeded: Bool
    /// Pairs by outcome (`repaired`, `unchanged`, `skipped`, `refused`, `failed`, `unfinished`).
    public var outcomes: [RepairOutcome: Int]
    /// Seconds of recorded audio this run repaired.
    package var audioSecondsProcessed: Double
    /// Workers lost, replaced, and jobs requeued.
    public var disruptions = RunDisruptions()
    /// Every device of the run, worst first (alerting first).
    public var devices: [DeviceSummary] = []
    /// Devices with series of their own at most; the rest are counted in `driftfix_device_series_omitted`.
    public var deviceLimit = 100

    package init(
        lastSuccess: Date?, started: Date, finished: Date, succeeded: Bool, outcomes: [RepairOutcome: Int],
        audioSecondsProcessed: Double
    ) {
        self.lastSuccess = lastSuccess
        self.started = started
        self.finished = finished
        self.succeeded = succeeded
        self.outcomes = outcomes
        self.audioSecondsProcessed = audioSecondsProcessed
    }

    /// The numbers of a finished run's report.
    public init(report: ScanReport, started: Date, finished: Date, lastSuccess: Date?) {
        var outcomes: [RepairOutcome: Int] = [:]
        for pair in report.pairs { if let outcome = pair.outcome { outcomes[outcome, default: 0] += 1 } }
        let succeeded = report.isGoodRun
        self.init(
            lastSuccess: succeeded ? finished : lastSuccess, started: started, finished: finished,
            succeeded: succeeded, outcomes: outcomes,
            audioSecondsProcessed: report.pairs.filter { $0.outcome == .repaired }.compactMap(\.recordingSeconds)
                .reduce(0, +))
        disruptions = report.disruptions ?? RunDisruptions()
        devices = report.deviceSummaries()
    }

    /// A run that failed before it could start (its journal unusable): no pairs, not a success, and the last
    /// success time carried over from the metrics file it replaces.
    public static func failedBeforeStart(started: Date, previous file: FilePath) -> RunMetrics {
        failedBeforeStart(started: started, previousPathText: file.pathText)
    }

    /// The same, the metrics file given by the text of its path (`PathText`).
    package static func failedBeforeStart(started: Date, previousPathText path: String) -> RunMetrics {
        RunMetrics(
            lastSuccess: lastSuccess(inFile: path), started: started, finished: Date(), succeeded: false, outcomes: [:],
            audioSecondsProcessed: 0)
    }

    /// `driftfix_last_success_timestamp_seconds` from an existing metrics file (nil when absent or 0).
    static func lastSuccess(inFile path: String) -> Date? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("driftfix_last_success_timestamp_seconds ") {
            guard let value = Double(line.split(separator: " ").last ?? ""), value > 0 else { return nil }
            return Date(timeIntervalSince1970: value)
        }
        return nil
    }

    /// The exposition text (format 0.0.4).
    public func render() -> String {
        var lines: [String] = []
        func metric(_ name: String, _ help: String, _ type: String, _ samples: [(labels: String, value: Double)]) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            for sample in samples { lines.append("\(name)\(sample.labels) \(Self.format(sample.value))") }
        }
        metric(
            "driftfix_last_success_timestamp_seconds",
            "Unix time a repair run last ended with every pair good (0: never).",
            "gauge", [("", lastSuccess?.timeIntervalSince1970 ?? 0)])
        metric(
            "driftfix_last_run_timestamp_seconds", "Unix time the last repair run ended.", "gauge",
            [("", finished.timeIntervalSince1970)])
        metric(
            "driftfix_last_run_success", "1 if the last run ended with every pair good, else 0.", "gauge",
            [("", succeeded ? 1 : 0)])
        metric(
            "driftfix_last_run_duration_seconds", "Wall-clock seconds of the last run.", "gauge",
            [("", finished.timeIntervalSince(started))])
        metric(
            "driftfix_last_run_files", "Pairs of the last run by outcome.", "gauge",
            RepairOutcome.allCases.map { ("{outcome=\"\($0.rawValue)\"}", Double(outcomes[$0] ?? 0)) })
        metric(
            "driftfix_last_run_audio_seconds_processed", "Seconds of audio the last run repaired.", "gauge",
            [("", audioSecondsProcessed)])
        metric(
            "driftfix_last_run_workers_lost", "Workers that died, went silent or were cut off during the last run.",
            "gauge",
            [("", Double(disruptions.workersLost))])
        metric(
            "driftfix_last_run_workers_restarted",
            "Workers the run started to replace dead ones (local processes or Slurm tasks) during the last run.",
            "gauge",
            [("", Double(disruptions.workersRestarted))])
        metric(
            "driftfix_last_run_jobs_requeued", "Jobs put back in the queue during the last run.", "gauge",
            [("", Double(disruptions.jobsRequeued))])
        // Per device: the alerting and worst first, at most `deviceLimit` of them (label cardinality).
        for family in DeviceSeries.families(devices, limit: deviceLimit) {
            metric(
                family.name, family.help, "gauge",
                family.samples.map { sample in
                    let labels = sample.labels.map { "\($0.0)=\"\(Self.label($0.1))\"" }.joined(separator: ",")
                    return (labels.isEmpty ? "" : "{\(labels)}", sample.value)
                })
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes `render()` to `file` atomically (readable by the collector: mode 0644).
    public func write(to file: FilePath) throws { try write(toPathText: file.pathText) }

    /// The same, to the file whose path `path` stands for (`PathText`).
    package func write(toPathText path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary =
            (folder.isEmpty ? "." : folder) + "/." + (path as NSString).lastPathComponent + ".\(getpid()).tmp"
        let text = render()
        let descriptor = PathText.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw MetricsError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        let written = text.withCString { Glibc.write(descriptor, $0, strlen($0)) }
        let writeError = errno
        let synced = fsync(descriptor) == 0
        let syncError = errno
        close(descriptor)
        let failure: String?
        if written != text.utf8.count {
            failure = written < 0 ? String(cString: strerror(writeError)) : "short write (disk full?)"
        } else if !synced {
            failure = String(cString: strerror(syncError))
        } else if PathText.withCStrings(temporary, path, { rename($0, $1) }) != 0 {
            failure = String(cString: strerror(errno))
        } else {
            failure = nil
        }
        if let failure {
            _ = PathText.withCString(temporary, { unlink($0) })
            throw MetricsError.cannotWrite(path: path, reason: failure)
        }
    }

    /// A label value in the exposition format: backslash, double quote and line feed escaped.
    static func label(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension RunMetrics {
    /// Recorded audio this run repaired.
    public var audioProcessed: Duration { .seconds(audioSecondsProcessed) }
}
