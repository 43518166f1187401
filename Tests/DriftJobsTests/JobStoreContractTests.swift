import DriftCore
import DriftJobs
import DriftPlanning
import DriftWire
import Testing

/// The job store's contract, which the dispatcher and the journal's store rely on: longest first, one lease at a
/// time with its number, a finished job stays finished, and a requeue only takes back a lease.
@Suite("Job store: the contract every store keeps")
struct JobStoreContractTests {
    static func job(_ id: Int, seconds: Double) -> JobRecord {
        JobRecord(
            id: id, input: "/m/\(id).wav", work: .noop(frames: Int64(id)), outputRoot: nil, inputRoots: nil,
            audioSeconds: seconds)
    }

    static func done(_ id: Int, attempt: Int = 1, _ outcome: JobOutcome) -> JobResult {
        JobResult(id: id, attempt: attempt, worker: "w", seconds: 1, outcome: outcome)
    }

    @Test("longest first; a lease numbers its attempt; excluded jobs are passed over, not lost")
    func order() {
        let store = InMemoryJobStore()
        store.add([Self.job(1, seconds: 10), Self.job(2, seconds: 300), Self.job(3, seconds: 60)])
        #expect(store.nextQueued()?.id == 2)
        #expect(store.nextQueued(excluding: [2])?.id == 3)
        #expect(store.lease(2, to: "a", at: 5) == 1)
        #expect(store.job(2)?.state == .leased(worker: "a", attempt: 1, since: 5))
        #expect(store.nextQueued()?.id == 3, "a leased job is not handed out again")
        store.requeue(2, reason: "worker a lost")
        #expect(store.job(2)?.state == .queued && store.job(2)?.lastError == "worker a lost")
        #expect(store.lease(2, to: "b", at: 6) == 2, "the second lease is attempt 2")
        #expect(store.lease(99, to: "a", at: 0) == nil)
        #expect(store.unfinishedCount == 3)
    }

    @Test("a finished job stays finished: a late result, a failure or a requeue after it change nothing")
    func finishedStays() {
        let store = InMemoryJobStore()
        store.add([Self.job(1, seconds: 1), Self.job(2, seconds: 1)])
        _ = store.lease(1, to: "a", at: 0)
        let first = Self.done(1, .repaired(WrittenOutput(frames: 1, checksum: "x")))
        store.complete(1, with: first)
        store.complete(1, with: Self.done(1, attempt: 2, .failed(JobFailure(message: "late", kind: .other))))
        store.fail(1, JobFailure(message: "late", kind: .other))
        store.requeue(1, reason: "late")
        #expect(store.job(1)?.state == .done(first))
        store.requeue(2, reason: "never leased")
        #expect(store.job(2)?.state == .queued && store.job(2)?.lastError == nil, "only a lease is taken back")
        let unreadable = JobFailure(message: "/m/2.wav: unreadable", kind: .inputUnreadable)
        store.fail(2, unreadable)
        #expect(store.job(2)?.state == .failed(unreadable))
        #expect(store.unfinishedCount == 0 && store.nextQueued() == nil)
    }

    @Test("an open store keeps a run going until it is closed, and adds each job once")
    func openStore() {
        let store = OpenJobStore()
        #expect(store.unfinishedCount == 1, "open and empty: the run waits for the next round")
        let finished = store.adding([Self.job(1, seconds: 1)])
        #expect(finished.isEmpty && store.unfinishedCount == 2)
        _ = store.lease(1, to: "a", at: 0)
        store.complete(1, with: Self.done(1, .repaired(WrittenOutput(frames: 1, checksum: nil))))
        #expect(store.adding([Self.job(1, seconds: 1)]) == [1], "added again: already finished, said so")
        store.close()
        #expect(store.unfinishedCount == 0)
    }

    /// Each outcome a worker reports maps to one state of the report's row.
    @Test("a result's outcome becomes the row's state: repaired, skipped, refused, measured, failed")
    func outcomes() {
        let measurement = ContentMeasurement(
            offsetMs: 0, driftPPM: -20, driftPPMError: 0.3, model: .clock, confidence: 0.9, reason: nil)
        func content(_ decision: ContentResult.Decision, _ reason: String?) -> ContentResult {
            ContentResult(
                decision: decision, reason: reason, measuredBy: .content, operations: [], measurement: measurement)
        }
        func state(_ outcome: JobOutcome) -> PairOutcome.State {
            var job = Self.job(1, seconds: 1)
            job.attempts = 1
            job.state = JobState(Self.done(1, outcome))
            return job.outcome.state
        }
        #expect(
            state(.repaired(WrittenOutput(frames: 480, checksum: "c")))
                == .repaired(outputFrames: 480, checksum: "c", worker: "w", seconds: 1))
        #expect(
            state(.decided(content(.repaired, nil), output: WrittenOutput(frames: 481, checksum: "d")))
                == .repaired(outputFrames: 481, checksum: "d", worker: "w", seconds: 1))
        #expect(
            state(.decided(content(.skipped, "in sync by the sound"), output: nil)) == .skipped("in sync by the sound"))
        #expect(state(.decided(content(.refused, "wrong pairing"), output: nil)) == .refused("wrong pairing"))
        #expect(state(.decided(content(.measured, nil), output: nil)) == .measured)
        #expect(
            state(.failed(JobFailure(message: "/m/1.wav: corrupt", kind: .inputUnreadable)))
                == .failed("/m/1.wav: corrupt"))
        // A failed sync proof keeps the measurement that failed, for the report.
        var job = Self.job(1, seconds: 1)
        job.state = .failed(JobFailure(message: "out of sync", kind: .outOfSync, content: content(.repaired, "lag")))
        #expect(job.outcome.content?.measurement == measurement && job.outcome.failure == .outOfSync)
        #expect(Self.job(2, seconds: 1).outcome.state == .unfinished(nil))
    }
}

@Suite("One failure state")
struct OneFailureStateTests {
    @Test("a worker's failed result leaves its job failed, with the failure's kind and measurement, never done")
    func failedResultIsFailure() throws {
        let store = InMemoryJobStore()
        store.add([
            JobRecord(
                id: 1, input: "/m/1.wav", work: .noop(frames: 1), outputRoot: nil, inputRoots: nil, audioSeconds: 1)
        ])
        _ = store.lease(1, to: "w", at: 0)
        let failure = JobFailure(message: "/m/1.wav: out of sync", kind: .outOfSync)
        store.complete(1, with: JobResult(id: 1, attempt: 1, worker: "w", seconds: 1, outcome: .failed(failure)))
        #expect(store.job(1)?.state == .failed(failure))
        #expect(store.unfinishedCount == 0)
        #expect(try #require(store.job(1)).outcome.failure == .outOfSync)
    }
}
