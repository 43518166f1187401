import ArgumentParser
import DriftKit
import Foundation
import Logging

/// `driftfix sync`: camera clips paired with recorders by their sound, and each clip's audio cut out in sync.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pair clips with recordings by their sound (no names needed) and cut each clip's audio out in sync.",
        discussion: """
            Each ROOT is a group (a shoot: a folder and its subfolders), or several by the configuration's \
            scan.sound-group (a day, a device). Every recording (audio files) and every clip \
            (video files, by the configuration's extensions) is summarised once into a print of its onsets and pitch \
            classes (160 bytes per second); each clip is searched for in every recording of its group, and each place found is measured \
            there (offset, drift, dropouts, confidence) as `driftfix measure` does. A recording may cover many clips; a \
            clip heard by two recorders is listed with both, the one that heard more of it used (then the more confident). A place the measurement does not \
            confirm is listed as uncertain and never used. A clip heard at several places of one recording that fit \
            equally (a playback at every take, a loop) is cut only where a witness chooses one place (a sound only it \
            has, the start timecodes, the takes' order by the devices' clocks); otherwise, like a clip confirmed \
            nowhere or heard by no recording, it is left for a person: listed with its places and what would decide.

            With --out, each clip's audio is cut from its recording: from the clip's first moment to its last, drift \
            corrected, dropouts re-filled, exactly the clip's length at the recording's rate, proved in sync against \
            the clip before it is placed, written as OUT/{the clip's folder}/{clip stem}.wav (scan.sound-output), or \
            with --mux into a copy of the clip in place of its scratch track. Where the recording started late or \
            stopped early, that part is silence and the report says so.

            Runs on this machine, on --threads threads; `driftfix repair --pair-by sound` does the same on workers. \
            Method, accuracy and limits: docs/measuring-by-sound.md. Exit code: 0 when every clip found was written \
            (or listed), 1 when a file could not be read, a clip's audio failed or a clip was left for a person, 2 \
            for usage errors.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, csv }

    @Argument(
        help: "Folders: each one group, or split into groups by the configuration's scan.sound-group (a day, a device)."
    ) var roots: [String]
    @Option(help: ArgumentHelp("Write each clip's audio into this folder.", valueName: "dir")) var out: String?
    @Option(
        help:
            "Pair every file by its sound (sound, the default), or only those names leave unpaired (name-then-sound); default: the configuration's scan.pair-by where it says one of these."
    )
    var pairBy: PairBy?
    @Option(help: ArgumentHelp("Configuration file; default $DRIFTFIX_CONFIG if set.", valueName: "file")) var config:
        String?
    @Option(help: "table (default on a terminal), json or csv.") var format: Format?
    @Option(
        help: ArgumentHelp(
            "Also write report.json, report.csv and report.html (a timeline per recording) into this folder.",
            valueName: "dir")) var report: String?
    @Flag(
        help:
            "Write each clip's synced audio into a copy of the clip in place of its own (video copied packet for packet; PCM in MOV, ALAC in MP4, FLAC in Matroska), named as the clip (default: the configuration's repair.mux)."
    )
    var mux = false
    @Option(help: "Files printed and clips measured at once (default: every core).") var threads: Int?
    @Option(
        help:
            "Resampler quality for the rate correction: fast, medium or best (default: the config's repair.quality, else medium)."
    )
    var quality: ResampleQuality?
    @Option(
        help: ArgumentHelp(
            "The journal: each file's print kept by file fingerprint, so the next run prints only new or changed files; with --out the night itself, so an unchanged clip is not cut again and a stopped night resumes (default: the configuration's journal.path, else with --out OUT/.driftfix/journal.sqlite; without either, nothing is kept).",
            valueName: "file"))
    var journal: String?
    @Flag(help: "Print every file and cut every clip again, even those an earlier run made that still stand.")
    var full = false
    @Flag(
        help:
            "Search every recording for every clip, not only those the index of their landmarks names (the reference the indexed search is tested against; default: the configuration's scan.sound-search)."
    )
    var exhaustiveSearch = false

    @OptionGroup(title: "Timeline")
    var timeline: TimelineOptions

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if pairBy == .name {
            throw ValidationError("--pair-by name pairs nothing by sound: use driftfix scan or repair")
        }
    }

    func run() async throws {
        var sync = Run.Sync(roots: RunCommand.roots(roots), configuration: try loadConfiguration(config))
        // Sound, or names then sound (given, or where the configuration says so); `name` pairs nothing here (refused
        // above).
        switch pairBy {
        case .sound?: sync.pairing = .sound
        case .nameThenSound?: sync.pairing = .nameThenSound
        case .name?, nil: sync.pairing = nil
        }
        sync.outputRoot = out.map(Paths.file)
        sync.quality = quality
        sync.mux = mux ? true : nil
        sync.journalPath = journal.map(Paths.file)
        sync.full = full
        if exhaustiveSearch { sync.configuration.pairing.soundSearch = .exhaustive }
        if let threads { sync.threads = threads }
        sync.timeline = timeline.file
        let logger = Logger(label: "driftfix.sync")
        let outcome = try await RunCommand.run(sync.settings, logger: logger, observer: RepairProgress(logger: logger))
        let result = outcome.sound ?? SoundPairingReport(groups: [])
        switch format ?? (isatty(STDOUT_FILENO) == 1 ? .table : .json) {
        case .table: print(SoundPairingText.table(result))
        case .json: FileHandle.standardOutput.write(try SoundPairingText.json(result) + Data("\n".utf8))
        case .csv: FileHandle.standardOutput.write(Data(SoundPairingText.csv(result).utf8))
        }
        fflush(nil)
        if let report {
            do {
                try SoundPairingText.writeFolder(result, to: Paths.given(report))
            } catch {
                throw failure("\(report): cannot write the report (\(error.localizedDescription))")
            }
            FileHandle.standardError.write(Data("driftfix: report written to \(report)/report.{json,csv,html}\n".utf8))
        }
        try RunCommand.finish(outcome)
    }
}

extension PairBy: ExpressibleByArgument {}
