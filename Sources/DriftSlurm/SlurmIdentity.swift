/// The name a worker started by Slurm goes by: its array job, its task and the node it runs on
/// (`slurm-4711_3@node07`), so the coordinator's log, report and metrics follow a worker back to `squeue` and
/// `scontrol show job 4711_3`. A plain (non-array) job is `slurm-4711@node07`.
public struct SlurmIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The array job (or the job, for a plain one).
    public var job: Int
    /// The task's index in the array; nil for a plain job.
    public var task: Int?
    public var node: String

    public init(job: Int, task: Int?, node: String) {
        self.job = job
        self.task = task
        self.node = node
    }

    /// The task this process runs as, from the variables Slurm sets in a job's environment; nil outside Slurm.
    public init?(environment: [String: String]) {
        let node = environment["SLURMD_NODENAME"] ?? environment["SLURM_TOPOLOGY_ADDR"]
        if let array = environment["SLURM_ARRAY_JOB_ID"].flatMap(Int.init),
            let task = environment["SLURM_ARRAY_TASK_ID"].flatMap(Int.init)
        {
            self.init(job: array, task: task, node: node ?? "")
        } else if let job = environment["SLURM_JOB_ID"].flatMap(Int.init) {
            self.init(job: job, task: nil, node: node ?? "")
        } else {
            return nil
        }
        if self.node.isEmpty { return nil }
    }

    /// Parses `description`; nil for any other name.
    public init?(_ text: String) {
        guard text.hasPrefix("slurm-"), let at = text.firstIndex(of: "@") else { return nil }
        let ids = text[text.index(text.startIndex, offsetBy: 6)..<at].split(
            separator: "_", omittingEmptySubsequences: false)
        let node = String(text[text.index(after: at)...])
        guard !node.isEmpty, let job = ids.first.flatMap({ Int($0) }) else { return nil }
        switch ids.count {
        case 1: self.init(job: job, task: nil, node: node)
        case 2:
            guard let task = Int(ids[1]) else { return nil }
            self.init(job: job, task: task, node: node)
        default: return nil
        }
    }

    /// How Slurm's own tools name the task: `4711_3` (or `4711`).
    public var jobID: String { task.map { "\(job)_\($0)" } ?? "\(job)" }

    public var description: String { "slurm-\(jobID)@\(node)" }
}

/// Jobs a worker should run at once under Slurm: the CPUs its allocation has on this node (Slurm gives one per task
/// unless asked for more with `--cpus-per-task`), not every core of a node it shares. Nil outside Slurm.
public func slurmAllocatedCPUs(environment: [String: String]) -> Int? {
    // "4", or "4(x2)" for several nodes alike: the count on each node comes first.
    if let perTask = environment["SLURM_CPUS_PER_TASK"].flatMap(Int.init), perTask > 0 { return perTask }
    guard let text = environment["SLURM_JOB_CPUS_PER_NODE"] else { return nil }
    return Int(text.prefix { $0.isNumber }).flatMap { $0 > 0 ? $0 : nil }
}
