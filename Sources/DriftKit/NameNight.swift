import DriftAV
import DriftConfig
import DriftCore
import DriftJobs
import DriftJournal
import DriftMedia
import DriftPlanning
import DriftSchema
import DriftWire
import Foundation
import Logging

/// The part of a run that pairs by names: the scan's pairs listed (headers only), measured by their sound on workers
/// (`measureContent`), or repaired as a night in the journal (resumed where one did not finish, pairs whose output
/// still stands left `unchanged`).
struct NameNight: NightPart {
    let run: Run
    let journal: Journal?
    let watch: Watch

    func run(started: Date) async throws(RunError) -> Run.Outcome {
        let configuration = settings.configuration
        guard let outputRoot = settings.outputRootText, let journal else {
            let report = DriftScanner.scan(
                roots: settings.rootTexts, rules: configuration.pairing, drift: configuration.drift,
                repair: configuration.repair)
            guard settings.measureContent else { return Run.Outcome(report: report) }
            return try await measure(report)
        }
        return try await repair(journal: journal, outputRoot: outputRoot)
    }

    // MARK: a night of repairs

    private func repair(journal: Journal, outputRoot: String) async throws(RunError) -> Run.Outcome {
        let configuration = settings.configuration
        let quality = settings.quality ?? configuration.repair.quality
        let prepared: PreparedRun
        do {
            prepared = try RunPreparation.prepare(
                journal: journal,
                options: RunPreparation.Options(
                    layout: RunPlanner.Layout(roots: settings.rootTexts, outputRoot: outputRoot),
                    configuration: configuration, quality: quality, resume: settings.resume, full: settings.full,
                    engine: settings.engine), logger: logger)
        } catch {
            throw error
        }
        let store = JournalJobStore(journal: journal, run: prepared.run, jobs: prepared.jobs)
        let unfinished = prepared.jobs.filter { !$0.isFinished }
        watch.planned(unfinished, round: .repairs)
        // The drift is measured when the night is planned: a scrape during the night sees the fleet's devices.
        watch.devices(
            prepared.plan.report(with: [:]).deviceSummaries(), limit: configuration.journal.metricsDeviceLimit)
        let (_, execution) = try await run.executing(store, writes: outputRoot, watch: watch) { executor in
            await executor.submit(unfinished)
        }
        let (status, problem) = run.ending(execution)
        var report = prepared.plan.report(with: execution.jobs.outcomes)
        let disruptions = execution.disruptions
        report.disruptions = disruptions.isEmpty ? nil : disruptions
        if !disruptions.isEmpty {
            func count(_ n: Int, _ thing: String) -> String { "\(n) \(thing)\(n == 1 ? "" : "s")" }
            logger.warning(
                "disruptions: \(count(disruptions.workersLost, "worker")) lost, \(count(disruptions.workersRestarted, "worker")) replaced, \(count(disruptions.jobsRequeued, "job")) requeued"
            )
        }
        var outcome = Run.Outcome(report: report, status: status, problems: problem.map { [$0] } ?? [])
        record(&outcome, run: prepared.run)
        return outcome
    }

    // MARK: a scan measured by the sound

    /// The scan's pairs measured by their sound on workers, where the files are: each pair whose reference may have
    /// sound of its own becomes a measure-only job (nothing is written), and its row shows what the sound found -
    /// figures, cause and the plan it makes - in place of what the lengths said (kept as `lengths`).
    private func measure(_ report: ScanReport) async throws(RunError) -> Run.Outcome {
        let configuration = settings.configuration
        // Measuring shows what the sound says whatever the configured policy: every pair with sound is measured,
        // and planned under the configured policy where it measures by the sound, else under `content`, falling
        // back to the headers where the sound cannot tell.
        var policy = configuration.content.forWorker
        if configuration.content.mode == .headers {
            policy.mode = .content
            policy.fallsBackToHeaders = true
        }
        var jobs: [JobRecord] = []
        var rowOfJob: [Int: Int] = [:]
        let key = Int64.random(in: 1...Int64.max)
        for (index, row) in report.pairs.enumerated() where row.cause != nil && RunPlanner.hasOwnSound(row) {
            let content = ContentJob(
                row: row, policy: policy, quality: configuration.repair.quality,
                targetFrames: row.targetFrames ?? row.recordingFrames ?? 0,
                method: MethodChoice(
                    method: row.method ?? .resample, reason: row.methodReason ?? "in sync by the headers"))
            let job = JobRecord(
                id: jobs.count + 1, input: row.recordingText, work: .content(content), outputRoot: nil,
                inputRoots: report.rootTexts, audioSeconds: row.recordingSeconds ?? 0, run: key)
            rowOfJob[job.id] = index
            jobs.append(job)
        }
        logger.notice("measuring \(jobs.count) of \(report.pairs.count) pairs by their sound")
        watch.planned(jobs, round: .repairs)
        let planned = jobs
        let (done, _) = try await run.executing(InMemoryJobStore(), writes: nil, watch: watch) { executor in
            await executor.submit(planned)
        }
        var measured = report
        var unmeasured = 0
        for job in done {
            guard let index = rowOfJob[job.id] else { continue }
            switch job.state {
            case .done(let result):
                guard case .decided(let content, _) = result.outcome else { continue }
                measured.pairs[index].revise(
                    bySound: content.measurement, plan: Self.soundPlan(content),
                    drift: configuration.drift, confidenceFloor: policy.confidenceFloor)
                measured.pairs[index].contentNote = Self.implication(content, policy: policy)
            case .failed(let failure):
                unmeasured += 1
                measured.pairs[index].contentNote = "not measured: \(failure.message)"
            case .queued, .leased:
                unmeasured += 1
                measured.pairs[index].contentNote = "not measured: the scan stopped first"
            }
        }
        measured.refreshSummary()
        return Run.Outcome(report: measured, problems: unmeasured > 0 ? [.unmeasured(unmeasured)] : [])
    }

    /// The plan a measure-only job's sound made (from a worker that says so).
    static func soundPlan(_ result: ContentResult) -> SoundPlan? {
        switch result.planned {
        case .repaired?: result.operations.isEmpty ? nil : .repair(result.operations)
        case .skipped?: .skip(result.reason ?? "in sync")
        case .refused?: .refuse(result.reason ?? "refused")
        case .measured?, nil: nil
        }
    }

    /// What the content policy would do with the pair, in words.
    static func implication(_ result: ContentResult, policy: ContentPolicy) -> String {
        let under = "under content.measure \(policy.mode.rawValue)"
        if result.measuredBy == .headers {
            return "the headers would plan it (\(result.reason ?? "the sound cannot tell")), \(under)"
        }
        if result.operations.isEmpty {
            return result.reason.map { "would \($0.hasPrefix("in sync") ? "skip: " : "refuse: ")\($0), \(under)" }
                ?? "would skip, \(under)"
        }
        var steps: [String] = []
        for operation in result.operations {
            let name = operation.name
            let count = result.operations.filter { $0.name == name }.count
            let step = name == "insert" ? "re-insert \(count) dropout\(count == 1 ? "" : "s")" : name
            if !steps.contains(step) { steps.append(step) }
        }
        return "would \(steps.joined(separator: ", ")), \(under)"
    }
}
