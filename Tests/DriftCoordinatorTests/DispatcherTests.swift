import DriftCore
import DriftFixtures
import DriftJobs
import DriftWire
import Testing

@testable import DriftCoordinator

private func jobs(_ seconds: [Double]) -> [JobRecord] {
    seconds.enumerated().map { index, length in JobRecord.headerRepair(id: index + 1, audioSeconds: length) }
}

/// A dispatcher and its store, queued with a header repair for each of `seconds` (its audio's length; ids from 1).
private func dispatcher(_ seconds: [Double], settings: Dispatcher.Settings = Dispatcher.Settings()) -> (
    Dispatcher, InMemoryJobStore
) {
    let store = InMemoryJobStore()
    store.add(jobs(seconds))
    return (Dispatcher(store: store, settings: settings), store)
}

private func hello(_ name: String, _ capacity: Int) -> WireMessage {
    .hello(WorkerHello(worker: name, capacity: capacity, software: "driftfix", host: "h", pid: 1))
}

private func jobsSent(_ messages: [(String, WireMessage)]) -> [(String, JobSpec)] {
    messages.compactMap { peer, message in
        if case .job(let spec) = message { return (peer, spec) }
        return nil
    }
}

private func success(_ spec: JobSpec, _ worker: String) -> WireMessage {
    .result(
        JobResult(
            id: spec.id, attempt: spec.attempt, worker: worker, seconds: 0.1,
            outcome: .repaired(WrittenOutput(frames: 48_000, checksum: "c"))))
}

/// Worker a's result for attempt `attempt` of job `id`: failed with `kind`, said as `message` (the kind's name if nil).
private func failed(_ id: Int, _ attempt: Int, _ kind: FailureKind, _ message: String? = nil) -> WireMessage {
    .result(
        JobResult(
            id: id, attempt: attempt, worker: "a", seconds: 0,
            outcome: .failed(JobFailure(message: message ?? "\(kind)", kind: kind))))
}

@Suite("Dispatcher")
struct DispatcherTests {
    @Test("never more jobs than a worker's capacity; longest first")
    func credits() {
        let (d, _) = dispatcher([10, 300, 20, 3600, 5])
        let first = jobsSent(d.received(hello("a", 2), from: "a", at: 0))
        #expect(first.map(\.1.id) == [4, 2], "the two longest go first")
        #expect(jobsSent(d.tick(at: 0.5)).isEmpty, "no credit left")
        let second = jobsSent(d.received(success(first[0].1, "a"), from: "a", at: 1))
        #expect(second.map(\.1.id) == [3])
        #expect(d.leasedJobs == 2)
    }

    @Test("a silent worker is presumed dead: its jobs go back to the queue and to another worker")
    func deadWorker() {
        let (d, _) = dispatcher([10, 10])
        let sent = jobsSent(d.received(hello("a", 2), from: "a", at: 0))
        #expect(sent.count == 2)
        _ = d.received(hello("b", 1), from: "b", at: 1)
        _ = d.received(.heartbeat(running: []), from: "b", at: 3)
        // a has been silent for 3.5 s > 3 × 1 s.
        let resent = jobsSent(d.tick(at: 3.5))
        #expect(resent.count == 1 && resent[0].0 == "b" && resent[0].1.attempt == 2)
        #expect(d.drainEvents().contains(.workerLost("a", requeued: 2)))
    }

