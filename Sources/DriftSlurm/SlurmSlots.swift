/// The positions of a worker array and what became of each task: the pool's bookkeeping, with no queue, clock or
/// lock of its own, so its rules (and the reason it gives for each task that ended) are tested directly.
struct SlurmSlots {
    /// One position of the array: the job that currently runs it.
    struct Slot {
        var job: Int?
        var node = ""
        var seen = false
        var joined = false
        /// When the queue first showed the task running (its worker then still starting): seconds on the pool's
        /// monotonic clock.
        var runningSince: Double?
        /// When the queue first showed it waiting (pending, configuring, requeued), on the same clock.
        var queuedSince: Double?
        /// Whether its long wait in the queue, and its worker's long start, were told (once each).
        var queuedTold = false
        var startTold = false
        /// Cancelled by this coordinator because its worker stopped answering (not by a person).
        var cancelledAsSilent = false
    }

    /// A task that ended: its position, its job, where it ran, why it ended and whether its worker had joined.
    struct Ended: Equatable {
        var index: Int
        var job: Int
        var node: String
        var why: String
        var joined: Bool
    }

    /// A task that has taken longer than the grace to bring its worker: still waiting in the queue (with Slurm's
    /// reason), or running with a worker that has not connected (a node that cannot reach the coordinator, a worker
    /// stuck before its first message).
    struct Overdue: Equatable {
        var index: Int
        var job: Int
        /// Where it runs; empty while queued.
        var node: String
        var queued: Bool
        /// Slurm's, while queued; empty when it gives none.
        var waitReason: String
        /// How long it has waited or been starting, in whole seconds.
        var seconds: Int
    }

    /// Why a task this coordinator cancelled for its silent worker ended.
    static let silentReason = "cancelled here: its worker stopped answering"

    var slots: [Slot]

    init(count: Int) { slots = Array(repeating: Slot(), count: count) }

    /// Position `index` is run by `job` from now on (the array's first submission, or a replacement): nothing of the
    /// task before it carries over.
    mutating func start(_ index: Int, job: Int) { slots[index] = Slot(job: job) }

    /// The worker of `name` joined the run; false when `name` is not a task of this array now.
    @discardableResult
    mutating func joined(_ name: SlurmIdentity) -> Bool {
        guard let index = name.task, slots.indices.contains(index), slots[index].job == name.job else { return false }
        slots[index].joined = true
        slots[index].node = name.node
        return true
    }

    /// The worker of `name` stopped answering and its task is being cancelled here: when the queue shows it
    /// cancelled, that is why.
    mutating func silent(_ name: SlurmIdentity) {
        guard let index = name.task, slots.indices.contains(index), slots[index].job == name.job else { return }
        slots[index].cancelledAsSilent = true
    }

    /// One look at the queue's `tasks`: each position whose task ended or left the queue after it was seen, with
    /// why; its position is then free for a replacement.
    mutating func ended(in tasks: [SlurmTask]) -> [Ended] {
        var ended: [Ended] = []
        for index in slots.indices {
            guard let job = slots[index].job else { continue }
            let task = current(index, in: tasks)
            if let task, !task.node.isEmpty { slots[index].node = task.node }
            if let task, !task.state.isFinished {
                slots[index].seen = true
                continue
            }
            // Gone from the queue (purged) after it was seen, or listed as ended.
            guard let task else {
                if slots[index].seen {
                    ended.append(
                        Ended(
                            index: index, job: job, node: slots[index].node, why: "left the queue",
                            joined: slots[index].joined))
                    slots[index].job = nil
                }
                continue
            }
            let why = task.state == .cancelled && slots[index].cancelledAsSilent ? Self.silentReason : task.state.reason
            ended.append(Ended(index: index, job: job, node: slots[index].node, why: why, joined: slots[index].joined))
            slots[index].job = nil
            slots[index].cancelledAsSilent = false
        }
        return ended
    }

    /// Positions whose worker is on its way: the task waits for a node (or is not listed yet), or it runs and its
    /// worker has not joined for less than `startGrace` seconds (a loaded node takes seconds to start a process; a
    /// worker that never connects is not waited for past the grace).
    mutating func waiting(in tasks: [SlurmTask], at now: Double, startGrace: Double) -> Int {
        var count = 0
        for index in slots.indices {
            guard slots[index].job != nil else { continue }
            guard let task = current(index, in: tasks) else {
                count += 1
                continue
            }
            if task.state.isQueued {
                count += 1
            } else if !task.state.isFinished && !slots[index].joined {
                let since = slots[index].runningSince ?? now
                slots[index].runningSince = since
                if now - since < startGrace { count += 1 }
            }
        }
        return count
    }

    /// Tasks waiting in the queue, or running without their worker, for `grace` seconds or more at `now`: each told
    /// once for its wait in the queue and once for its start, so a night's log says why its workers are late without
    /// repeating itself every look.
    mutating func overdue(in tasks: [SlurmTask], at now: Double, grace: Double) -> [Overdue] {
        var found: [Overdue] = []
        for index in slots.indices {
            guard let job = slots[index].job, !slots[index].joined, let task = current(index, in: tasks),
                !task.state.isFinished
            else { continue }
            let queued = task.state.isQueued
            let since: Double
            if queued {
                since = slots[index].queuedSince ?? now
                slots[index].queuedSince = since
                if slots[index].queuedTold { continue }
            } else {
                since = slots[index].runningSince ?? now
                slots[index].runningSince = since
                if slots[index].startTold { continue }
            }
            guard now - since >= grace else { continue }
            if queued { slots[index].queuedTold = true } else { slots[index].startTold = true }
            found.append(
                Overdue(
                    index: index, job: job, node: queued ? "" : task.node, queued: queued,
                    waitReason: queued ? task.waitReason : "", seconds: Int(now - since)))
        }
        return found
    }

    /// The queue's line for position `index`'s current job; nil while the queue does not list it.
    private func current(_ index: Int, in tasks: [SlurmTask]) -> SlurmTask? {
        guard let job = slots[index].job else { return nil }
        return tasks.first { $0.arrayJob == job && $0.index == index }
    }
}
