import DriftCore

public import struct SystemPackage.FilePath

/// One pair in a drift report: measurements, cause and plan (or the error that stopped them).
/// Field names are the report's stable JSON/CSV columns.
public struct PairReport: Codable, Sendable, Equatable {
    /// The recording, its audio measured and repaired.
    public var recording: FilePath {
        get { FilePath(pathText: recordingText) }
        set { recordingText = newValue.pathText }
    }
    /// What the recording is measured against (usually the video recorded with it).
    public var reference: FilePath {
        get { FilePath(pathText: referenceText) }
        set { referenceText = newValue.pathText }
    }
    /// The recording's folder.
    public var folder: FilePath {
        get { FilePath(pathText: folderText) }
        set { folderText = newValue.pathText }
    }
    /// `recording`, `reference` and `folder` as the report's JSON, CSV and journal hold them (`PathText`).
    package var recordingText: String
    package var referenceText: String
    package var folderText: String
    /// The recorder the recording came from (`scan.device`: a folder under the root, a path pattern, or metadata);
    /// QA groups, trends and alerts by it.
    public var device: String
    /// What named the device: `folder`, `path {1}`, `pattern ...`, `bwf-originator`, `ixml:...`, `quicktime`,
    /// `encoder`.
    public var deviceSource: String
    public var sampleRate: Int?
    public var channels: Int?
    public var format: String?
    public var recordingFrames: Int64?
    package var recordingSeconds: Double?
    package var referenceSeconds: Double?
    /// The reference duration exactly, as "ticks/timescale" seconds.
    public var referenceDuration: String?
    /// Where the reference duration came from: "edit list", "media header", "audio header", "sidecar", ...
    public var referenceSource: String?
    /// What the clock lost (negative) or gained over the take, seconds (by the lengths: recording minus reference).
    /// From the measurement `measuredBy` names, as every drift figure of the row; nil where the lengths differ by more
    /// than a clock drifts (`lengths-differ`).
    package var driftSeconds: Double?
    /// The clock's mean error, ppm (by the lengths: their ratio, where a clock can explain it).
    public var driftPPM: Double?
    /// The sync at the recording's first frame, ms: positive, the sound lags the picture; negative, it leads. By the
    /// sound only (the lengths cannot tell a start).
    package var startOffsetMs: Double?
    /// The sync at the recording's last frame, ms, as `startOffsetMs`.
    package var endOffsetMs: Double?
    /// The sync at its worst moment (the lip-sync verdict's), ms, and when, recording seconds.
    package var worstOffsetMs: Double?
    package var worstAtSeconds: Double?
    /// Recording minus reference by their lengths, seconds, exact to the frame (the `lengths` group's); kept apart
    /// from `driftSeconds`, which is the measurement's.
    package var lengthDifferenceSeconds: Double?
    /// "sound leads by 300.0 ms at the start, 330.4 ms at the end", "in sync".
    public var sync: String?
    /// The lip-sync limits the sync crosses at its worst moment.
    public var flags: [SyncFlag]
    public var cause: DriftCause?
    public var causeDetail: String?
    public var action: PlanAction
    public var method: RepairMethod?
    public var methodReason: String?
    public var targetFrames: Int64?
    /// Why the pair cannot be measured or is refused; null when fine.
    public var error: String?
    /// What QA should know although the pair was measured (two references for one recording, ...); empty when none.
    public var warnings: [String] = []

