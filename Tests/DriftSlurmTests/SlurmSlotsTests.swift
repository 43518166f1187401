import DriftCoordinator
import DriftFixtures
import DriftJobs
import DriftWire
import Testing

@testable import DriftSlurm

/// The pool's account of each task of its array, driven by the dispatcher on a clock the test moves: which worker
/// the coordinator gives up as silent, and the reason each task that ended is given, whatever the timing.
@Suite("Slurm: the pool's account of its tasks")
struct SlurmSlotsTests {
    static let array = 4711
    static let first = SlurmIdentity(job: array, task: 0, node: "n1")
    static let second = SlurmIdentity(job: array, task: 1, node: "n2")

    static func task(_ index: Int, _ state: SlurmState, job: Int = array) -> SlurmTask {
        SlurmTask(arrayJob: job, index: index, state: state, node: index == 0 ? "n1" : "n2")
    }

    static func hello(_ name: SlurmIdentity) -> WireMessage {
        .hello(WorkerHello(worker: name.description, capacity: 1, software: "driftfix", host: name.node, pid: 1))
    }

    static func jobs(_ count: Int) -> [JobRecord] {
        (1...count).map { JobRecord.headerRepair(id: $0) }
    }

    @Test(
        "a worker silent past its liveness is given up by the dispatcher's clock, not before; its task, cancelled here, ends 'cancelled here: its worker stopped answering', and one a person cancelled ends as Slurm says"
    )
    func silentWorker() throws {
        var slots = SlurmSlots(count: 2)
        for index in 0..<2 { slots.start(index, job: Self.array) }
        #expect(slots.ended(in: [Self.task(0, .running), Self.task(1, .running)]).isEmpty)
        slots.joined(Self.first)
        slots.joined(Self.second)

        // Heartbeats every second, given up after three missed: the second worker answers every tenth of a second,
        // the first never again after its hello.
        let store = InMemoryJobStore()
        store.add(Self.jobs(4))
        let dispatcher = Dispatcher(store: store)
        _ = dispatcher.received(Self.hello(Self.first), from: Self.first.description, at: 0)
        _ = dispatcher.received(Self.hello(Self.second), from: Self.second.description, at: 0)
        var silentAt: [(String, Double)] = []
        for tenth in 1...50 {
            let now = Double(tenth) / 10
            _ = dispatcher.received(.heartbeat(running: []), from: Self.second.description, at: now)
            _ = dispatcher.tick(at: now)
            for case .workerSilent(let peer) in dispatcher.drainEvents() { silentAt.append((peer, now)) }
        }
        #expect(silentAt.map(\.0) == [Self.first.description], "only the first, once")
        let when = try #require(silentAt.first?.1)
        #expect(when > 3 && when <= 3.1, "given up just past three heartbeats of silence: \(when) s")

        for (peer, _) in silentAt { slots.silent(try #require(SlurmIdentity(peer))) }
        // scancel ended the first task; a person cancelled the second.
        let ended = slots.ended(in: [Self.task(0, .cancelled), Self.task(1, .cancelled)])
        #expect(
            ended == [
                .init(index: 0, job: Self.array, node: "n1", why: SlurmSlots.silentReason, joined: true),
                .init(index: 1, job: Self.array, node: "n2", why: SlurmState.cancelled.reason, joined: true),
            ])
        #expect(SlurmSlots.silentReason == "cancelled here: its worker stopped answering")

        // The replacement in the first position is a new task: cancelled by a person, it is not taken for silent.
        slots.start(0, job: Self.array + 1)
        let replacement = slots.ended(in: [Self.task(0, .cancelled, job: Self.array + 1)])
        #expect(replacement.map(\.why) == [SlurmState.cancelled.reason])
        #expect(replacement.map(\.joined) == [false], "its worker never joined")
    }

    @Test(
        "a task seen running and then gone from the queue 'left the queue'; one never listed yet, or just started, is waited for"
    )
    func leftTheQueue() {
        var slots = SlurmSlots(count: 2)
        for index in 0..<2 { slots.start(index, job: Self.array) }
        let waiting1 = slots.waiting(in: [], at: 0, startGrace: 60)
        #expect(waiting1 == 2, "not listed yet: waiting")
        #expect(slots.ended(in: []).isEmpty, "never seen: not ended")
        #expect(slots.ended(in: [Self.task(0, .running), Self.task(1, .pending)]).isEmpty)
        let waiting2 = slots.waiting(in: [Self.task(0, .running), Self.task(1, .pending)], at: 0, startGrace: 60)
        #expect(waiting2 == 2)
        let ended = slots.ended(in: [Self.task(1, .pending)])
        #expect(ended.map(\.why) == ["left the queue"] && ended.map(\.index) == [0])
        #expect(slots.slots[0].job == nil && slots.slots[1].job == Self.array)
    }

    @Test(
        "a running task whose worker has not joined is on its way for the start grace, then not; once joined it is not waited for"
    )
    func startGrace() {
        var slots = SlurmSlots(count: 3)
        for index in 0..<3 { slots.start(index, job: Self.array) }
        let tasks = [Self.task(0, .running), Self.task(1, .running), Self.task(2, .configuring)]
        let waiting3 = slots.waiting(in: tasks, at: 100, startGrace: 30)
        #expect(waiting3 == 3, "all starting")
        let joined = slots.joined(SlurmIdentity(job: Self.array, task: 1, node: "n1"))
        #expect(joined)
        let waiting4 = slots.waiting(in: tasks, at: 110, startGrace: 30)
        #expect(waiting4 == 2, "joined: not waited for")
        let waiting5 = slots.waiting(in: tasks, at: 129.9, startGrace: 30)
        #expect(waiting5 == 2, "within the grace from its first sight")
        let waiting6 = slots.waiting(in: tasks, at: 130, startGrace: 30)
        #expect(waiting6 == 1, "past the grace: only the configuring one")
        // A replacement in the first position starts its own grace.
        slots.start(0, job: Self.array + 1)
        let replaced = [Self.task(0, .running, job: Self.array + 1), Self.task(1, .running), Self.task(2, .running)]
        let waitingReplaced = slots.waiting(in: replaced, at: 200, startGrace: 30)
        #expect(waitingReplaced == 2, "the replacement and the third, first seen running")
        let waiting7 = slots.waiting(in: replaced, at: 231, startGrace: 30)
        #expect(waiting7 == 0)
    }

    @Test(
        "a task late past the grace is told once for its wait in the queue (with Slurm's reason) and once for its start (with its node); a joined, ended or replaced one is not, and the replacement has a grace of its own"
    )
    func lateTasks() {
        var slots = SlurmSlots(count: 3)
        for index in 0..<3 { slots.start(index, job: Self.array) }
        func pending(_ index: Int, _ why: String, job: Int = Self.array) -> SlurmTask {
            SlurmTask(arrayJob: job, index: index, state: .pending, node: "", waitReason: why)
        }
        let queued = [pending(0, "Resources"), pending(1, "Priority"), pending(2, "")]
        let first = slots.overdue(in: queued, at: 100, grace: 30)
        #expect(first.isEmpty, "first seen: the grace starts")
        let within = slots.overdue(in: queued, at: 129.9, grace: 30)
        #expect(within.isEmpty, "within the grace")
        let late = slots.overdue(in: queued, at: 130, grace: 30)
        #expect(
            late == [
                .init(index: 0, job: Self.array, node: "", queued: true, waitReason: "Resources", seconds: 30),
                .init(index: 1, job: Self.array, node: "", queued: true, waitReason: "Priority", seconds: 30),
                .init(index: 2, job: Self.array, node: "", queued: true, waitReason: "", seconds: 30),
            ])
        let again = slots.overdue(in: queued, at: 500, grace: 30)
        #expect(again.isEmpty, "told once")

        // The first starts and its worker joins; the second starts and its worker does not; the third ends.
        let started = [Self.task(0, .running), Self.task(1, .running), Self.task(2, .failed)]
        let joined = slots.joined(SlurmIdentity(job: Self.array, task: 0, node: "n1"))
        #expect(joined)
        let seen = slots.overdue(in: started, at: 600, grace: 30)
        #expect(seen.isEmpty, "its start's grace begins when seen running")
        let stuck = slots.overdue(in: started, at: 645, grace: 30)
        #expect(stuck == [.init(index: 1, job: Self.array, node: "n2", queued: false, waitReason: "", seconds: 45)])
        let stuckAgain = slots.overdue(in: started, at: 700, grace: 30)
        #expect(stuckAgain.isEmpty, "told once")

        // A replacement in the second position waits and starts with graces of its own.
        slots.start(1, job: Self.array + 1)
        let replaced = [Self.task(0, .running), pending(1, "BeginTime", job: Self.array + 1)]
        let replacedFirst = slots.overdue(in: replaced, at: 800, grace: 30)
        #expect(replacedFirst.isEmpty)
        let replacedLate = slots.overdue(in: replaced, at: 830, grace: 30)
        #expect(replacedLate.map(\.waitReason) == ["BeginTime"], "the replacement's own wait")
    }
}
