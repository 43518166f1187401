import DriftConfig
import DriftCore
import DriftJournal
import DriftMedia
import DriftPipeline
import DriftSchema
import DriftSync
import Foundation
import Logging
import Synchronization

/// Pairs camera clips with recordings by what they heard, where names say nothing: within each root (a group: a
/// folder and its subfolders), every file's print is made once, each clip is searched for in every recording, each
/// place the prints find is measured on that stretch of the recording, and (with an output folder) each clip's
/// audio is cut out of its chosen recording in sync, exactly the clip's length.
public struct SoundPairing: Sendable {
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
        public var engine: ResampleEngine = .default
        /// Files printed and clips measured at once.
        public var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        /// Where prints are kept by file fingerprint (a night prints only files that are new or changed); nil: none.
        public var journal: Journal?

        public init() {}

        /// What the configuration says: its content confidence floor and residual limit, its repair quality.
        public init(configuration: Configuration, mode: PairBy) {
            self.mode = mode
            minimumConfidence = configuration.content.confidenceFloor
            residualLimitMs = configuration.content.residualLimitMs
            quality = configuration.repair.quality
        }
    }

    public let rules: PairingRules
    public let settings: Settings
    private let logger: Logger

    public init(rules: PairingRules, settings: Settings, logger: Logger) {
        self.rules = rules
        self.settings = settings
        self.logger = logger
    }

    /// Each root as one group.
    public func run(roots: [String]) -> SoundPairingReport {
        var claimed: [String: String] = [:]
        return SoundPairingReport(groups: roots.map { group($0, claimed: &claimed) })
    }

    /// - Parameter claimed: outputs already written in this run, by the clip they hold: two clips never share one.
    private func group(_ root: String, claimed: inout [String: String]) -> SoundPairingReport.Group {
        var group = SoundPairingReport.Group(folder: root)
        let inventory = FolderScanner.scan(roots: [root], rules: rules)
        group.errors = inventory.issues.map { SoundPairingReport.FileError(path: $0.path, error: $0.error) }
        if settings.mode == .name { return group }
        // A video with its own audio is a pair by itself by name; here it is a clip to find.
        let selfPaired = inventory.pairs.filter { $0.recording == $0.reference }.map(\.reference)
        let named = settings.mode == .sound ? inventory.pairs.filter { $0.recording != $0.reference } : []
        let recordings = Array(Set(named.map(\.recording) + inventory.unpaired.filter { $0.kind == .recording }.map(\.path))).sorted()
        let clips = Array(Set(named.map(\.reference) + selfPaired + inventory.unpaired.filter { $0.kind == .reference }.map(\.path)))
            .filter { !$0.hasSuffix(".duration") }.sorted()

        // 1. Every file's print, once.
        let kept = Atomic<Int>(0)
        let prints = parallel(recordings + clips) { path -> (Result<SoundPrint?, Error>, Double?) in
            let (result, timecode, reused) = printOf(path)
            if reused { kept.add(1, ordering: .relaxed) }
            return (result, timecode)
        }
        var recordingPrints: [(path: String, print: SoundPrint, timecode: Double?)] = []
        var clipPrints: [(path: String, print: SoundPrint, timecode: Double?)] = []
        for (index, path) in (recordings + clips).enumerated() {
            switch prints[index].0 {
            case .success(let print?):
                let entry = (path, print, prints[index].1)
                if index < recordings.count { recordingPrints.append(entry) } else { clipPrints.append(entry) }
            case .success(nil):
                if index >= recordings.count { group.unmatchedClips.append(path) }
            case .failure(let error):
                logger.error("\(path): \(error)")
                group.errors.append(SoundPairingReport.FileError(path: path, error: "\(error)"))
            }
        }
        logger.info("\(root): \(recordingPrints.count) recordings and \(clipPrints.count) clips printed (\(kept.load(ordering: .relaxed)) prints kept from an earlier run)")

        // 2. Each clip searched for in every recording; each clear place measured there.
        let matcher = SoundMatcher(recordings: recordingPrints.map(\.print))
        let recordingPaths = recordingPrints.map(\.path)
        let recordingTimecodes = recordingPrints.map { ($0.timecode, $0.print.seconds) }
        let lengths = Lengths()
        let found = parallel(clipPrints) { clip -> [Measured] in
            // Where the timecodes put the clip in each recording that carries one (and reaches it).
            var hints: [Int: Double] = [:]
            if let clipTimecode = clip.timecode {
                for (r, (timecode, seconds)) in recordingTimecodes.enumerated() {
                    guard let timecode else { continue }
                    let start = Self.timeOfDayDifference(clipTimecode, timecode)
                    if start > -clip.print.seconds, start < seconds { hints[r] = start }
                }
            }
            let candidates = matcher.candidates(for: clip.print, hints: hints)
            for c in candidates {
                logger.debug("\(clip.path) in \(recordingPaths[c.recording]): \(String(format: "%.3f s, clarity %.1f, ambiguity %.2f, coverage %.2f, sharp %.1f/%.2f", c.startSeconds, c.clarity, c.ambiguity, c.coverage, c.sharpClarity ?? -1, c.sharpAmbiguity ?? -1))")
            }
            return candidates.filter(\.isClear).map { candidate in
                var measured = measure(clip: clip.path, seconds: clip.print.seconds, recording: recordingPaths[candidate.recording],
                                       candidate: candidate, lengths: lengths)
                if let predicted = hints[candidate.recording] ?? timecodeStart(clip.timecode, recordingTimecodes[candidate.recording].0) {
                    measured.match.timecodeStartSeconds = predicted
                    if let start = measured.match.recordingStartSeconds {
                        let agrees = abs(start - predicted) <= 0.1 + 1e-3 * abs(start)
                        measured.match.timecodeAgrees = agrees
                        if !agrees {
                            let note = String(format: "timecode disagrees: it puts the clip %+.3f s from where its sound is", predicted - start)
                            measured.match.note = measured.match.note.map { $0 + "; " + note } ?? note
                        }
                    }
                }
                return measured
            }
        }

        // 3. The chosen recording per clip: of the sure matches, the one that heard most of it, then the most confident.
        var chosen: [(clip: Int, match: Int)] = []
        var placements: [ClipSync.Placement?] = []
        for (c, measured) in found.enumerated() {
            var rows = measured.map(\.match)
            placements += measured.map(\.placement)
            let sure = rows.indices.filter { rows[$0].status != .uncertain }
            // The recording that heard more of the clip, then the more confident one.
            func rank(_ i: Int) -> (Double, Double) { ((rows[i].coverage * 100).rounded(), rows[i].content?.confidence ?? 0) }
            if let best = sure.max(by: { rank($0) < rank($1) }) {
                for i in sure { rows[i].status = i == best ? .used : .alternative }
                chosen.append((c, group.matches.count + best))
            } else {
                group.unmatchedClips.append(clipPrints[c].path)
            }
            group.matches += rows
        }
        let heard = Set(group.matches.filter { $0.status != .uncertain }.map(\.recording))
        group.unmatchedRecordings = recordingPrints.map(\.path).filter { !heard.contains($0) }

        // 4. Each chosen clip's audio, cut in sync.
        if let output = settings.output {
            // Two clips named alike (C0001.MP4 in two folders under a template without {folder}, or in two roots)
            // would write one file: the first keeps it, the others fail by name.
            var unique: [(clip: Int, match: Int)] = []
            for pick in chosen {
                let row = group.matches[pick.match]
                let target = Self.outputPath(clip: row.reference, recording: row.recording, root: root, output: output,
                                             template: rules.soundOutput)
                if let other = claimed[target] {
                    group.matches[pick.match].status = .failed
                    group.matches[pick.match].note = "\(target) is also \(other)'s output: scan.sound-output must tell them apart ({folder}, {recording})"
                    logger.error("\(row.reference): \(target) is also \(other)'s output")
                } else {
                    claimed[target] = row.reference
                    unique.append(pick)
                }
            }
            let rows = group.matches, places = placements
            let written = parallel(unique) { pick in repair(rows[pick.match], places[pick.match], root: root, output: output) }
            for (k, pick) in unique.enumerated() { group.matches[pick.match] = written[k] }
        }
        group.unmatchedClips.sort()
        return group
    }

    /// `path`'s print and start timecode: kept in the journal while the file is unchanged, else made (and kept).
    private func printOf(_ path: String) -> (Result<SoundPrint?, Error>, Double?, reused: Bool) {
        let fingerprint = settings.journal == nil ? nil : FileFingerprint.of(path: path)
        if let journal = settings.journal, let fingerprint {
            do {
                if let stored = try journal.soundPrint(path: path, fingerprint: fingerprint), let print = SoundPrint(bytes: stored.print) {
                    return (.success(print), stored.timecode, true)
                }
            } catch {
                logger.warning("\(error)")
            }
        }
        let result = Result { try ClipSync.print(of: path) }
        let timecode = StartTimecode.seconds(of: path)
        if let journal = settings.journal, let fingerprint, case .success(let print?) = result {
            do {
                try journal.storeSoundPrint(path: path, fingerprint: fingerprint, print: print.bytes, timecode: timecode)
            } catch {
                logger.warning("\(error)")
            }
        }
        return (result, timecode, false)
    }

    /// Each recording's frames and rate, counted once however many clips it heard (a compressed file is counted by
    /// decoding it whole).
    private final class Lengths: Sendable {
        private let counted = Mutex<[String: (frames: Int64, sampleRate: Int)]>([:])

        func of(_ path: String) throws -> (frames: Int64, sampleRate: Int) {
            if let known = counted.withLock({ $0[path] }) { return known }
            let length = try MediaRoute.frames(of: path)
            counted.withLock { $0[path] = length }
            return length
        }
    }

    /// A report row and, where the measurement ran, what it found.
    private struct Measured: Sendable {
        var match: SoundPairingReport.Match
        var placement: ClipSync.Placement?
    }

    private func measure(clip: String, seconds: Double, recording: String, candidate: SoundCandidate, lengths: Lengths) -> Measured {
        do {
            let placement = try ClipSync.measure(recording: recording, clip: clip, candidate: candidate, clipSeconds: seconds,
                                                 recordingLength: try lengths.of(recording))
            let sure = placement.isConfirmed(minimumConfidence: settings.minimumConfidence)
            let coverage = Self.coverage(placement)
            let match = SoundPairingReport.Match(
                reference: clip, recording: recording, recordingStartSeconds: placement.recordingStartSeconds,
                recordingEndSeconds: placement.recordingEndSeconds, coverage: coverage ?? candidate.coverage,
                clarity: candidate.clarity, content: placement.content, status: sure ? .alternative : .uncertain,
                note: sure ? nil : "not confirmed by the measurement: \(placement.content.reason ?? "confidence \(String(format: "%.2f", placement.content.confidence)) under \(settings.minimumConfidence)")")
            return Measured(match: match, placement: placement)
        } catch {
            logger.error("\(clip) in \(recording): \(error)")
            let match = SoundPairingReport.Match(
                reference: clip, recording: recording, recordingStartSeconds: candidate.startSeconds, recordingEndSeconds: nil,
                coverage: candidate.coverage, clarity: candidate.clarity, content: nil, status: .uncertain, note: "\(error)")
            return Measured(match: match, placement: nil)
        }
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

    /// The share of the clip inside the recording, from the measured place.
    static func coverage(_ placement: ClipSync.Placement) -> Double? {
        guard let start = placement.recordingStartSeconds, let end = placement.recordingEndSeconds, end > start else { return nil }
        let length = Double(placement.recordingFrames) / Double(placement.sampleRate)
        return max(0, min(end, length) - max(start, 0)) / (end - start)
    }

    private func repair(_ match: SoundPairingReport.Match, _ placement: ClipSync.Placement?, root: String, output: String)
        -> SoundPairingReport.Match
    {
        var row = match
        let target = Self.outputPath(clip: match.reference, recording: match.recording, root: root, output: output,
                                     template: rules.soundOutput)
        do {
            guard let placement else { throw ContentRefusal("not measured") }
            let (clipFrames, clipRate) = try MediaRoute.frames(of: match.reference)
            // The clip's length at the recording's rate, in integers.
            let rate = Int128(placement.sampleRate)
            let frames = Int64((Int128(clipFrames) * rate * 2 + Int128(clipRate)) / (2 * Int128(clipRate)))
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let repair = try ClipSync.repair(placement, clipFrames: frames, output: target, quality: settings.quality,
                                             engine: settings.engine, limitMs: settings.residualLimitMs)
            row.output = target
            row.outputFrames = repair.result.outputFrames
            row.operations = repair.operations.map { $0.description }
            row.content?.residualMs = repair.verification.residualMs
            row.content?.residualLimitMs = repair.verification.limitMs
            if match.coverage < 0.999 {
                row.note = "the recording heard \(Int((match.coverage * 100).rounded())) % of the clip; the rest is silence"
            }
            logger.notice("\(match.reference): \(target) from \(match.recording), \(repair.result.outputFrames) frames, residual \(repair.verification.residualMs.map { "\($0) ms" } ?? "n/a")")
        } catch {
            row.status = .failed
            row.note = "\(error)"
            logger.error("\(match.reference): \(error)")
        }
        return row
    }

    /// The output for a clip: `template` (`scan.sound-output`) below `output`, its `{folder}` the clip's folder below
    /// the root, `{stem}` the clip's name without extension, `{recording}` the recording's.
    static func outputPath(clip: String, recording: String, root: String, output: String, template: String) -> String {
        let base = root.hasSuffix("/") ? root : root + "/"
        let relative = clip.hasPrefix(base) ? String(clip.dropFirst(base.count)) : (clip as NSString).lastPathComponent
        let folder = (relative as NSString).deletingLastPathComponent
        let name = template
            .replacingOccurrences(of: "{folder}", with: folder)
            .replacingOccurrences(of: "{stem}", with: ((clip as NSString).lastPathComponent as NSString).deletingPathExtension)
            .replacingOccurrences(of: "{recording}", with: ((recording as NSString).lastPathComponent as NSString).deletingPathExtension)
        let parts = name.split(separator: "/").filter { !$0.isEmpty && $0 != "." }
        return (output as NSString).appendingPathComponent(parts.joined(separator: "/"))
    }

    /// `work` over `items` on `settings.threads` threads, results in order.
    private func parallel<T: Sendable, R: Sendable>(_ items: [T], _ work: @Sendable (T) -> R) -> [R] {
        let results = Mutex<[Int: R]>([:])
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(settings.threads, max(1, items.count))) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < items.count else { return }
                let result = work(items[index])
                results.withLock { $0[index] = result }
            }
        }
        return results.withLock { map in items.indices.compactMap { map[$0] } }
    }
}
