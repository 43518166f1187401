import DriftAudio
import DriftCoordinator
import DriftCore
import DriftFixtures
import DriftJobs
import DriftJournal
import DriftPlanning
import DriftSchema
import DriftSync
import DriftWire
import Foundation
import Testing

/// A plan of `count` jobs on recordings that need not exist (the store never opens them), each with its fingerprints.
func samplePlan(run: Int64, count: Int) -> (RunPlan, [JobRecord], [Int: JobFingerprints]) {
    var pairs: [PairReport] = []
    var jobs: [JobRecord] = []
    var prints: [Int: JobFingerprints] = [:]
    for id in 1...count {
        let recording = "/media/dev\(id % 2)/take\(id).wav"
        pairs.append(
            PairReport(
                recording: recording, reference: recording + ".duration", folder: "/media/dev\(id % 2)", error: "x"))
        var job = JobRecord(
            id: id, input: recording,
            work: .header(
                HeaderRepair(
                    output: "/out/take\(id).wav", targetFrames: 48_000, method: .resample, methodReason: "default",
                    quality: .medium)),
            outputRoot: "/out", inputRoots: nil, audioSeconds: Double(id), run: run)
        prints[id] = JobFingerprints(recording: "r\(id)", reference: "f\(id)", plan: "p\(id)")
        job.fingerprints = prints[id]
        jobs.append(job)
    }
    let report = ScanReport(generated: "now", roots: ["/media"], pairs: pairs, unpaired: [], errors: [])
    return (RunPlan(report: report, pairs: []), jobs, prints)
}

func result(_ id: Int, run: Int64) -> JobResult {
    var result = JobResult(
        id: id, attempt: 1, worker: "w", seconds: 1,
        outcome: .repaired(WrittenOutput(frames: 48_000, checksum: "c\(id)")))
    result.run = run
    return result
}

/// Opening the journal at `path` fails as damaged: the error, or nil with an issue recorded (it opened, or failed for
/// another cause).
private func corruptionError(opening path: String) -> JournalError? {
    do {
        _ = try Journal(path: path)
        Issue.record("opened a damaged journal: \(path)")
    } catch {
        if case .corrupt = error.cause { return error }
        Issue.record("wrong cause: \(error)")
    }
    return nil
}