    // Filled by `driftfix repair` (null in scan reports).
    /// `repaired`, `unchanged` (repaired by an earlier run; inputs and output unchanged), `skipped`, `refused`,
    /// `failed` or `unfinished`.
    public var outcome: RepairOutcome?
    /// Why a `failed` pair failed, in a word scripts and metrics read: `input-unreadable`, `refused`,
    /// `output-full`, `output-unwritable`, `verification`, `out-of-sync`, `worker-lost`, `lease-lost` or `other` (`error` says it
    /// in a sentence).
    public var failure: FailureKind?
    /// The repaired file.
    public var output: FilePath? {
        get { outputText.map { FilePath(pathText: $0) } }
        set { outputText = newValue?.pathText }
    }
    /// `output` as the report holds it.
    package var outputText: String?
    /// Frames in the output, as the worker verified by reopening it.
    public var outputFrames: Int64?
    /// XXH3-64 of the output file: `xxh3:` and 16 hex digits (what `xxhsum -H3` prints); reports of releases before
    /// 2026-11-25 hold bare-hex FNV-1a 64.
    public var checksum: String?
    /// Leases handed out for this pair.
    public var attempts: Int?
    /// The worker whose result was accepted.
    public var worker: String?
    /// Seconds the accepted attempt took on its worker.
    package var processingSeconds: Double?
    /// Which measurement the row's drift, offsets, limits, cause and plan come from: `content` (the sound, where it
    /// was measured confidently) or `headers` (the two stated lengths, kept in `lengths` either way).
    public var measuredBy: PlanMeasurement = .headers
    /// The operations that ran (or, before a run, that the headers plan): `resample 2880377`, `pad-start 96000`,
    /// `insert 1440000+1022`...; empty when nothing runs.
    public var operations: [RepairOperation] = []
    /// The sound's measurement against the reference's own audio (`scan --content`, a content policy); null where
    /// it was not measured.
    public var content: ContentMeasurement? {
        get { contentBox?.value }
        set { contentBox = newValue.map(Boxed.init) }
    }
    // Boxed: most rows have none, and a row of a 100,000-pair report should not carry 224 empty bytes for it.
    private var contentBox: Boxed<ContentMeasurement>?
    /// Why the sound was not used, or what QA should know about it; null when there is nothing to say.
    public var contentNote: String?
    /// How the pair was found: nil by name, `sound` by what both heard (`scan.pair-by`).
    public var pairedBy: String?
    /// The take as the recorder wrote it (project, scene, take, tape, track names); null where it wrote none.
    public var slate: Slate? {
        get { slateBox?.value }
        set { slateBox = newValue.map(Boxed.init) }
    }
    // Boxed as `content` is: most rows of a fleet's report carry none.
    private var slateBox: Boxed<Slate>?
    /// For a pair found by sound: this place among the clip's places (used, alternative, uncertain, failed), whether
    /// it is one of places that fit equally, its fit and the witness that chose it; null for a pair found by name.
    public var soundPlace: SoundPlace? {
        get { soundPlaceBox?.value }
        set { soundPlaceBox = newValue.map(Boxed.init) }
    }
    private var soundPlaceBox: Boxed<SoundPlace>?
    /// For a pair found by sound: recording seconds of the reference's first and last moments (a clip inside a long
    /// recording; before 0 or past the end where the recording started late or stopped early).
    package var recordingStartSeconds: Double?
    package var recordingEndSeconds: Double?

    /// A measured pair.
    public init(
        recording: FilePath, reference: FilePath, folder: FilePath, sampleRate: Int, channels: Int, format: String,
        recordingFrames: Int64, referenceSource: String, analysis: DriftAnalysis
    ) {
        self.init(
            recording: recording.pathText, reference: reference.pathText, folder: folder.pathText,
            sampleRate: sampleRate, channels: channels, format: format, recordingFrames: recordingFrames,
            referenceSource: referenceSource, analysis: analysis)
    }

    /// A measured pair, its files named by their `PathText` (as the scan carries them).
    package init(
        recording: String, reference: String, folder: String, sampleRate: Int, channels: Int, format: String,
        recordingFrames: Int64, referenceSource: String, analysis: DriftAnalysis
    ) {
        recordingText = recording
        referenceText = reference
        folderText = folder
        device = PairReport.folderDevice(folder)
        deviceSource = "folder"
        self.sampleRate = sampleRate
        self.channels = channels
        self.format = format
        self.recordingFrames = recordingFrames
        recordingSeconds = analysis.recordingSeconds.doubleValue
        referenceSeconds = analysis.referenceSeconds.doubleValue
        referenceDuration = "\(analysis.referenceSeconds.numerator)/\(analysis.referenceSeconds.denominator)"
        self.referenceSource = referenceSource
        flags = []
        action = analysis.action
        lengthDifferenceSeconds = analysis.driftSeconds.doubleValue
        show(DriftFigures(lengths: analysis))
        method = analysis.method?.method
        methodReason = analysis.method?.reason
        targetFrames = analysis.targetFrames
        error = analysis.refusal
    }

    /// A pair that could not be measured.
    public init(recording: FilePath, reference: FilePath, folder: FilePath, error: String) {
        self.init(recording: recording.pathText, reference: reference.pathText, folder: folder.pathText, error: error)
    }

    /// A pair that could not be measured, its files named by their `PathText`.
    package init(recording: String, reference: String, folder: String, error: String) {
        recordingText = recording
        referenceText = reference
        folderText = folder
        device = PairReport.folderDevice(folder)
        deviceSource = "folder"
        flags = []
        action = .refuse
        self.error = error
    }
}

/// A sound-paired row's place among its clip's places, as the report's `place`, `repeats`, `fit` and `decidedBy`.
public struct SoundPlace: Codable, Sendable, Equatable {
    /// `used` (the clip's chosen place), `alternative` (sure, another recording chosen), `uncertain` (listed, never
    /// used), `failed` (chosen, its cut failed).
    public var place: SoundPairingReport.Match.Status
    /// One of places of one recording that fit the clip equally, none chosen.
    public var repeats: Bool?
    /// How well the clip fits here, second by second (where it was heard at more than one place of a recording).
    public var fit: Double?
    /// The witness that chose this place among equals: `sound`, `timecode`, `take order`.
    public var decidedBy: String?