    @Test(
        "a result from an older lease is stale and discarded, before and after the newer lease reports, and said once however often it comes; a duplicate of the newest is ignored"
    )
    func staleAndDuplicate() {
        let (d, store) = dispatcher([10])
        let original = jobsSent(d.received(hello("a", 1), from: "a", at: 0))[0].1
        _ = d.received(hello("b", 1), from: "b", at: 2)
        _ = d.received(.heartbeat(running: []), from: "b", at: 3.4)
        let retry = jobsSent(d.tick(at: 3.5))[0].1
        #expect(retry.attempt == 2)
        // a was cut off past its lease: its result, arriving while b works, is stale.
        _ = d.received(hello("a", 1), from: "a", at: 4)
        _ = d.received(success(original, "a"), from: "a", at: 4)
        #expect(d.drainEvents().contains(.staleResult(id: 1, worker: "a", attempt: 1, latest: 2)))
        guard case .leased(let holder, let attempt, _)? = store.job(1)?.state else {
            Issue.record("the job no longer leased to b: \(String(describing: store.job(1)?.state))")
            return
        }
        #expect(holder == "b" && attempt == 2)
        _ = d.received(success(retry, "b"), from: "b", at: 5)
        #expect(
            store.job(1).map { if case .done(let r) = $0.state { return r.worker == "b" } else { return false } }
                == true)
        #expect(d.drainEvents().contains { if case .jobFinished = $0 { return true } else { return false } })
        // After b is done: a's result again (a worker resends what it is not sure arrived) is still discarded, and
        // not said again; b's again is a duplicate; the record is b's, once.
        _ = d.received(success(original, "a"), from: "a", at: 6)
        _ = d.received(success(retry, "b"), from: "b", at: 6)
        let events = d.drainEvents()
        #expect(!events.contains { if case .staleResult = $0 { return true } else { return false } }, "\(events)")
        #expect(events.contains(.duplicateResult(id: 1, worker: "b")))
        #expect(
            store.job(1).map { if case .done(let r) = $0.state { return r.worker == "b" } else { return false } }
                == true)
        #expect(!events.contains { if case .jobFinished = $0 { return true } else { return false } })
        #expect(d.isComplete && d.leasedJobs == 0)
    }

    @Test("a job requeued but not leased again takes the late result of its last lease (nobody else holds it)")
    func lateWithoutNewerLease() {
        let (d, store) = dispatcher([10])
        let original = jobsSent(d.received(hello("a", 1), from: "a", at: 0))[0].1
        // a falls silent; no other worker: the job goes back to the queue, still at attempt 1.
        _ = d.tick(at: 3.5)
        _ = d.received(success(original, "a"), from: "a", at: 4)
        #expect(
            store.job(1).map { if case .done(let r) = $0.state { return r.worker == "a" } else { return false } }
                == true)
    }

    @Test("failures: permanent at once, retryable up to the attempt limit")
    func failures() {
        let (d, store) = dispatcher([10, 20])
        var sent = jobsSent(d.received(hello("a", 1), from: "a", at: 0))
        #expect(sent[0].1.id == 2)
        sent = jobsSent(d.received(failed(2, 1, .inputUnreadable, "corrupt"), from: "a", at: 1))
        #expect(store.job(2)?.failed?.message == "corrupt")
        for attempt in 1...3 {
            #expect(sent.count == 1 && sent[0].1.id == 1 && sent[0].1.attempt == attempt)
            sent = jobsSent(
                d.received(failed(1, attempt, .outputFull, "disk full"), from: "a", at: Double(attempt + 1)))
        }
        #expect(store.job(1)?.failed?.message == "disk full")
        // The kind reaches the record (a worker that names none is read at the wire: WireCodecTests.flatResults).
        #expect(store.job(2)?.failed?.kind == .inputUnreadable && store.job(1)?.failed?.kind == .outputFull)
        #expect(d.isComplete)
    }

    @Test(
        "the retry rule reads the failure's kind: only a destination or a fenced output is tried again; the kind reaches the record"
    )
    func failureKinds() {
        let (d, store) = dispatcher([10, 20, 30])
        var sent = jobsSent(d.received(hello("a", 1), from: "a", at: 0))
        #expect(sent.map(\.1.id) == [3])
        sent = jobsSent(d.received(failed(3, 1, .outOfSync), from: "a", at: 1))
        #expect(store.job(3)?.isFinished == true && store.job(3)?.failed?.kind == .outOfSync)
        #expect(sent.map(\.1.id) == [2])
        // A full destination is tried again (here on the only worker) until the attempts run out.
        var now = 2.0
        while let (_, spec) = sent.first {
            now += 1
            sent = jobsSent(
                d.received(spec.id == 2 ? failed(2, spec.attempt, .outputFull) : success(spec, "a"), from: "a", at: now)
            )
        }
        #expect(d.isComplete)
        #expect(
            store.job(2)?.failed?.kind == .outputFull && store.job(2)?.attempts == 3,
            "\(String(describing: store.job(2)))")
        #expect(FailureKind.allCases.filter(\.retryable) == [.outputFull, .outputUnwritable, .leaseLost])
    }

    @Test("a job a worker no longer lists is requeued; goodbye requeues; strangers are dropped")
    func reconcileAndGoodbye() {
        let (d, store) = dispatcher([10, 20])
        _ = d.received(hello("a", 2), from: "a", at: 0)
        // At 3 s, a reports running only job 2: job 1 (leased at 0) was lost.
        let after = jobsSent(d.received(.heartbeat(running: [2]), from: "a", at: 2.5))
        #expect(after.map(\.1.id) == [1] && after[0].1.attempt == 2)
        _ = d.received(.goodbye, from: "a", at: 3)
        #expect(d.liveWorkers == 0 && store.nextQueued() != nil)
        _ = d.received(.heartbeat(running: []), from: "stranger", at: 4)
        #expect(
            d.drainEvents().contains {
                if case .dropped(let peer, _) = $0 { return peer == "stranger" } else { return false }
            })
    }

    @Test("a worker known dead gives its jobs back at once, names where its temporary file may be, and is counted")
    func died() {
        let (d, _) = dispatcher([10, 20])
        _ = d.received(
            .hello(WorkerHello(worker: "a", capacity: 2, software: "driftfix", host: "box", pid: 4242)), from: "a",
            at: 0)
        _ = d.received(hello("b", 1), from: "b", at: 0.1)
        _ = d.drainEvents()
        // Well inside the silence deadline: the exit is what requeues.
        let resent = jobsSent(d.died("a", how: "signal 9", at: 0.2))
        #expect(resent.map(\.0) == ["b"] && resent[0].1.attempt == 2)
        let events = d.drainEvents()
        let lost = events.compactMap { event -> LostLease? in
            if case .leaseLost(let lease) = event { return lease } else { return nil }
        }
        #expect(Set(lost.map(\.job)) == [1, 2])
        #expect(lost.allSatisfy { $0.worker == "a" && $0.how == "signal 9" && $0.host == "box" && $0.pid == 4242 })
        #expect(lost.first { $0.job == 1 }?.outputs == ["/o/1.wav"])
        #expect(events.contains(.workerLost("a", requeued: 2)))
        #expect(d.workersLost == 1 && d.jobsRequeued == 2 && d.liveWorkers == 1)
        // A worker that said goodbye is not lost.
        _ = d.received(.goodbye, from: "b", at: 0.3)
        #expect(d.workersLost == 1)
    }

    @Test("a file that kills every worker that runs it fails after the attempt limit with the deaths; the rest goes on")
    func poison() {
        let (d, store) = dispatcher([3600, 10, 20])  // job 1, the longest, goes first each time
        let signals = ["signal 9", "signal 9", "signal 11"]
        for (generation, how) in signals.enumerated() {
            let name = "w\(generation)"
            let sent = jobsSent(d.received(hello(name, 1), from: name, at: Double(generation)))
            #expect(sent.map(\.1.id) == [1] && sent[0].1.attempt == generation + 1)
            _ = d.died(name, how: how, at: Double(generation) + 0.5)
        }
        #expect(
            store.job(1)?.failed?.message
                == "worker died 3 times while processing this file: signal 9, signal 9, signal 11")
        // A healthy worker finishes the others.
        var sent = jobsSent(d.received(hello("healthy", 1), from: "healthy", at: 5))
        while let (_, spec) = sent.first {
            sent = jobsSent(d.received(success(spec, "healthy"), from: "healthy", at: 6))
        }
        #expect(d.isComplete && store.job(2)?.isFinished == true && store.job(3)?.isFinished == true)
    }

    @Test("deaths mixed with silence are 'lost', and a plain failure after a death keeps the last reason")
    func lostWording() {
        var settings = Dispatcher.Settings()
        settings.maxAttempts = 2
        let (d, store) = dispatcher([10], settings: settings)
        _ = d.received(hello("a", 1), from: "a", at: 0)
        _ = d.died("a", how: "signal 9", at: 0.1)
        _ = d.received(hello("b", 1), from: "b", at: 0.2)
        // b goes silent past 3 heartbeats.
        _ = d.tick(at: 4)
        #expect(
            store.job(1)?.failed?.message == "worker lost 2 times while processing this file: signal 9, went silent")
        #expect(d.drainEvents().contains(.workerSilent("b")))
    }

    @Test("a job whose worker's own disk failed goes to another worker; meanwhile that worker takes other jobs")
    func otherWorkerAfterDiskFailure() {
        let (d, _) = dispatcher([10, 20, 30])
        let toA = jobsSent(d.received(hello("a", 1), from: "a", at: 0))
        let toB = jobsSent(d.received(hello("b", 1), from: "b", at: 0))
        #expect(toA.map(\.1.id) == [3] && toB.map(\.1.id) == [2])
        let next = jobsSent(d.received(failed(3, 1, .outputFull, "/o/3.wav: disk full"), from: "a", at: 1))
        // Job 3 waits for b; a takes job 1.
        #expect(next.map(\.0) == ["a"] && next.map(\.1.id) == [1])
        #expect(d.drainEvents().contains(.jobRequeued(id: 3, reason: "/o/3.wav: disk full; trying another worker")))
        let afterB = jobsSent(d.received(success(toB[0].1, "b"), from: "b", at: 2))
        #expect(afterB.map(\.0) == ["b"] && afterB.map(\.1.id) == [3] && afterB[0].1.attempt == 2)
    }

    @Test("after stopDispatching, nothing new is handed out")
    func stop() {
        let (d, _) = dispatcher([1, 2, 3])
        d.stopDispatching()
        #expect(jobsSent(d.received(hello("a", 4), from: "a", at: 0)).isEmpty)
    }
}

@Suite("Dispatcher: strangers")
struct DispatcherStrangerTests {
    @Test("a result from a peer that never said hello is dropped")
    func forgedResult() {
        let (d, store) = dispatcher([10])
        _ = d.received(
            .result(
                JobResult(
                    id: 1, attempt: 1, worker: "x", seconds: 0,
                    outcome: .repaired(WrittenOutput(frames: 1, checksum: nil)))),
            from: "x", at: 0)
        #expect(!d.isComplete)
        #expect(store.job(1)?.state == .queued)
    }
}

extension JobRecord {
    /// The failure's message and kind, where the job failed.
    fileprivate var failed: (message: String, kind: FailureKind)? {
        if case .failed(let failure) = state { (failure.message, failure.kind) } else { nil }
    }
}
