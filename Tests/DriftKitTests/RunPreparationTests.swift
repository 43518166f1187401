import DriftAudio
import DriftConfig
import DriftCoordinator
import DriftCore
import DriftFixtures
import DriftJournal
import DriftKit
import DriftPlanning
import DriftSchema
import DriftTransport
import DriftWire
import DriftWorker
import Foundation
import Logging
import Testing

import struct SystemPackage.FilePath

private let logger = Logger(label: "test.run")

/// A tree of recordings, an output folder and the journal in it: what each run here is prepared from and into.
private struct PreparationSetup {
    let tree: RepairTree
    let out = TemporaryFolder("driftfix-out")
    let journal: Journal

    init(_ tree: RepairTree) throws {
        self.tree = tree
        journal = try Journal(path: out.file("journal.sqlite"))
    }

    func prepare(resume: ResumePolicy = .whenUnfinished, full: Bool = false) throws -> PreparedRun {
        let options = RunPreparation.Options(
            layout: RunPlanner.Layout(roots: [tree.root.path], outputRoot: out.path), configuration: Configuration(),
            quality: .medium, resume: resume, full: full)
        return try RunPreparation.prepare(journal: journal, options: options, logger: logger)
    }

    /// A first run prepared, and the store its jobs are leased from.
    func prepareWithStore() throws -> (PreparedRun, JournalJobStore) {
        let first = try prepare()
        return (first, JournalJobStore(journal: journal, run: first.run, jobs: first.jobs))
    }
}

@Suite("Run preparation: resume policy and planning, in process", .serialized)
struct RunPreparationTests {
    @Test("a fresh run scans, plans one job per drifted pair and stores the plan before anything is sent")
    func fresh() throws {
        let setup = try PreparationSetup(RepairTree(drifted: 3, inSync: 1, refused: 1))
        let (tree, out, journal) = (setup.tree, setup.out, setup.journal)
        let prepared = try setup.prepare()
        #expect(!prepared.resumed && prepared.run == 1)
        #expect(prepared.plan.pairs.count == 5 && prepared.jobs.count == 3)
        #expect(prepared.jobs.allSatisfy { $0.fingerprints != nil }, "each job knows what its output is made from")
        #expect(prepared.jobs.allSatisfy { $0.spec.inputRoots == [tree.root.path] && $0.spec.run != nil })
        let unfinished = try #require(try journal.unfinishedRun(roots: [tree.root.path], outputRoot: out.path))
        #expect(unfinished.planned && unfinished.status == .running)
        let stored = try journal.loadPlan(run: prepared.run)
        #expect(stored.plan == prepared.plan, "the plan reads back as it was stored")
        #expect(stored.jobs == prepared.jobs)
    }

    @Test("an unfinished run is resumed with its stored plan, even when the tree changed since")
    func resume() throws {
        let setup = try PreparationSetup(RepairTree(drifted: 3))
        let (first, store) = try setup.prepareWithStore()
        _ = store.lease(1, to: "w", at: 0)
        guard case .header(let repair) = first.jobs[0].work else {
            Issue.record("a header repair expected: \(first.jobs[0].work)")
            return
        }
        var result = JobResult(
            id: 1, attempt: 1, worker: "w", seconds: 1,
            outcome: .repaired(WrittenOutput(frames: repair.targetFrames, checksum: nil)))
        result.run = first.jobs[0].spec.run
        store.complete(1, with: result)
        _ = store.lease(2, to: "w", at: 1)  // out on lease when the coordinator "dies"
        try "1@48000\n".write(
            toFile: setup.tree.root.file("device0/take0.duration"), atomically: true, encoding: .utf8)

        let resumed = try setup.prepare()
        #expect(resumed.resumed && resumed.run == first.run)
        #expect(resumed.plan == first.plan, "the stored plan is kept, not the changed tree's")
        let states = Dictionary(uniqueKeysWithValues: resumed.jobs.map { ($0.id, $0.state) })
        #expect(states[1] == .done(result) && states[2] == .queued && states[3] == .queued)
        #expect(resumed.jobs.first { $0.id == 2 }?.attempts == 0, "an interrupted lease is not an attempt")
    }