    public init(
        place: SoundPairingReport.Match.Status, repeats: Bool? = nil, fit: Double? = nil, decidedBy: String? = nil
    ) {
        self.place = place
        self.repeats = repeats
        self.fit = fit
        self.decidedBy = decidedBy
    }
}

/// An immutable box for a row's content measurement.
/// A rarely filled value kept out of line, so a row without it carries one pointer.
private final class Boxed<Value: Sendable & Equatable>: Sendable, Equatable {
    let value: Value
    init(_ value: Value) { self.value = value }
    static func == (a: Boxed, b: Boxed) -> Bool { a.value == b.value }
}

extension PairReport {
    /// The device a row has until the scan names it: its folder's name.
    static func folderDevice(_ folder: String) -> String {
        folder.split(separator: "/").last.map(String.init) ?? "/"
    }
}

/// What `driftfix repair` did with a pair.
public enum RepairOutcome: String, Codable, CodingKeyRepresentable, Sendable, CaseIterable {
    case repaired, unchanged, skipped, refused, failed, unfinished

    /// Whether the pair ends the run in a good state (the exit code is 0 only when every pair does).
    public var isGood: Bool { self == .repaired || self == .unchanged || self == .skipped }
}

/// A recording or reference with no partner.
public struct UnpairedFile: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case recording, reference }
    /// The file.
    public var path: FilePath {
        get { FilePath(pathText: pathText) }
        set { pathText = newValue.pathText }
    }
    /// `path` as the report holds it (`PathText`).
    package var pathText: String
    public var kind: Kind
    public var reason: String
    /// Where the night paired by sound: the file's one status (`unheard`, `repeats`, `unconfirmed`, `too-short`,
    /// `silent`, `unsettled`); null where it paired by name.
    public var status: SoundPairingReport.FileStatus.Status?

    public init(path: FilePath, kind: Kind, reason: String, status: SoundPairingReport.FileStatus.Status? = nil) {
        self.init(path: path.pathText, kind: kind, reason: reason, status: status)
    }

    package init(path: String, kind: Kind, reason: String, status: SoundPairingReport.FileStatus.Status? = nil) {
        pathText = path
        self.kind = kind
        self.reason = reason
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case pathText = "path"
        case kind, reason, status
    }
}

/// A path that could not be read (an unreadable folder, a broken link, a missing root, a file no reader opens), and
/// why: in a scan's report and in the sound search's (`SoundPairingReport.FileError`).
public struct ScanIssue: Codable, Sendable, Equatable {
    /// The path that could not be read.
    public var path: FilePath {
        get { FilePath(pathText: pathText) }
        set { pathText = newValue.pathText }
    }
    /// `path` as the report holds it (`PathText`).
    package var pathText: String
    public var error: String

    public init(path: FilePath, error: String) {
        self.init(path: path.pathText, error: error)
    }

    package init(path: String, error: String) {
        pathText = path
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case pathText = "path"
        case error
    }
}

/// Totals for the report's summary.
public struct ScanSummary: Codable, Sendable, Equatable {
    public var pairs: Int
    public var measured: Int
    public var inSync: Int
    public var needRepair: Int
    public var refused: Int
    public var errors: Int
    public var unpaired: Int
    /// Paths left out on purpose (links to folders scanned under their own path, link loops).
    public var skipped: Int
    /// Pairs with at least one warning.
    public var warned: Int
    package var totalAudioSeconds: Double
    public var worstDriftPPM: Double?
    /// The recording whose drift was the worst.
    public var worstDriftRecording: FilePath? {
        get { worstDriftRecordingText.map { FilePath(pathText: $0) } }
        set { worstDriftRecordingText = newValue?.pathText }
    }
    /// `worstDriftRecording` as the report holds it (`PathText`).
    package var worstDriftRecordingText: String?
    public var flagged: Int
    /// Outcome counts after `driftfix repair`; empty for a scan.
    public var outcomes: [RepairOutcome: Int]

    public init(pairs: [PairReport], unpaired: Int, issues: Int, skipped: Int = 0) {
        self.pairs = pairs.count
        // A pair is measured when it has a cause (its lengths at least); the rest could not be read.
        measured = pairs.filter { $0.cause != nil }.count
        inSync = pairs.filter { $0.action == .skip }.count
        needRepair = pairs.filter { $0.action.repairs }.count
        refused = pairs.filter { $0.action == .refuse }.count
        errors = pairs.filter { $0.cause == nil }.count + issues
        self.unpaired = unpaired
        self.skipped = skipped
        warned = pairs.filter { !$0.warnings.isEmpty }.count
        totalAudioSeconds = pairs.compactMap(\.recordingSeconds).reduce(0, +)
        // Lengths no clock explains carry no drift, so they are no one's worst.
        var worst: (ppm: Double, recording: String)?
        for pair in pairs {
            guard let ppm = pair.driftPPM else { continue }
            if let worst, abs(ppm) <= abs(worst.ppm) { continue }
            worst = (ppm, pair.recordingText)
        }
        worstDriftPPM = worst?.ppm
        worstDriftRecordingText = worst?.recording
        flagged = pairs.filter { !$0.flags.isEmpty }.count
        outcomes = Dictionary(grouping: pairs.compactMap(\.outcome), by: { $0 }).mapValues(\.count)
    }
}