@Suite("run journal", .serialized)
struct JournalTests {
    @Test("packed values come back exactly: canonical fingerprints and checksums, and values that only look like them")
    func packingIsLossless() throws {
        let folder = TemporaryFolder("driftfix-journal")
        let path = folder.file("journal.sqlite")
        // Canonical forms (packed), then near misses that must be kept as the text they are.
        let cases: [(print: String, checksum: String)] = [
            ("480044:1795575674633321137:d491fa450a506fcb", "c5e689d7a7c954b"),
            ("0:-5:0", "ffffffffffffffff"),
            ("18446744073709551615:9223372036854775807:1", "0"),
            ("480044:1795575674633321137:00d491fa450a506f", "0abc"),
            ("480044:+17:ab", "ABC"),
            ("1:2:3:4", "10000000000000000"),
            ("", ""),
            // Output checksums since XXH3 (an 8-byte blob), and near misses.
            ("1:1:1", "xxh3:00c5e689d7a7c954"),
            ("2:2:2", "xxh3:ffffffffffffffff"),
            ("3:3:3", "xxh3:0000000000000000"),
            ("4:4:4", "xxh3:0abc"),
            ("5:5:5", "xxh3:00C5E689D7A7C954"),
            ("6:6:6", "XXH3:00c5e689d7a7c954"),
            ("7:7:7", "xxh3:00c5e689d7a7c954f"),
        ]
        let run: Int64
        do {
            let journal = try Journal(path: path)
            run = try journal.beginRun(roots: ["/media"], outputRoot: "/out")
            var (plan, jobs, _) = samplePlan(run: run, count: cases.count)
            for (index, item) in cases.enumerated() {
                jobs[index].fingerprints = JobFingerprints(
                    recording: item.print, reference: item.print + "r", plan: item.checksum)
            }
            try journal.storePlan(run: run, plan: plan, jobs: jobs)
            let store = JournalJobStore(journal: journal, run: run, jobs: jobs)
            for (index, item) in cases.enumerated() {
                let id = index + 1
                _ = store.lease(id, to: "w", at: 0)
                var done = result(id, run: run)
                done.outcome = .repaired(WrittenOutput(frames: 48_000, checksum: item.checksum))
                store.complete(id, with: done)
            }
        }
        let reopened = try Journal(path: path)
        let outputs = try reopened.outputs()
        let stored = try reopened.loadPlan(run: run)
        for (index, item) in cases.enumerated() {
            let id = index + 1
            let output = try #require(outputs["/media/dev\(id % 2)/take\(id).wav"])
            #expect(
                output.prints
                    == JobFingerprints(recording: item.print, reference: item.print + "r", plan: item.checksum))
            #expect(output.checksum == item.checksum && output.output == "/out/take\(id).wav")
            #expect(stored.jobs.first { $0.id == id }?.fingerprints == output.prints)
            guard case .done(let done) = stored.jobs.first(where: { $0.id == id })?.state else {
                Issue.record("job \(id) is not done")
                continue
            }
            #expect(done.outcome.columns.output?.checksum == item.checksum)
        }
        // The three canonical XXH3 checksums are kept as 8 bytes, in the job rows and in the outputs.
        let count = try Child(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                q = "SELECT count(*) FROM %s WHERE typeof(checksum) = 'blob' AND length(checksum) = 8"
                print(db.execute(q % 'job').fetchone()[0], db.execute(q % 'output').fetchone()[0])
                """, path,
            ]
        ).wait(seconds: 30)
        #expect(
            count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3 3", "\(count.stdout) \(count.stderr)")
    }

    @Test("every transition survives closing the journal; leased jobs come back queued; done and failed stay")
    func transitionsAreDurable() throws {
        let folder = TemporaryFolder("driftfix-journal")
        let path = folder.file("j/journal.sqlite")
        let run: Int64
        do {
            let journal = try Journal(path: path)
            run = try journal.beginRun(roots: ["/media"], outputRoot: "/out")
            let (plan, jobs, _) = samplePlan(run: run, count: 4)
            try journal.storePlan(run: run, plan: plan, jobs: jobs)
            let store = JournalJobStore(journal: journal, run: run, jobs: jobs.map(\.withoutFingerprints))
            #expect(store.lease(4, to: "w", at: 1) == 1)  // longest first
            store.complete(4, with: result(4, run: run))
            #expect(store.lease(3, to: "w", at: 2) == 1)
            store.fail(3, JobFailure(message: "x.wav: corrupt", kind: .inputUnreadable))
            #expect(store.lease(2, to: "w", at: 3) == 1)
            #expect(store.failure == nil)
        }
        let journal = try Journal(path: path)  // the owner lock was released with the first instance
        let unfinished = try #require(try journal.unfinishedRun(roots: ["/media"], outputRoot: "/out"))
        #expect(unfinished.id == run && unfinished.planned && unfinished.status == .running)
        #expect(try journal.unfinishedRun(roots: ["/other"], outputRoot: "/out") == nil)
        let loaded = try journal.loadPlan(run: run)
        let states = Dictionary(uniqueKeysWithValues: loaded.jobs.map { ($0.id, $0.state) })
        #expect(states[4] == .done(result(4, run: run)))
        #expect(states[3] == .failed(JobFailure(message: "x.wav: corrupt", kind: .inputUnreadable)))
        #expect(states[2] == .queued, "a job leased when the coordinator stopped runs again")
        #expect(states[1] == .queued)
        #expect(
            loaded.jobs.first { $0.id == 2 }?.attempts == 0,
            "a lease cut short by the coordinator's stop is not an attempt")
        #expect(loaded.jobs.first { $0.id == 4 }?.attempts == 1 && loaded.jobs.first { $0.id == 3 }?.attempts == 1)
        #expect(loaded.jobs.map(\.pair.recording) == (1...4).map { "/media/dev\($0 % 2)/take\($0).wav" })
        #expect(loaded.plan.report.pairs.count == 4)
        #expect(try journal.jobStates(run: run)[2]?.state == .queued, "the requeue is recorded too")
    }

    @Test(
        "content jobs keep their spec and their findings: a repair by the sound, and a failed sync proof with its curve"
    )
    func contentJobsAreDurable() throws {
        let folder = TemporaryFolder("driftfix-journal")
        let path = folder.file("journal.sqlite")
        let run: Int64
        var (plan, jobs, _) = samplePlan(run: 1, count: 2)
        let policy = ContentPolicy(
            mode: .both, confidenceFloor: 0.6, start: .keep, residualLimit: .milliseconds(0.5),
            headerPrecision: .milliseconds(40))
        var measurement = ContentMeasurement(
            offsetMs: 1500.02, driftPPM: -131.02, driftPPMError: 0.09, model: .clock, confidence: 0.73,
            dropouts: [.init(atSeconds: 40.02, missingMs: 30, uncertaintyMs: 0.1)],
            headersAgree: false, disagreement: "late start",
            curve: [.init(atSeconds: 1, lagMs: 1500), .init(atSeconds: 2, lagMs: 1500.1)])
        measurement.residualMs = 3.2
        measurement.residualCurve = [.init(atSeconds: 1, lagMs: 3.2)]
        var repaired = result(1, run: 1)
        let failure = "/out/take2.wav: sync verification failed: residual lag 3.200 ms exceeds 0.500 ms"
        var failed = JobResult(
            id: 2, attempt: 1, worker: "w", seconds: 2, outcome: .failed(JobFailure(message: failure, kind: .outOfSync))
        )
        failed.run = 1
        do {
            let journal = try Journal(path: path)
            run = try journal.beginRun(roots: ["/media"], outputRoot: "/out")
            (plan, jobs, _) = samplePlan(run: run, count: 2)
            for index in jobs.indices {
                guard case .header(let repair) = jobs[index].work else { continue }
                var content = ContentJob(
                    reference: "/media/take\(index).mp4", output: repair.output, policy: policy,
                    targetFrames: repair.targetFrames,
                    method: MethodChoice(method: repair.method, reason: repair.methodReason), quality: .best,
                    headersInSync: index == 0, headerDriftPPM: -20, recordingSeconds: 60,
                    referenceSeconds: 60.0012)
                content.engine = .soxr
                jobs[index].spec.work = .content(content)
            }
            try journal.storePlan(run: run, plan: plan, jobs: jobs)
            let store = JournalJobStore(journal: journal, run: run, jobs: jobs)
            repaired = result(1, run: run)
            repaired.outcome = .decided(
                ContentResult(
                    decision: .repaired, reason: nil, measuredBy: .content,
                    operations: [.padStart(frames: 71991), .resample(frames: 2_880_377)], measurement: measurement),
                output: repaired.outcome.columns.output)
            failed.run = run
            failed.outcome = .failed(
                JobFailure(
                    message: failure, kind: .outOfSync,
                    content: ContentResult(
                        decision: .repaired, reason: "residual lag 3.200 ms exceeds 0.500 ms", measuredBy: .content,
                        operations: [.insert(atFrame: 1_920_972, frames: 1440)], measurement: measurement)))
            _ = store.lease(2, to: "w", at: 1)
            store.complete(2, with: failed)
            _ = store.lease(1, to: "w", at: 2)
            store.complete(1, with: repaired)
        }
        let loaded = try Journal(path: path).loadPlan(run: run)
        #expect(loaded.jobs.map(\.work) == jobs.map(\.work), "the content specs, policy and headers' plan included")
        let outcomes = Dictionary(uniqueKeysWithValues: loaded.jobs.map { ($0.id, $0.outcome) })
        #expect(outcomes[1]?.content?.measurement == measurement && outcomes[1]?.content?.operations.count == 2)
        guard case .repaired = outcomes[1]?.state else {
            Issue.record("job 1: \(String(describing: outcomes[1]))")
            return
        }
        #expect(outcomes[2]?.state == .failed(failure), "a failed sync proof stays failed")
        #expect(
            outcomes[2]?.content?.measurement?.residualCurve == measurement.residualCurve, "with the curve that failed")
    }

    @Test(
        "a sound night's jobs keep their kind and findings: a print is kept by its file's fingerprint, a clip's verified output with its rows; added while the run goes on, read back when it resumes"
    )
    func soundJobsAreDurable() throws {
        let folder = TemporaryFolder("driftfix-journal")
        let path = folder.file("journal.sqlite")
        var place = ClipTask.Place(
            recording: "/media/audio/ZOOM0001.WAV",
            candidate: SoundCandidate(
                recording: 0, startSeconds: 812.37, clarity: 11.5, ambiguity: 0.31, coverage: 0.98, sharpClarity: 24,
                sharpAmbiguity: nil))
        place.output = "/out/camera/C0001.wav"
        place.engine = .soxr
        let task = ClipTask(
            clip: "/media/camera/C0001.MP4", clipSeconds: 61.25, places: [place], minimumConfidence: 0.5,
            residualLimitMs: 1, quality: .best, mux: false)
        var printJob = JobRecord(
            id: 1, input: "/media/audio/ZOOM0001.WAV", work: .soundPrint, outputRoot: nil, inputRoots: ["/media"],
            audioSeconds: 0, run: 7)
        printJob.fingerprints = JobFingerprints(recording: "100:200:abc", reference: "r", plan: "p")
        var clipJob = JobRecord(
            id: 2, input: task.clipText, work: .clipSync(task), outputRoot: "/out", inputRoots: ["/media"],
            audioSeconds: 61.25, run: 7)
        clipJob.fingerprints = JobFingerprints(recording: "300:400:def", reference: "q", plan: "s")
        var row = SoundPairingReport.Match(
            reference: task.clipText, recording: place.recordingText, recordingStartSeconds: 812.371,
            recordingEndSeconds: 873.6,
            coverage: 1, clarity: 11.5,
            content: ContentMeasurement(
                offsetMs: -812_371, driftPPM: -131.2, driftPPMError: 0.4, model: .clock, confidence: 0.93,
                reason: nil),
            status: .used)
        row.output = place.output
        row.outputFrames = 2_940_000
        let run: Int64
        do {
            let journal = try Journal(path: path)
            run = try journal.beginRun(roots: ["/media"], outputRoot: "/out", pairing: .sound)
            #expect(try journal.unfinishedRun(roots: ["/media"], outputRoot: "/out") == nil, "not a night by names")
            let store = JournalJobStore(journal: journal, run: run, jobs: [])
            store.add([printJob, clipJob])
            _ = store.lease(1, to: "w", at: 0)
            let printed = JobResult(
                id: 1, attempt: 1, worker: "w", seconds: 0.1,
                outcome: .heard(SoundResult(print: Data([1, 2, 3]), timecode: 36_000.5)))
            store.complete(1, with: printed)
            _ = store.lease(2, to: "w", at: 1)
            let synced = JobResult(
                id: 2, attempt: 1, worker: "w", seconds: 2, outcome: .heard(SoundResult(matches: [row])))
            store.complete(2, with: synced)
        }
        let journal = try Journal(path: path)
        let unfinished = try #require(
            try journal.unfinishedRun(roots: ["/media"], outputRoot: "/out", pairing: .sound))
        #expect(unfinished.id == run)
        let jobs = try journal.jobs(run: run)
        #expect(jobs.map(\.work) == [.soundPrint, .clipSync(task)], "each job's work as it was sent")
        #expect(jobs.map(\.fingerprints) == [printJob.fingerprints, clipJob.fingerprints])
        guard case .done(let result) = jobs.last?.state else {
            Issue.record("the clip job is not done: \(String(describing: jobs.last))")
            return
        }
        #expect(result.outcome.columns.sound?.matches == [row], "the clip's rows")
        // The print is kept by the file's fingerprint (not in the job row); the clip's output with its rows.
        let kept = try #require(try journal.soundPrint(path: printJob.input, fingerprint: "100:200:abc"))
        #expect(kept.print == Data([1, 2, 3]) && kept.timecode == 36_000.5)
        let changed = try journal.soundPrint(path: printJob.input, fingerprint: "100:201:abc")
        #expect(changed == nil, "a changed file's print is not kept")
        let output = try #require(try journal.outputs()[task.clipText])
        #expect(output.output == place.outputText && output.outputFrames == 2_940_000 && output.matches == [row])
    }

    @Test("a second coordinator on the same journal is refused, naming the owner")
    func ownerLock() throws {
        let folder = TemporaryFolder("driftfix-journal")
        let path = folder.file("journal.sqlite")
        let owner = try Journal(path: path)
        #expect(
            throws: JournalError(path: path, cause: .inUse("pid \(getpid()) on \(ProcessInfo.processInfo.hostName)"))
        ) {
            try Journal(path: path)
        }
        // Readers need no lock.
        let reader = try Journal(path: path, readOnly: true)
        #expect(try reader.runs(limit: 5).isEmpty)
        _ = owner
    }

    @Test("a file that is not a database, or a damaged one, is reported and left as it was")
    func corruption() throws {
        let folder = TemporaryFolder("driftfix-journal")
        let garbage = folder.file("garbage.sqlite")
        let bytes = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131) })
        try bytes.write(to: URL(fileURLWithPath: garbage))
        if let error = corruptionError(opening: garbage) {
            #expect(error.description.contains(garbage) && error.description.contains("damaged"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: garbage)) == bytes, "the damaged file is not touched")

        // A real journal whose table pages were overwritten.
        let damaged = folder.file("damaged.sqlite")
        do {
            let journal = try Journal(path: damaged)
            for _ in 0..<3 {
                let run = try journal.beginRun(roots: ["/media"], outputRoot: "/out")
                let (plan, jobs, _) = samplePlan(run: run, count: 200)
                try journal.storePlan(run: run, plan: plan, jobs: jobs)
            }
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: damaged))
        let size = try handle.seekToEnd()
        #expect(size > 16 * 4096)
        for page in stride(from: UInt64(2), to: size / 4096, by: 3) {  // every third page after the schema
            try handle.seek(toOffset: page * 4096)
            handle.write(Data(repeating: 0xA5, count: 4096))
        }
        try handle.close()
        _ = corruptionError(opening: damaged)
    }

    @Test("a journal held by another process's SQLite lock gives a clear error after the busy timeout")
    func sqliteLock() throws {
        let folder = TemporaryFolder("driftfix-journal")
        let path = folder.file("journal.sqlite")
        do { _ = try Journal(path: path) }  // create it
        // Another program (Python's sqlite3) takes an exclusive lock and keeps it.
        let holder = try Child(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sqlite3, sys, time
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute('PRAGMA locking_mode = EXCLUSIVE')
                db.execute('BEGIN EXCLUSIVE')
                db.execute('INSERT INTO run (started, status, roots, outputRoot) VALUES (0, "x", "[]", "/")')
                print('locked', flush=True)
                time.sleep(30)
                """, path,
            ])
        defer {
            holder.send(SIGKILL)
            _ = holder.wait(seconds: 30)
        }
        try #require(waitUntil(seconds: 60) { holder.outputSoFar.contains("locked") }, "the holder took its lock")
        do {
            _ = try Journal(path: path)
            Issue.record("opened a locked journal")
        } catch {
            #expect(error.cause == .locked, "\(error)")
            #expect(error.description.contains("locked by another process"))
        }
    }

    @Test("a full disk stops the journal with a clear error; after freeing space it opens intact with every commit")
    func diskFull() throws {
        try #require(TmpfsMount.available, "needs root to mount a tmpfs")
        let disk = try TmpfsMount(kibibytes: 400)
        let path = disk.file("journal.sqlite")
        let run: Int64
        var committed = 0
        do {
            let journal = try Journal(path: path)
            run = try journal.beginRun(roots: ["/media"], outputRoot: "/out")
            let (plan, jobs, _) = samplePlan(run: run, count: 50)
            try journal.storePlan(run: run, plan: plan, jobs: jobs)
            // Fill the rest of the disk.
            let filler = disk.file("filler")
            FileManager.default.createFile(atPath: filler, contents: nil)
            let handle = try #require(FileHandle(forWritingAtPath: filler))
            while (try? handle.write(contentsOf: Data(repeating: 1, count: 4096))) != nil {}
            // Leave room for a few commits, so the failure comes in the middle of the run.
            try handle.truncate(atOffset: try handle.offset() - 48 * 1024)
            try handle.close()
            // Keep going until the journal cannot grow; every success before that must survive.
            let store = JournalJobStore(journal: journal, run: run, jobs: jobs.map(\.withoutFingerprints))
            for round in 0..<50 {
                guard let next = store.nextQueued() else { break }
                _ = store.lease(next.id, to: String(repeating: "w", count: 3000) + "\(round)", at: Double(round))
                if store.failure != nil { break }
                committed += 1
            }
            let failure = try #require(store.failure, "the disk never filled")
            #expect(failure.contains(path) && failure.contains("no space left"), "\(failure)")
            try FileManager.default.removeItem(atPath: filler)
        }
        let reopened = try Journal(path: path)  // quick_check passes
        let leased = try reopened.jobStates(run: run).values.filter { $0.attempts == 1 }.count
        #expect(leased == committed && committed > 0, "\(leased) leases on file, \(committed) committed")
        // And it can be written again.
        _ = try reopened.beginRun(roots: ["/media"], outputRoot: "/out")
    }

    @Test("a folder that cannot be created is a clear error")
    func unwritable() throws {
        try #require(TmpfsMount.available, "needs root to mount a tmpfs")
        let disk = try TmpfsMount(kibibytes: 64, readOnly: true)
        do {
            _ = try Journal(path: disk.file("sub/journal.sqlite"))
            Issue.record("created a journal on a read-only file system")
        } catch {
            guard case .notWritable(let detail) = error.cause else {
                Issue.record("\(error)")
                return
            }
            #expect(detail.contains(disk.path + "/sub") && detail.lowercased().contains("read"), "\(detail)")
        }
    }
}

extension JobRecord {
    /// The job as a run that keeps no output for the next nights hands it over.
    var withoutFingerprints: JobRecord {
        var job = self
        job.fingerprints = nil
        return job
    }
}
