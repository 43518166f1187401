import DriftKit
import Foundation
import Logging
import Synchronization

/// Progress of a run, round by round (repairs; or a sound night's prints, then its clips): a one-line bar on a terminal,
/// plain log lines otherwise.
///
/// Events arrive on the thread that saw them (the coordinator loop's, or a job thread's when the work runs on
/// threads); a lock keeps the lines whole.
final class RepairProgress: RunObserver, Sendable {
    private let lines: Mutex<ProgressLines>

    init(logger: Logger) {
        lines = Mutex(ProgressLines(logger: logger))
    }

    func event(_ event: RunEvent) {
        lines.withLock { $0.take(event) }
    }
}

/// What the progress shows and has drawn: one run's counts, the bar's width on the terminal.
private struct ProgressLines {
    private var round = RunRound.repairs
    private var total = 0
    private var totalAudio = 0.0
    private var audioByJob: [Int: Double] = [:]
    private let style = ProgressStyle.standardError
    private var terminal: Bool { style != .none }
    private var width = 0
    private let logger: Logger
    private let start = Date()
    private var done = 0
    private var failed = 0
    private var audioDone = 0.0
    private var workers = 0
    private var lastDraw = Date.distantPast

    init(logger: Logger) {
        self.logger = logger
    }

    mutating func take(_ event: RunEvent) {
        switch event {
        case .planned(let round, let jobs):
            clear()
            self.round = round
            total = jobs.count
            done = 0
            audioDone = 0
            audioByJob = Dictionary(jobs.map { ($0.id, $0.audio.inSeconds) }, uniquingKeysWith: { first, _ in first })
            totalAudio = jobs.reduce(0) { $0 + $1.audio.inSeconds }
            return
        case .finished:
            clear()
            return
        case .workerJoined(let name, let capacity):
            workers += 1
            log("worker \(name) joined (capacity \(capacity))")
        case .workerLost(let name, let requeued):
            workers -= 1
            log("worker \(name) lost; \(requeued) jobs back in the queue")
        case .jobFinished(let job):
            done += 1
            audioDone += audioByJob[job.id] ?? 0
            finished(job)
        case .jobRequeued(let id, let reason):
            log("job \(id) requeued: \(reason)")
        case .duplicateResult(let id, let worker):
            log("duplicate result for job \(id) from \(worker) ignored")
        case .staleResult(let id, let worker, let attempt, let latest):
            log(
                "late result for job \(id) from \(worker) discarded: it held lease \(attempt), lease \(latest) was given since"
            )
        case .dropped, .jobStarted, .workerSilent:
            break
        }
        draw()
    }

    /// One line for what a job came to.
    private mutating func finished(_ job: FinishedJob) {
        let timing = job.worker.map { "\($0), \(String(format: "%.2f", job.elapsed?.inSeconds ?? 0)) s" } ?? ""
        func measured(_ measurement: ContentMeasurement?) -> String {
            measurement.map { $0.isMeasured ? $0.summary : $0.reason ?? "unmeasurable" } ?? "no sound to measure"
        }
        switch job.outcome {
        case .failed(let reason, let measurement):
            failed += 1
            log(
                "FAILED \(job.input.pathText): \(reason)\(measurement.map { " [\(measured($0))]" } ?? "")",
                level: .error)
        case .repaired(let output, let frames, let method):
            log("repaired \(output.pathText) (\(frames) frames, \(method.rawValue), \(timing))")
        case .repairedBySound(let output, let frames, let measurement, let by):
            let residual =
                measurement?.residual.map { ", residual \(String(format: "%.3f", $0.inMilliseconds)) ms" } ?? ""
            log(
                "repaired \(output.pathText) by its \(by == .content ? "sound" : "headers") (\(frames) frames; \(measured(measurement))\(residual); \(timing))"
            )
        case .inSync(let reason, let measurement):
            log(
                "in sync: \(job.input.pathText) (\(reason ?? measured(measurement)); \(measured(measurement)); \(timing))"
            )
        case .refused(let reason, _):
            log("refused: \(job.input.pathText): \(reason ?? "refused") (\(timing))", level: .warning)
        case .measured(let measurement):
            log("measured \(job.input.pathText): \(measured(measurement)) (\(timing))")
        case .clipSynced(let output):
            log("synced \(job.input.pathText)\(output.map { " into \($0.pathText)" } ?? "") (\(timing))")
        case .printed:
            logger.debug("printed \(job.input.pathText)")
        case .nothing:
            break
        }
    }

    private mutating func log(_ line: String, level: Logger.Level = .notice) {
        if terminal {
            if level >= .warning {
                clear()
                FileHandle.standardError.write(Data("driftfix: \(line.escapedForTerminal)\n".utf8))
            }
        } else {
            logger.log(level: level, "\(line.escapedForTerminal)")
        }
    }

    private mutating func draw() {
        guard terminal, Date().timeIntervalSince(lastDraw) > 0.1 || done == total else { return }
        lastDraw = Date()
        let elapsed = max(Date().timeIntervalSince(start), 0.001)
        let speed = audioDone / elapsed
        let eta = speed > 0 ? (totalAudio - audioDone) / speed : 0
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let filled = Int(fraction * 24)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 24 - filled)
        let line =
            "\(round.rawValue) [\(bar)] \(done)/\(total) files  "
            + String(
                format: "%.2f/%.2f h audio  %.0fx realtime  ETA %.0f s", audioDone / 3600, totalAudio / 3600, speed, eta
            )
            + "  workers \(workers)  failed \(failed)"
        FileHandle.standardError.write(Data(style.redraw(line, previousWidth: width).utf8))
        width = line.count
    }

    mutating func clear() {
        guard width > 0 else { return }
        FileHandle.standardError.write(Data(style.erase(width: width).utf8))
        width = 0
    }
}