/// The drift report: `driftfix scan`'s JSON, and the source of its CSV and HTML.
public struct ScanReport: Codable, Sendable, Equatable {
    /// 3: each row's drift, offsets, limits and cause from the measurement `measuredBy` names (the sound where it
    /// was measured), `startOffsetMs`, `worstOffsetMs`, `worstAtSeconds` and the `lengths` group.
    /// 2: sound-paired rows carry `place`, `repeats`, `fit`, `decidedBy`; unpaired files their `status`;
    /// `leftForAPerson` where the night paired by sound.
    public static let currentVersion = 3
    public var version = ScanReport.currentVersion
    public var generated: String
    /// The folders scanned.
    public var roots: [FilePath] {
        get { rootTexts.map { FilePath(pathText: $0) } }
        set { rootTexts = newValue.map(\.pathText) }
    }
    /// `roots` as the report holds them (`PathText`).
    package var rootTexts: [String]
    public var summary: ScanSummary
    public var pairs: [PairReport]
    public var unpaired: [UnpairedFile]
    public var errors: [ScanIssue]
    /// Paths left out on purpose, with the reason.
    public var skipped: [SkippedPath]
    /// Drift over the journal's recent runs (`driftfix repair` with a journal); absent for a scan.
    public var history: DriftHistory?
    /// Workers lost and jobs requeued during `driftfix repair`; absent for a scan.
    public var disruptions: RunDisruptions?
    /// The fleet, one entry per device, worst first, as the report files carry it (`ReportWriter` fills it in from
    /// the pairs and the history); absent until then.
    public var devices: [DeviceSummary]?
    /// Where the night paired by sound: every clip no place was chosen for, with its places and what would decide
    /// (as `driftfix sync` lists them); null where it paired by name alone.
    public var leftForAPerson: [SoundPairingReport.LeftClip]?

    public init(
        generated: String, roots: [FilePath], pairs: [PairReport], unpaired: [UnpairedFile], errors: [ScanIssue],
        skipped: [SkippedPath] = []
    ) {
        self.init(
            generated: generated, roots: roots.map(\.pathText), pairs: pairs, unpaired: unpaired, errors: errors,
            skipped: skipped)
    }

    package init(
        generated: String, roots: [String], pairs: [PairReport], unpaired: [UnpairedFile], errors: [ScanIssue],
        skipped: [SkippedPath] = []
    ) {
        self.generated = generated
        rootTexts = roots
        self.pairs = pairs
        self.unpaired = unpaired
        self.errors = errors
        self.skipped = skipped
        summary = ScanSummary(pairs: pairs, unpaired: unpaired.count, issues: errors.count, skipped: skipped.count)
    }

    /// Recomputes the summary after rows changed (outcomes filled in).
    public mutating func refreshSummary() {
        summary = ScanSummary(pairs: pairs, unpaired: unpaired.count, issues: errors.count, skipped: skipped.count)
    }
}

extension ScanReport {
    /// Whether a finished run went well: every pair repaired, unchanged or skipped (a scan's rows, which have no
    /// outcome: measured, not refused, nothing failed), and no folder or file left unread. The exit code, the
    /// journal's `ok` and the metrics' success gauge all follow this one rule.
    public var isGoodRun: Bool {
        pairs.allSatisfy { $0.outcome?.isGood ?? ($0.action != .refuse && $0.error == nil) } && errors.isEmpty
    }
}

/// What went wrong with workers during a repair run - the run itself may still have succeeded.
public struct RunDisruptions: Codable, Sendable, Equatable {
    /// Workers that died, went silent or were cut off while connected (local and remote).
    public var workersLost: Int
    /// Workers the run started to replace dead ones (local processes, or Slurm tasks submitted again).
    public var workersRestarted: Int
    /// Jobs put back in the queue (their worker was lost, or its disk failed them).
    public var jobsRequeued: Int

    public init(workersLost: Int = 0, workersRestarted: Int = 0, jobsRequeued: Int = 0) {
        self.workersLost = workersLost
        self.workersRestarted = workersRestarted
        self.jobsRequeued = jobsRequeued
    }

    public var isEmpty: Bool { workersLost == 0 && workersRestarted == 0 && jobsRequeued == 0 }
}
