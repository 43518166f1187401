import DriftAV
import DriftConfig
import DriftCore
import DriftMedia
import DriftRepair
import DriftRules
import DriftSchema
import DriftSupport
import DriftSync
import Foundation
import Logging

import struct SystemPackage.FilePath

/// Pairs camera clips with recordings by what they heard, where names say nothing: within each root (a group: a
/// folder and its subfolders), every file's print is made once, each clip is searched for in every recording, each
/// place the prints find is measured on that stretch of the recording, and (with an output folder) each clip's
/// audio is cut out of its chosen recording in sync, exactly the clip's length. The matching runs here; the prints,
/// measurements and cuts run where `work` puts them (this machine's threads, or workers where the files are).
package struct SoundPairing: Sendable {
    public struct Settings: Sendable {
        /// `sound`: every recording and clip, whatever the names say; `name-then-sound`: only the files the names
        /// leave unpaired (`name` pairs nothing here).
        public var mode: PairBy = .sound
        /// Where the clips' audio goes (the clip's folder below its root, `{clip stem}.wav`); nil lists only.
        public var output: String?
        /// A measured match is used only at this confidence or above (the content policy's floor).
        public var minimumConfidence = 0.5
        /// The lag a written clip may keep against the clip, ms.
        public var residualLimitMs = 1.0
        public var quality: ResampleQuality = .default
        /// The resampling library for cuts from each recording (`repair.engine` and its rules, at `quality`).
        public var engines = RepairPolicy()
        /// Each clip's audio written into a copy of the clip (`repair.mux`), named by `scan.sound-output` with the
        /// clip's own extension.
        public var mux = false
        /// Threads the search uses.
        public var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)

        public init() {}

        /// What the configuration says: its content confidence floor and residual limit, its repair quality.
        public init(configuration: Configuration, mode: PairBy) {
            self.mode = mode
            minimumConfidence = configuration.content.confidenceFloor
            residualLimitMs = configuration.content.residualLimitMs
            quality = configuration.repair.quality
            engines = configuration.repair
            mux = configuration.repair.mux
        }
    }

    public let rules: PairingRules
    public let settings: Settings
    /// Where prints are made and clips measured and cut (this process's threads or workers), and what earlier nights
    /// kept of them.
    private let work: any SoundWork
    private let logger: Logger

    public init(rules: PairingRules, settings: Settings, work: any SoundWork, logger: Logger) {
        self.rules = rules
        self.settings = settings
        self.work = work
        self.logger = logger
    }

    /// Each root, split into groups by `rules.soundGroup` (by default one group a root).
    public func run(roots: [String]) async -> SoundPairingReport {
        var claimed: [String: String] = [:]
        var groups: [SoundPairingReport.Group] = []
        for root in roots { groups += await self.groups(root, claimed: &claimed) }
        return SoundPairingReport(groups: groups)
    }

    private typealias Printed = (path: String, print: SoundPrint, timecode: Double?, started: Double?)

    /// A root's files printed: the recordings and clips with a print, the clips without sound, the files that failed.
    private struct PrintedFiles {
        var recordings: [Printed] = []
        var clips: [Printed] = []
        var silentClips: [String] = []
        var errors: [SoundPairingReport.FileError] = []
        /// Prints kept from an earlier run.
        var kept = 0
    }

    /// A root's groups searched: the clip tasks to settle, the findings an earlier night made that still stand, and
    /// each group's clips and recordings.
    private struct Searched {
        var groups: [SoundPairingReport.Group] = []
        var tasks: [(group: Int, task: ClipTask)] = []
        var kept: [(group: Int, clip: String, rows: [SoundPairingReport.Match])] = []
        var recordings: [[String]] = []
        var clips: [[String]] = []
    }

    /// - Parameter claimed: outputs already given to a clip in this run, by the clip: two clips never share one.
    private func groups(_ root: String, claimed: inout [String: String]) async -> [SoundPairingReport.Group] {
        // Every video here is a clip to find, with or without a track of its own: no file needs opening to list them.
        var listing = rules
        listing.selfPairs = false
        let inventory = FolderScanner.scan(roots: [root], rules: listing)
        let listed = inventory.issues
        if settings.mode == .name { return [SoundPairingReport.Group(folder: root, errors: listed)] }
        let named = settings.mode == .sound ? inventory.pairs.filter { $0.recording != $0.reference } : []
        let recordings = Array(
            Set(named.map(\.recording) + inventory.unpaired.filter { $0.kind == .recording }.map(\.pathText))
        ).sorted()
        let clips = Array(
            Set(named.map(\.reference) + inventory.unpaired.filter { $0.kind == .reference }.map(\.pathText))
        )
        .filter { !$0.hasSuffix(".duration") }.sorted()

        let clock = ContinuousClock()
        var began = clock.now
        func took() -> String {
            let now = clock.now
            defer { began = now }
            return String(format: "%.2f s", (now - began).seconds)
        }
        // 1. Every file's print, once.
        var printed = await printAll(recordings: recordings, clips: clips)
        printed.errors = listed + printed.errors
        logger.info(
            "\(root): \(printed.recordings.count) recordings and \(printed.clips.count) clips printed (\(printed.kept) prints kept from an earlier run) in \(took())"
        )
        // 2. Each group searched apart.
        var searched = searchGroups(printed, root: root, claimed: &claimed)
        logger.info(
            "\(root): \(printed.clips.count - searched.kept.count) clips searched for in \(printed.recordings.count) recordings (\(searched.kept.count) as an earlier night found them) in \(took())"
        )
        // 3. Each clip's places measured, the recording that heard it chosen, its audio cut (where the work runs).
        var settled = await work.clips(searched.tasks.map(\.task))
        logger.info("\(root): \(searched.tasks.count) clips settled in \(took())")
        // 4. Clips whose sound repeats in a recording, decided by when they were filmed: cut where the order puts them.
        let decided = await placeByTakeOrder(searched.tasks.map(\.task), settled: &settled, printed: printed)
        if decided > 0 {
            logger.info("\(root): \(decided) clips whose sound repeats placed by the takes' order in \(took())")
        }
        let outcomes =
            zip(searched.tasks, settled).map { ($0.group, $1) } + searched.kept.map { ($0.group, $0.rows) }
        for (g, rows) in outcomes {
            for row in rows { log(row) }
            searched.groups[g].matches += rows
        }
        return classified(searched, printed: printed, root: root)
    }

    /// Every recording's and clip's print (`work` decides where they are made, and keeps those still valid).
    private func printAll(recordings: [String], clips: [String]) async -> PrintedFiles {
        let prints = await work.prints(recordings + clips)
        var printed = PrintedFiles()
        for (index, path) in (recordings + clips).enumerated() {
            switch prints[index] {
            case .failed(let error):
                logger.error("\(error.hasPrefix(path) ? error : "\(path): \(error)")")
                printed.errors.append(SoundPairingReport.FileError(path: path, error: error))
            case .printed(let file, let kept):
                if kept { printed.kept += 1 }
                if let print = file.print {
                    let entry = (path, print, file.timecode, file.started)
                    if index < recordings.count {
                        printed.recordings.append(entry)
                    } else {
                        printed.clips.append(entry)
                    }
                } else if index >= recordings.count {
                    printed.silentClips.append(path)
                }
            }
        }
        return printed
    }

    /// Each group searched apart: each clip in every recording of its group; each clear place becomes part of the
    /// clip's task. A clip whose earlier finding still stands (nothing it rests on changed) is not searched again.
    private func searchGroups(_ printed: PrintedFiles, root: String, claimed: inout [String: String]) -> Searched {
        let grouping = rules.soundGroup
        let everyFile = printed.recordings.map(\.path) + printed.clips.map(\.path) + printed.silentClips
        let names = Dictionary(
            uniqueKeysWithValues: zip(everyFile, parallel(everyFile) { grouping.group(of: $0, root: root) }))
        var lengths: [String: (frames: Int64, sampleRate: Int)] = [:]
        var searched = Searched()
        for name in Set(names.values).sorted() {
            var group = SoundPairingReport.Group(folder: root)
            group.name = grouping.parts.isEmpty ? nil : name
            searched.clips.append(
                printed.silentClips.filter { names[$0] == name }
                    + printed.clips.map(\.path).filter { names[$0] == name })
            let inGroup = printed.recordings.filter { names[$0.path] == name }
            var unsettled: [Printed] = []
            for clip in printed.clips where names[clip.path] == name {
                let group = inGroup.map(\.path)
                if let rows = work.earlier(clip: clip.path, group: group, settings: deciding(group: group)) {
                    searched.kept.append((searched.groups.count, clip.path, rows))
                    for output in rows.compactMap(\.outputText) { claimed[output] = clip.path }
                } else {
                    unsettled.append(clip)
                }
            }
            let planned = search(unsettled, in: inGroup, root: root, lengths: &lengths, claimed: &claimed)
            searched.tasks += planned.map { (searched.groups.count, $0) }
            searched.recordings.append(inGroup.map(\.path))
            searched.groups.append(group)
        }
        if searched.groups.isEmpty { searched.groups.append(SoundPairingReport.Group(folder: root)) }
        searched.groups[0].errors = printed.errors
        return searched
    }

    /// Clips whose sound repeats in a recording, placed again where the takes' order puts them; how many.
    private func placeByTakeOrder(
        _ tasks: [ClipTask], settled: inout [[SoundPairingReport.Match]], printed: PrintedFiles
    ) async -> Int {
        let started = Dictionary(
            (printed.recordings + printed.clips).compactMap { entry in entry.started.map { (entry.path, $0) } },
            uniquingKeysWith: { first, _ in first })
        let decided = takeOrder(Array(zip(tasks, settled)), started: started)
        guard !decided.isEmpty else { return 0 }
        let again = await work.clips(decided.map(\.task))
        for ((index, chosen, task), rows) in zip(decided, again) {
            settled[index] = Self.chosenByTakeOrder(settled[index], place: chosen, rows: rows, task: task)
        }
        return decided.count
    }

    /// A clip's row in the log: a failure as an error, a cut as a notice.
    private func log(_ row: SoundPairingReport.Match) {
        switch row.status {
        case .failed: logger.error("\(row.referenceText): \(row.note ?? "failed")")
        case .used where row.output != nil:
            logger.notice(
                "\(row.referenceText): \(row.outputText ?? "") from \(row.recordingText), \(row.outputFrames ?? 0) frames, residual \(row.content?.residualMs.map { "\($0) ms" } ?? "n/a")"
            )
        default: break
        }
    }

    /// The groups with each device's pooled drift and each file's one status: a clip paired, repeated, unconfirmed,
    /// too short, silent or unheard; a recording that heard a clip, heard clips only at places left for a person,
    /// or heard none.
    private func classified(_ searched: Searched, printed: PrintedFiles, root: String) -> [SoundPairingReport.Group] {
        var groups = searched.groups
        let devices = rules.device
        // Shorter than the measurement's least (a second of recording): too short to search for.
        let short = Set(printed.clips.filter { $0.print.seconds < 1 }.map(\.path))
        for g in groups.indices {
            groups[g].matches = Self.pooledDrift(groups[g].matches) {
                devices.identify(recording: $0, root: root, metadata: nil).name
            }
            groups[g].classify(
                clips: g < searched.clips.count ? searched.clips[g] : [],
                recordings: g < searched.recordings.count ? searched.recordings[g] : [],
                silent: Set(printed.silentClips), short: short)
        }
        return groups
    }

    /// What decides a clip's finding beyond the files: the versions of the search and the measurement, the thresholds,
    /// how and where it is cut (quality, each recording's engine, mux, the output folder and template).
    private func deciding(group: [String]) -> String {
        let engines = group.map { settings.engines.engine(forPathText: $0).engine(for: settings.quality).rawValue }
        return
            "search v\(SoundMatcher.version), sync v\(ClipSync.version); confidence \(settings.minimumConfidence), residual \(settings.residualLimitMs) ms; \(settings.quality.rawValue)\(settings.mux ? ", mux" : ""); engines \(engines.joined(separator: ",")); into \(settings.output ?? "-") as \(rules.soundOutput)"
    }

    /// Each clip searched for in `recordings`: a task per clip heard clearly somewhere (a clip heard nowhere has none).
    private func search(
        _ clipPrints: [Printed], in recordingPrints: [Printed], root: String,
        lengths: inout [String: (frames: Int64, sampleRate: Int)], claimed: inout [String: String]
    )
        -> [ClipTask]
    {
        let matcher = SoundMatcher(recordings: recordingPrints.map(\.print), indexed: rules.soundSearch == .indexed)
        let recordingPaths = recordingPrints.map(\.path)
        let recordingTimecodes = recordingPrints.map { ($0.timecode, $0.print.seconds) }
        let logger = logger
        let searched = parallel(clipPrints) { clip -> [SoundCandidate] in
            let candidates = matcher.candidates(
                for: clip.print, hints: Self.hints(clip.timecode, clip.print.seconds, recordingTimecodes))
            for c in candidates {
                logger.debug(
                    "\(clip.path) in \(recordingPaths[c.recording]): \(String(format: "%.3f s, clarity %.1f, ambiguity %.2f, coverage %.2f, sharp %.1f/%.2f", c.startSeconds, c.clarity, c.ambiguity, c.coverage, c.sharpClarity ?? -1, c.sharpAmbiguity ?? -1))\(c.byHarmony == true ? ", by harmony" : "")\(c.repeated == true ? ", repeated" : "")\(c.tentative == true ? ", tentative" : "")\(c.rivals.map { ", \($0) rivals" } ?? "")\(c.isWorthMeasuring ? "" : ", not measured")"
                )
            }
            return candidates.filter(\.isWorthMeasuring)
        }
        // A recording's length is counted once however many clips it heard (a cached print carries none).
        let known = lengths
        let uncounted = Set(searched.flatMap { $0.map { recordingPaths[$0.recording] } }).filter { known[$0] == nil }
            .sorted()
        for (path, length) in zip(uncounted, parallel(uncounted) { try? AudioInput.length(of: $0) }) {
            lengths[path] = length
        }

        var tasks: [ClipTask] = []
        for (c, candidates) in searched.enumerated() where !candidates.isEmpty {
            let clip = clipPrints[c]
            var places: [ClipTask.Place] = []
            for candidate in candidates {
                let recording = recordingPrints[candidate.recording]
                var place = ClipTask.Place(recording: recording.path, candidate: candidate)
                place.timecodeStartSeconds = timecodeStart(clip.timecode, recording.timecode)
                place.recordingFrames = lengths[recording.path]?.frames
                place.sampleRate = lengths[recording.path]?.sampleRate
                place.engine = settings.engines.engine(forPathText: recording.path).engine(for: settings.quality)
                if let output = settings.output {
                    var target = Self.outputPath(
                        clip: clip.path, recording: recording.path, root: root, output: output,
                        template: rules.soundOutput)
                    if settings.mux {
                        var copy = FilePath(target)
                        copy.extension = FilePath(clip.path).extension
                        target = copy.string
                    }
                    // Two clips named alike (C0001.MP4 in two folders under a template without {folder}, or in two
                    // roots) would write one file: the first keeps it, the others fail by name.
                    if let other = claimed[target], other != clip.path {
                        place.outputConflict =
                            "\(target) is also \(other)'s output: scan.sound-output must tell them apart ({folder}, {recording})"
                    } else {
                        claimed[target] = clip.path
                        place.outputText = target
                    }
                }
                places.append(place)
            }
            tasks.append(
                ClipTask(
                    clip: clip.path, clipSeconds: clip.print.seconds, places: places,
                    minimumConfidence: settings.minimumConfidence, residualLimitMs: settings.residualLimitMs,
                    quality: settings.quality, mux: settings.mux))
        }
        return tasks
    }

    /// Where the timecodes put a clip in each recording that carries one (and reaches it), by the recording's index.
    private static func hints(_ clipTimecode: Double?, _ clipSeconds: Double, _ recordings: [(Double?, Double)])
        -> [Int: Double]
    {
        guard let clipTimecode else { return [:] }
        var hints: [Int: Double] = [:]
        for (r, (timecode, seconds)) in recordings.enumerated() {
            guard let timecode else { continue }
            let start = timeOfDayDifference(clipTimecode, timecode)
            if start > -clipSeconds, start < seconds { hints[r] = start }
        }
        return hints
    }

    /// The clip's start in the recording by their timecodes, seconds.
    private func timecodeStart(_ clip: Double?, _ recording: Double?) -> Double? {
        guard let clip, let recording else { return nil }
        return Self.timeOfDayDifference(clip, recording)
    }

    /// `a − b` for two times of day, seconds, taken across midnight where that is nearer (a recording started at
    /// 23:58 and a clip at 00:05 are 7 minutes apart, not 23 hours 53).
    static func timeOfDayDifference(_ a: Double, _ b: Double) -> Double {
        var difference = (a - b).truncatingRemainder(dividingBy: 86_400)
        if difference > 43_200 { difference -= 86_400 }
        if difference <= -43_200 { difference += 86_400 }
        return difference
    }

    /// The output for a clip: `template` (`scan.sound-output`) below `output`, its `{folder}` the clip's folder below
    /// the root, `{stem}` the clip's name without extension, `{recording}` the recording's.
    static func outputPath(clip: String, recording: String, root: String, output: String, template: String) -> String {
        let base = root.hasSuffix("/") ? root : root + "/"
        let relative = clip.hasPrefix(base) ? String(clip.dropFirst(base.count)) : (clip as NSString).lastPathComponent
        let folder = (relative as NSString).deletingLastPathComponent
        let name =
            template
            .replacingOccurrences(of: "{folder}", with: folder)
            .replacingOccurrences(
                of: "{stem}", with: ((clip as NSString).lastPathComponent as NSString).deletingPathExtension
            )
            .replacingOccurrences(
                of: "{recording}", with: ((recording as NSString).lastPathComponent as NSString).deletingPathExtension)
        let parts = name.split(separator: "/").filter { !$0.isEmpty && $0 != "." }
        return (output as NSString).appendingPathComponent(parts.joined(separator: "/"))
    }

    private func parallel<T: Sendable, R: Sendable>(_ items: [T], _ body: @Sendable (T) -> R) -> [R] {
        Parallel.map(items, threads: settings.threads, body)
    }
}
