import DriftSlurm
import Testing

@Suite("Slurm: names and the queue as squeue prints it")
struct SlurmParsingTests {
    @Test("a worker's name under Slurm: from the job's variables, printed and parsed back")
    func identity() throws {
        let array = try #require(
            SlurmIdentity(environment: [
                "SLURM_ARRAY_JOB_ID": "4711", "SLURM_ARRAY_TASK_ID": "3",
                "SLURM_JOB_ID": "4714", "SLURMD_NODENAME": "node07",
            ]))
        #expect(array.description == "slurm-4711_3@node07")
        #expect(array.jobID == "4711_3")
        #expect(SlurmIdentity("slurm-4711_3@node07") == array)
        let plain = try #require(
            SlurmIdentity(environment: ["SLURM_JOB_ID": "99", "SLURMD_NODENAME": "gpu-a.example"]))
        #expect(plain.description == "slurm-99@gpu-a.example" && SlurmIdentity(plain.description) == plain)
        #expect(SlurmIdentity(environment: ["HOME": "/root"]) == nil, "outside Slurm")
        for name in ["local-12-3", "slurm-@x", "slurm-12_@x", "slurm-1_2_3@x", "slurm-a_1@x", "slurm-4711_3@"] {
            #expect(SlurmIdentity(name) == nil, "\(name)")
        }
    }

    @Test("the CPUs of a task's allocation: --cpus-per-task first, then the node's count")
    func allocatedCPUs() {
        #expect(slurmAllocatedCPUs(environment: ["SLURM_CPUS_PER_TASK": "4", "SLURM_JOB_CPUS_PER_NODE": "8"]) == 4)
        #expect(slurmAllocatedCPUs(environment: ["SLURM_JOB_CPUS_PER_NODE": "2(x3)"]) == 2)
        #expect(slurmAllocatedCPUs(environment: ["SLURM_JOB_CPUS_PER_NODE": "16"]) == 16)
        #expect(slurmAllocatedCPUs(environment: [:]) == nil)
    }

    @Test("squeue lines: array tasks with their state, node and why they wait; other jobs and junk skipped")
    func queue() {
        let output = """
            4711|0|RUNNING|node07|None
            4711|1|PENDING||ReqNodeNotAvail, UnavailableNodes:n[1-2]
            4712|1|NODE_FAIL|node03|NodeDown
            4713|N/A|RUNNING|node01|None
            garbage
            4714|2|CANCELLED|node02
            4715|0|PENDING||odd|reason

            """
        let tasks = SlurmTask.parse(output)
        #expect(
            tasks == [
                SlurmTask(arrayJob: 4711, index: 0, state: .running, node: "node07"),
                SlurmTask(
                    arrayJob: 4711, index: 1, state: .pending, node: "",
                    waitReason: "ReqNodeNotAvail, UnavailableNodes:n[1-2]"),
                SlurmTask(arrayJob: 4712, index: 1, state: .nodeFail, node: "node03", waitReason: "NodeDown"),
                SlurmTask(arrayJob: 4714, index: 2, state: .cancelled, node: "node02"),
                SlurmTask(arrayJob: 4715, index: 0, state: .pending, node: "", waitReason: "odd|reason"),
            ])
        #expect(tasks.map(\.state.isFinished) == [false, false, true, true, false])
        #expect(SlurmTask.squeueFormat.hasSuffix("|%r"), "the reason last: it may hold spaces and commas")
        #expect(
            SlurmState("PREEMPTED").isFinished && SlurmState("TIMEOUT").isFinished && !SlurmState("REQUEUED").isFinished
        )
        #expect(SlurmState("NODE_FAIL").reason == "its node failed")
    }
}