    @Test("--resume with nothing to resume, --resume with --full, --no-resume: as documented")
    func flags() throws {
        let setup = try PreparationSetup(RepairTree(drifted: 2))
        let (tree, out) = (setup.tree, setup.out)
        #expect(throws: RunError.self) { try setup.prepare(resume: .always) }
        // Resuming with --full is a usage error, refused with the other settings before anything is created.
        var settings = Run.Settings(roots: [FilePath(tree.root.path)])
        settings.outputRoot = FilePath(out.path)
        settings.journalPath = FilePath(out.file("journal.sqlite"))
        settings.resume = .always
        settings.full = true
        #expect(throws: Run.SettingsError.self) { try settings.validate() }
        let first = try setup.prepare()
        let fresh = try setup.prepare(resume: .never)
        #expect(!fresh.resumed && fresh.run == first.run + 1)
        #expect(try setup.journal.runs(limit: 5).first { $0.id == first.run }?.status == .abandoned)
        let full = try setup.prepare(full: true)
        #expect(!full.resumed && full.run == fresh.run + 1, "--full never resumes")
    }

    @Test("a run whose jobs had all finished is closed as it stands and a new run begins")
    func finishedButUnclosed() throws {
        let setup = try PreparationSetup(RepairTree(drifted: 1))
        let (first, store) = try setup.prepareWithStore()
        _ = store.lease(1, to: "w", at: 0)
        store.fail(1, JobFailure(message: "take0.wav: corrupt", kind: .inputUnreadable))
        let next = try setup.prepare()
        #expect(!next.resumed && next.run == first.run + 1)
        let closed = try #require(try setup.journal.runs(limit: 5).first { $0.id == first.run })
        #expect(closed.status == .complete)
        #expect(try setup.journal.report(run: first.run).pairs.first?.outcome == .failed)
    }
}

@Suite("A repair run in process: coordinator and worker services over ipc://", .serialized)
struct InProcessRunTests {
    @Test("Run with an in-process WorkerRun repairs every pair exactly; the next night finds them unchanged")
    func repairAndRerun() async throws {
        let tree = try RepairTree(drifted: 4, inSync: 1)
        let out = TemporaryFolder("driftfix-out")
        let endpoint = "ipc:///tmp/driftfix-inprocess-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        /// A night; `worker`: also run a worker (a night with nothing to repair binds nothing for it to reach).
        func night(worker withWorker: Bool = true) async throws -> Run.Outcome {
            var settings = Run.Settings(roots: [FilePath(tree.root.path)])
            settings.outputRoot = FilePath(out.path)
            settings.journalPath = FilePath(out.file(".driftfix/journal.sqlite"))
            var dispatch = DispatchSettings(localWorkers: 0)
            dispatch.transport = try TransportPolicy(binding: endpoint)
            dispatch.heartbeat = .milliseconds(200)
            dispatch.shutdownSignals = []
            settings.work = .workers(dispatch)
            var node = WorkerNode.Settings(
                transport: try TransportPolicy(connecting: endpoint), capacity: 2, identity: "in-process")
            node.heartbeatInterval = 0.2
            node.initialBackoff = 0.1
            var worker = WorkerRun.Settings(node: node)
            worker.shutdownSignals = []
            let (coordinatorSettings, workerSettings) = (settings, worker)
            return try await withThrowingTaskGroup(of: Run.Outcome?.self) { group in
                group.addTask { try await Run(settings: coordinatorSettings, logger: logger).run() }
                if withWorker {
                    group.addTask {
                        _ = try await WorkerRun(settings: workerSettings, logger: logger).run()
                        return nil
                    }
                }
                var outcome: Run.Outcome?
                for try await result in group { if let result { outcome = result } }
                return try #require(outcome)
            }
        }
        let first = try await night()
        #expect(first.succeeded && first.status == .complete)
        #expect(first.report.summary.outcomes == [.repaired: 4, .skipped: 1])
        for entry in tree.entries where entry.expected == .repaired {
            let (samples, _, frames) = try readAll(tree.output(entry, in: out.path))
            #expect(frames == entry.target)
            let snr = SignalMeasure.snr(
                actual: samples, ideal: entry.signal.ideal(target: entry.target, start: 0, count: Int(entry.target)))
            #expect(snr > 100, "SNR \(snr) dB")
        }
        let second = try await night(worker: false)
        #expect(second.succeeded && second.report.summary.outcomes == [.unchanged: 4, .skipped: 1])
        #expect(second.report.history?.runs.count == 2)
    }
}
