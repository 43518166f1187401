import DriftCore
import DriftSchema
import DriftWire
import Foundation

/// Turns a scan into jobs and, once the run ends, folds the job outcomes back into the report.
public enum RepairPlanner {
    /// The output path for `recording`: its path below its root, mirrored under `outRoot` (below the root's own
    /// name when several roots are given, so identical relative paths cannot collide).
    public static func outputPath(for recording: String, roots: [String], outRoot: String) -> String? {
        let candidates = roots.filter { recording.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
        guard let root = candidates.max(by: { $0.count < $1.count }) else { return nil }
        let relative = String(recording.dropFirst(root.count).drop { $0 == "/" })
        let prefix = roots.count > 1 ? "/" + (root as NSString).lastPathComponent : ""
        return outRoot + prefix + "/" + relative
    }

    /// Jobs for every pair to resample or stretch, with the row each job belongs to.
    public static func jobs(for report: ScanReport, roots: [String], outRoot: String, quality: ResampleQuality, run: Int64? = nil)
        -> (jobs: [JobRecord], rows: [Int: Int])
    {
        var jobs: [JobRecord] = []
        var rows: [Int: Int] = [:]
        for (index, row) in report.pairs.enumerated() where row.action == .resample || row.action == .stretch {
            guard let target = row.targetFrames, let method = row.method,
                  let output = outputPath(for: row.recording, roots: roots, outRoot: outRoot) else { continue }
            let id = jobs.count + 1
            var job = JobRecord(
                id: id, input: row.recording, output: output, outputRoot: outRoot, targetFrames: target, method: method,
                methodReason: row.methodReason ?? "", quality: quality, audioSeconds: row.recordingSeconds ?? 0, run: run)
            job.spec.inputRoots = roots
            jobs.append(job)
            rows[id] = index
        }
        return (jobs, rows)
    }

    /// Fills each row's outcome from the job store (skipped and refused rows need no job; rows already marked
    /// `unchanged` by an incremental run keep it).
    public static func apply(_ store: JobStore, rows: [Int: Int], to report: inout ScanReport) {
        for index in report.pairs.indices {
            switch report.pairs[index].action {
            case .skip: report.pairs[index].outcome = .skipped
            case .refuse: report.pairs[index].outcome = .refused
            case .resample, .stretch:
                if report.pairs[index].outcome != .unchanged { report.pairs[index].outcome = .unfinished }
            }
        }
        for job in store.all {
            guard let index = rows[job.id] else { continue }
            report.pairs[index].output = job.output
            report.pairs[index].attempts = job.attempts
            switch job.state {
            case .done(let result):
                report.pairs[index].outcome = .repaired
                report.pairs[index].error = nil  // a note left by an earlier, interrupted attempt
                report.pairs[index].outputFrames = result.outputFrames
                report.pairs[index].checksum = result.checksum
                report.pairs[index].worker = result.worker
                report.pairs[index].processingSeconds = result.seconds
            case .failed(let error):
                report.pairs[index].outcome = .failed
                report.pairs[index].error = error
            case .queued, .leased:
                report.pairs[index].outcome = .unfinished
                report.pairs[index].error = job.lastError.map { "unfinished; last: \($0)" } ?? "unfinished"
            }
        }
        report.refreshSummary()
    }
}
