import DriftConfig
import DriftCore
import DriftJobs
import DriftJournal
import DriftMedia
import DriftRules
import DriftSchema
import DriftSoundPairing
import DriftSupport
import Foundation
import Logging

import struct SystemPackage.FilePath

/// The part of a run that pairs by sound: clips found in recordings by what they heard, each clip measured where it
/// was found and (with an output) its audio cut out in sync. With an output and a journal it is a night like any
/// other: a run in the journal, every print and clip a job recorded before it is acted upon, resumed where it did not
/// finish, and what an earlier night made that still stands kept (`SoundRounds`).
struct SoundNight: NightPart {
    let run: Run
    let journal: Journal?
    let watch: Watch

    func run() async throws(RunError) -> Run.Outcome {
        let configuration = settings.configuration
        var pairing = SoundPairing.Settings(
            configuration: configuration, mode: settings.pairing == .nameThenSound ? .nameThenSound : .sound)
        pairing.output = settings.outputRootText
        if let quality = settings.quality { pairing.quality = quality }
        if let engine = settings.engine { pairing.engines.choose(engine) }
        pairing.mux = settings.outputRootText != nil && settings.writesMux
        if case .threads(let threads) = run.work { pairing.threads = threads }

        var context = SoundRounds.Context(
            roots: settings.rootTexts, outputRoot: settings.outputRootText, journal: journal)
        context.full = settings.full
        // The night's one key on the wire (the journal's, for a night it records).
        context.runKey = Int64.random(in: 1...Int64.max)
        var resumed: [JobRecord] = []
        if let journal, let outputRoot = settings.outputRootText {
            let night = try begin(journal: journal, outputRoot: outputRoot)
            context.run = night.run
            context.runKey = night.key
            resumed = night.resumed
        }
        let store: JobStore =
            if let journal, let night = context.run { JournalJobStore(journal: journal, run: night, jobs: []) } else {
                InMemoryJobStore()
            }
        let (found, execution) = try await run.executing(store, writes: settings.outputRootText, watch: watch) {
            [context, resumed, watch, logger, pairing, roots = settings.rootTexts] executor in
            let rounds = SoundRounds(
                executor: executor, context: context, resumed: resumed, watch: watch, logger: logger)
            return await SoundPairing(rules: configuration.pairing, settings: pairing, work: rounds, logger: logger)
                .run(roots: roots)
        }
        var report = SoundPairing.scanReport(found, roots: settings.rootTexts, repaired: settings.outputRootText != nil)
        identifyDevices(&report)
        readSlates(&report)
        var outcome = Run.Outcome(report: report, sound: found)
        let left = found.leftForAPerson
        if !left.isEmpty {
            outcome.problems.append(.clipsLeft(Dictionary(left.map { ($0.why, 1) }, uniquingKeysWith: +)))
        }
        guard let journal, let night = context.run else { return outcome }
        let (status, problem) = run.ending(execution)
        outcome.status = status
        if let problem { outcome.problems.append(problem) }
        record(&outcome, run: night) { () throws(JournalError) in
            try journal.storeReport(run: night, report: report)
        }
        return outcome
    }

    /// The night's run in the journal: the unfinished sound night over these roots resumed (its jobs not finished
    /// dropped, to be planned again), or a new one.
    private func begin(journal: Journal, outputRoot: String) throws(RunError) -> (
        run: Int64, key: Int64, resumed: [JobRecord]
    ) {
        try RunError.journaling(journal) { try beginOrThrow(journal: journal, outputRoot: outputRoot) }
    }

    private func beginOrThrow(journal: Journal, outputRoot: String) throws -> (
        run: Int64, key: Int64, resumed: [JobRecord]
    ) {
        let roots = settings.rootTexts
        if settings.resume != .never && !settings.full,
            let unfinished = try journal.unfinishedRun(roots: roots, outputRoot: outputRoot, pairing: .sound)
        {
            try journal.dropUnfinishedJobs(run: unfinished.id)
            let jobs = try journal.jobs(run: unfinished.id)
            let started = ISO8601DateFormatter().string(from: unfinished.started)
            let clips = jobs.filter { if case .clipSync = $0.work { $0.isFinished } else { false } }.count
            logger.notice(
                "resuming run \(unfinished.id) (started \(started), \(unfinished.status.rawValue)): \(clips) clip\(clips == 1 ? "" : "s") already synced are kept"
            )
            return (unfinished.id, try journal.runKey(unfinished.id), jobs)
        }
        // Names then sound: `--resume` asks for the night by names; the sound's part resumes when it can.
        if settings.resume == .always, settings.pairing == .sound {
            throw RunError.nothingToResume(journal: journal.path, exists: true)
        }
        let run = try journal.beginRun(roots: roots, outputRoot: outputRoot, pairing: .sound)
        return (run, try journal.runKey(run), [])
    }

    /// Each row's device by the configuration's rules, as a scan names a recording's.
    /// Each recording's slate (scene, take, tape, track names), read from its header on this machine's cores.
    private func readSlates(_ report: inout ScanReport) {
        let recordings = Array(Set(report.pairs.map(\.recordingText))).sorted()
        let slates = Parallel.map(recordings, threads: Cores.available) { RecordingProbe.slate(of: $0) }
        let byPath = Dictionary(uniqueKeysWithValues: zip(recordings, slates))
        for index in report.pairs.indices {
            report.pairs[index].slate = byPath[report.pairs[index].recordingText] ?? nil
        }
    }

    private func identifyDevices(_ report: inout ScanReport) {
        let rules = settings.configuration.pairing.device
        for index in report.pairs.indices {
            let recording = report.pairs[index].recordingText
            let root = settings.rootTexts.first { FilePath(recording).isBelow(FilePath($0)) }
            let identity = rules.identify(recording: recording, root: root, metadata: nil)
            report.pairs[index].device = identity.name
            report.pairs[index].deviceSource = identity.source
        }
    }
}
