import DriftCore
import DriftWire
import Testing

@testable import DriftCoordinator

private func jobs(_ seconds: [Double]) -> [JobRecord] {
    seconds.enumerated().map { index, length in
        JobRecord(id: index + 1, input: "/m/\(index + 1).wav", output: "/o/\(index + 1).wav", outputRoot: "/o", targetFrames: 48_000,
                  method: .resample, methodReason: "default", quality: .medium, audioSeconds: length)
    }
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
    .result(JobResult(id: spec.id, attempt: spec.attempt, worker: worker, succeeded: true, outputFrames: spec.targetFrames, seconds: 0.1))
}

@Suite("Dispatcher")
struct DispatcherTests {
    @Test("never more jobs than a worker's capacity; longest first")
    func credits() {
        let store = InMemoryJobStore()
        store.add(jobs([10, 300, 20, 3600, 5]))
        let d = Dispatcher(store: store)
        let first = jobsSent(d.received(hello("a", 2), from: "a", at: 0))
        #expect(first.map(\.1.id) == [4, 2], "the two longest go first")
        #expect(jobsSent(d.tick(at: 0.5)).isEmpty, "no credit left")
        let second = jobsSent(d.received(success(first[0].1, "a"), from: "a", at: 1))
        #expect(second.map(\.1.id) == [3])
        #expect(d.leasedJobs == 2)
    }

    @Test("a silent worker is presumed dead: its jobs go back to the queue and to another worker")
    func deadWorker() {
        let store = InMemoryJobStore()
        store.add(jobs([10, 10]))
        let d = Dispatcher(store: store)
        let sent = jobsSent(d.received(hello("a", 2), from: "a", at: 0))
        #expect(sent.count == 2)
        _ = d.received(hello("b", 1), from: "b", at: 1)
        _ = d.received(.heartbeat(running: []), from: "b", at: 3)
        // a has been silent for 3.5 s > 3 × 1 s.
        let resent = jobsSent(d.tick(at: 3.5))
        #expect(resent.count == 1 && resent[0].0 == "b" && resent[0].1.attempt == 2)
        #expect(d.drainEvents().contains(.workerLost("a", requeued: 2)))
    }

    @Test("a late result for a requeued job is accepted once; duplicates are ignored")
    func lateAndDuplicate() {
        let store = InMemoryJobStore()
        store.add(jobs([10]))
        let d = Dispatcher(store: store)
        let original = jobsSent(d.received(hello("a", 1), from: "a", at: 0))[0].1
        _ = d.received(hello("b", 1), from: "b", at: 2)
        _ = d.received(.heartbeat(running: []), from: "b", at: 3.4)
        let retry = jobsSent(d.tick(at: 3.5))[0].1
        #expect(retry.attempt == 2)
        // a was only slow: its result arrives and is accepted.
        _ = d.received(success(original, "a"), from: "a", at: 4)
        #expect(store.job(1).map { if case .done(let r) = $0.state { return r.worker == "a" } else { return false } } == true)
        _ = d.received(success(retry, "b"), from: "b", at: 5)
        #expect(d.drainEvents().contains(.duplicateResult(id: 1, worker: "b")))
        #expect(d.isComplete && d.leasedJobs == 0)
    }

    @Test("failures: permanent at once, retryable up to the attempt limit")
    func failures() {
        let store = InMemoryJobStore()
        store.add(jobs([10, 20]))
        let d = Dispatcher(store: store)
        var sent = jobsSent(d.received(hello("a", 1), from: "a", at: 0))
        #expect(sent[0].1.id == 2)
        sent = jobsSent(d.received(.result(JobResult(id: 2, attempt: 1, worker: "a", succeeded: false, seconds: 0, error: "corrupt")), from: "a", at: 1))
        #expect(store.job(2)?.state == .failed("corrupt"))
        for attempt in 1...3 {
            #expect(sent.count == 1 && sent[0].1.id == 1 && sent[0].1.attempt == attempt)
            sent = jobsSent(d.received(.result(JobResult(id: 1, attempt: attempt, worker: "a", succeeded: false, seconds: 0,
                                                         error: "disk full", retryable: true)), from: "a", at: Double(attempt + 1)))
        }
        #expect(store.job(1)?.state == .failed("disk full"))
        #expect(d.isComplete)
    }

    @Test("a job a worker no longer lists is requeued; goodbye requeues; strangers are dropped")
    func reconcileAndGoodbye() {
        let store = InMemoryJobStore()
        store.add(jobs([10, 20]))
        let d = Dispatcher(store: store)
        _ = d.received(hello("a", 2), from: "a", at: 0)
        // At 3 s, a reports running only job 2: job 1 (leased at 0) was lost.
        let after = jobsSent(d.received(.heartbeat(running: [2]), from: "a", at: 2.5))
        #expect(after.map(\.1.id) == [1] && after[0].1.attempt == 2)
        _ = d.received(.goodbye, from: "a", at: 3)
        #expect(d.liveWorkers == 0 && store.nextQueued() != nil)
        _ = d.received(.heartbeat(running: []), from: "stranger", at: 4)
        #expect(d.drainEvents().contains { if case .dropped(let peer, _) = $0 { return peer == "stranger" } else { return false } })
    }

    @Test("after stopDispatching, nothing new is handed out")
    func stop() {
        let store = InMemoryJobStore()
        store.add(jobs([1, 2, 3]))
        let d = Dispatcher(store: store)
        d.stopDispatching()
        #expect(jobsSent(d.received(hello("a", 4), from: "a", at: 0)).isEmpty)
    }
}

@Suite("Dispatcher: strangers")
struct DispatcherStrangerTests {
    @Test("a result from a peer that never said hello is dropped")
    func forgedResult() {
        let store = InMemoryJobStore()
        store.add(jobs([10]))
        let d = Dispatcher(store: store)
        _ = d.received(.result(JobResult(id: 1, attempt: 1, worker: "x", succeeded: true, seconds: 0)), from: "x", at: 0)
        #expect(!d.isComplete)
        #expect(store.job(1)?.state == .queued)
    }
}
