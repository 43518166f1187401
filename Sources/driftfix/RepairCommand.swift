import ArgumentParser
import DriftKit
import Foundation
import Logging

/// `driftfix repair`: scan, then repair every drifted pair on worker processes over ZeroMQ.
struct RepairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Scan the roots and repair every drifted recording on local or remote workers (ZeroMQ).",
        discussion: """
            With no --bind, it starts --workers local worker processes (default: one per core) and talks to them \
            over ipc://. With --bind tcp://HOST:PORT it waits for workers started elsewhere with \
            `driftfix worker --connect tcp://HOST:PORT` (use --workers 0, or also start some locally); a network endpoint \
            needs CURVE keys (--curve-secret and --allow, see `driftfix keygen`) or --insecure-plaintext. Outputs mirror \
            the input tree under --out; originals are never modified; in-sync pairs are skipped and refused pairs \
            reported, not touched. SIGINT/SIGTERM stop dispatch, let running jobs finish (bounded) and write the \
            report. Exit code 0 when every pair was repaired, unchanged or skipped, 1 otherwise, 2 for usage errors.

            Every run is recorded in a journal (default OUT/.driftfix/journal.sqlite), each job state before it is \
            acted upon. If a run did not finish (crash, reboot, SIGTERM, no workers), the next `driftfix repair` over \
            the same roots resumes it: verified work is kept, jobs out on lease run again. A pair whose recording, \
            reference, plan and verified output are unchanged since an earlier run is not repaired again (outcome \
            `unchanged`); --full redoes everything. See also `driftfix history`, and docs/operations.md (keys, \
            workers, metrics, what to do when a night misbehaves).
            """
    )

    @Argument(help: "Folders to scan and repair.")
    var roots: [String]

    @Option(help: ArgumentHelp("Output root: repaired files mirror the input tree here.", valueName: "dir"))
    var out: String

    @Option(help: ArgumentHelp("Write report.json, report.csv and report.html here.", valueName: "dir"))
    var report: String?

    @Option(help: ArgumentHelp("Configuration file; default $DRIFTFIX_CONFIG if set.", valueName: "file"))
    var config: String?

    @Option(help: "Resampler quality (default: the config's, else medium).")
    var quality: ResampleQuality?

    @Option(
        help:
            "Resampling engine for every pair: auto (polyphase, driftfix's own kernel, at medium and best; soxr at fast: the fastest at equal or better quality), polyphase, soxr or libsamplerate; default: the config's repair.engine and rules."
    )
    var engine: EngineChoice?

    @Option(
        name: .customLong("max-attempts"),
        help: ArgumentHelp(
            "Hand a job to workers at most this many times; a worker dying while running it uses one (default: the config's repair.max-attempts, 3).",
            valueName: "n"))
    var maxAttempts: Int?

    @Option(
        help: ArgumentHelp(
            "Run journal (default: the config's journal.path, else OUT/.driftfix/journal.sqlite).", valueName: "file"))
    var journal: String?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Resume the unfinished run over these roots (default: resume when there is one; --resume fails when there is none; --no-resume starts afresh)."
    )
    var resume: Bool?

    @Flag(help: "Repair every drifted pair, even those whose output from an earlier run is still current.")
    var full = false

    @Option(
        help: ArgumentHelp(
            "Write Prometheus metrics here after the run (default: the config's metrics.textfile).", valueName: "file"))
    var metrics: String?

    @OptionGroup
    var liveMetrics: MetricsServingOptions<RepairCommand>

    @Option(
        help:
            "name (default), sound or name-then-sound: with sound, clips are found in recordings by what they heard and each clip's audio is cut out of its recording in sync as OUT/{clip folder}/{clip stem}.wav, here, as `driftfix sync` does (default: the configuration's scan.pair-by)."
    )
    var pairBy: PairBy?

    @Flag(
        help:
            "With --pair-by sound: write each clip's synced audio into a copy of the clip in place of its own (video copied packet for packet; PCM in MOV, ALAC in MP4, FLAC in Matroska), named as the clip (default: the configuration's repair.mux)."
    )
    var mux = false

    @OptionGroup(title: "Workers")
    var dispatch: DispatchOptions

    @OptionGroup(title: "Timeline (pairing by sound)")
    var timeline: TimelineOptions

    func validate() throws {
        if let maxAttempts, !(1...100).contains(maxAttempts) {
            throw ValidationError("--max-attempts must be from 1 to 100")
        }
        _ = try liveMetrics.address()
    }

    func run() async throws {
        var repair = Run.Repair(
            roots: RunCommand.roots(roots), outputRoot: Paths.file(out), configuration: try loadConfiguration(config))
        repair.configurationPath = config.map(Paths.file)
        repair.pairBy = pairBy
        repair.quality = quality
        repair.engine = engine
        repair.mux = mux ? true : nil
        repair.journalPath = journal.map(Paths.file)
        repair.resume = resume.map { $0 ? .always : .never } ?? .whenUnfinished
        repair.full = full
        repair.metricsFile = metrics.map(Paths.file)
        repair.metricsAddress = try liveMetrics.address()
        if let maxAttempts { repair.configuration.maxAttempts = maxAttempts }
        repair.work = try dispatch.work(configuration: repair.configuration, configPath: config)
        repair.timeline = timeline.file
        let logger = Logger(label: "driftfix.repair")
        let outcome = try await RunCommand.run(
            repair.settings, logger: logger, observer: RepairProgress(logger: logger))
        let report = outcome.report
        print(ReportTable.render(report, relativeTo: repair.roots.count == 1 ? repair.roots[0].pathText : nil))
        print(RunCommand.outcomeLine(report))
        fflush(nil)  // the table first, then the notes on stderr
        if let folder = self.report { try writeReportFolder(report, to: folder) }
        try RunCommand.finish(outcome)
    }
}

extension RepairCommand: ServesMetrics {
    static let metricsAddressHelp =
        "Serve live metrics at http://ADDRESS/metrics (and /healthz) while the run goes on: PORT (loopback) or HOST:PORT."
}
