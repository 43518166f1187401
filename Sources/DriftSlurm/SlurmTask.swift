import Foundation

/// A job's state as Slurm names it (`squeue --format=%T`).
public enum SlurmState: Sendable, Equatable {
    case pending, configuring, running, completing, suspended, requeued, resizing, stopped
    case completed, cancelled, failed, timeout, nodeFail, preempted, outOfMemory, bootFail, deadline
    case other(String)

    public init(_ text: String) {
        switch text.uppercased() {
        case "PENDING": self = .pending
        case "CONFIGURING": self = .configuring
        case "RUNNING": self = .running
        case "COMPLETING": self = .completing
        case "SUSPENDED": self = .suspended
        case "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD": self = .requeued
        case "RESIZING": self = .resizing
        case "STOPPED": self = .stopped
        case "COMPLETED": self = .completed
        case "CANCELLED": self = .cancelled
        case "FAILED": self = .failed
        case "TIMEOUT": self = .timeout
        case "NODE_FAIL": self = .nodeFail
        case "PREEMPTED": self = .preempted
        case "OUT_OF_MEMORY": self = .outOfMemory
        case "BOOT_FAIL": self = .bootFail
        case "DEADLINE": self = .deadline
        default: self = .other(text)
        }
    }

    /// Whether the task has ended for good (it will not run again by itself).
    public var isFinished: Bool {
        switch self {
        case .completed, .cancelled, .failed, .timeout, .nodeFail, .preempted, .outOfMemory, .bootFail, .deadline: true
        case .other(let text): ["SPECIAL_EXIT", "REVOKED"].contains(text.uppercased())
        default: false
        }
    }

    /// Whether it waits for a node: queued, requeued, or its node still being readied.
    public var isQueued: Bool {
        switch self {
        case .pending, .configuring, .requeued: true
        default: false
        }
    }

    /// What ended it, in words for the log.
    public var reason: String {
        switch self {
        case .completed: "its worker exited"
        case .cancelled: "cancelled (scancel, or an administrator)"
        case .failed: "failed (its worker exited with an error)"
        case .timeout: "reached its time limit"
        case .nodeFail: "its node failed"
        case .preempted: "preempted"
        case .outOfMemory: "out of memory"
        case .bootFail: "its node failed to boot"
        case .deadline: "reached its deadline"
        case .other(let text): text.lowercased()
        default: "still queued or running"
        }
    }
}

/// One task of a worker array as `squeue` lists it.
public struct SlurmTask: Sendable, Equatable {
    /// The array job it belongs to and its index there.
    public var arrayJob: Int
    public var index: Int
    public var state: SlurmState
    /// The node it runs (or ran) on; empty while pending.
    public var node: String
    /// Why Slurm keeps it queued (`Resources`, `Priority`, `BeginTime`, `ReqNodeNotAvail, ...`); empty when Slurm
    /// gives none (`None`: not looked at yet, or not waiting).
    public var waitReason: String

    public init(arrayJob: Int, index: Int, state: SlurmState, node: String, waitReason: String = "") {
        self.arrayJob = arrayJob
        self.index = index
        self.state = state
        self.node = node
        self.waitReason = waitReason
    }

    /// The `squeue --format` that `parse` reads: array job, task index, state, node, and why it waits. The reason
    /// comes last: it is the one field that may hold a comma or a space.
    public static let squeueFormat = "%F|%K|%T|%N|%r"

    /// The tasks in `squeue --noheader --array --format=squeueFormat` output; lines of other jobs (no array index) and
    /// anything unreadable are skipped.
    public static func parse(_ output: String) -> [SlurmTask] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard fields.count >= 4, let job = Int(fields[0]), let index = Int(fields[1]) else { return nil }
            // A reason holding "|" is split by it too: whatever follows the node is the reason.
            let reason = fields.dropFirst(4).joined(separator: "|")
            return SlurmTask(
                arrayJob: job, index: index, state: SlurmState(fields[2]), node: fields[3],
                waitReason: reason == "None" ? "" : reason)
        }
    }
}
