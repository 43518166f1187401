import DriftCore
import DriftJobs
import DriftPlanning
import DriftSchema
import Foundation

/// Where a run stands in the journal.
public enum RunStatus: String, Sendable, CaseIterable {
    /// Started; the plan is not stored yet (a crash here means scanning again).
    case scanning
    /// Planned; jobs are being dispatched.
    case running
    /// Every job finished (some may have failed: see `ok`).
    case complete
    /// Stopped by a signal before every job finished.
    case stopped
    /// No worker was alive for the idle timeout.
    case noWorkers
    /// The journal itself could not be written (disk full, ...).
    case storeFailed
    /// The local workers kept dying before they connected (a crash loop): the run ended instead of spinning.
    case workersFailing
    /// A later run was started fresh (`--no-resume`) instead of resuming this one.
    case abandoned

    /// Statuses a later `driftfix repair` resumes.
    public static let resumable: [RunStatus] = [
        .scanning, .running, .stopped, .noWorkers, .storeFailed, .workersFailing,
    ]
}

/// How a run paired its files: runs are resumed only by a run paired the same way.
public enum RunPairing: String, Sendable, CaseIterable {
    /// By names (recordings with their references), the scan's pairs.
    case names
    /// By sound: clips found in recordings, each clip's cut a job.
    case sound

    /// As `run.pairBy` holds it: NULL for names (every run before v10).
    var stored: String? { self == .names ? nil : rawValue }
}

/// A run as the journal knows it.
public struct JournalRun: Sendable, Equatable {
    public let id: Int64
    /// The random key its jobs carry on the wire (`JobSpec.run`).
    public let key: Int64
    public let started: Date
    public let status: RunStatus
    public let roots: [String]
    public let outputRoot: String
    /// Whether the scan finished and its plan was stored.
    public let planned: Bool
}

extension JobFingerprints {
    /// Fingerprints of a pair to repair: its recording, its reference, and the plan (target, method, quality,
    /// output). Nil when an input cannot be read.
    public init?(plan: PairPlan, quality: ResampleQuality, engine: ResampleEngine = .default) {
        guard let recordingPrint = FileFingerprint.of(path: plan.id.recording),
            let referencePrint = FileFingerprint.of(path: plan.reference)
        else { return nil }
        self.init(
            recording: recordingPrint, reference: referencePrint,
            plan: Self.plan(of: plan, quality: quality, engine: engine))
    }

    /// The plan as compared between nights: a change in any part means the output is stale. libsamplerate, the
    /// engine every earlier release used, is not named, so their outputs stay current.
    /// (Journals before v7 kept the description itself; the migration turned each into its digest.)
    public static func plan(of plan: PairPlan, quality: ResampleQuality, engine: ResampleEngine = .default) -> String {
        digest(description(of: plan, quality: quality, engine: engine))
    }

    static func description(of plan: PairPlan, quality: ResampleQuality, engine: ResampleEngine) -> String {
        let converter = quality.rawValue + (engine == .libsamplerate ? "" : " \(engine.rawValue)")
        let base =
            "\(plan.targetFrames ?? 0) frames, \(plan.method?.method.rawValue ?? "-"), \(converter), \(plan.output ?? "-")"
        guard let content = plan.content else { return base }
        return base
            + ", content \(content.mode.rawValue) floor \(content.confidenceFloor) start \(content.start.rawValue) limit \(content.residualLimitMs) ms precision \(content.headerPrecisionMs) ms"
    }
}

/// The last verified output of a recording (or of a clip, for a sync by sound), from whichever run made it.
public struct OutputRecord: Sendable, Equatable {
    /// The recording repaired, or the clip synced.
    public var recording: String
    public var prints: JobFingerprints
    /// The output; "" for a clip's finding that wrote nothing (no place sure enough to cut from).
    public var output: String
    public var outputFrames: Int64
    /// Size and modification time (ns) of the output as the coordinator saw it on completion; nil when the
    /// coordinator could not see it (remote storage).
    public var outputSize: Int64?
    public var outputModified: Int64?
    public var checksum: String?
    public var worker: String?
    public var run: Int64
    /// A clip's rows as its sync found them (each place, the one used): reported again while the output stands.
    public var matches: [SoundPairingReport.Match]?
    /// What a content job's sound found and planned when it made the output: reported again while the output stands.
    public var finding: ContentFinding?

    public init(
        recording: String, prints: JobFingerprints, output: String, outputFrames: Int64, outputSize: Int64?,
        outputModified: Int64?, checksum: String?, worker: String?, run: Int64,
        matches: [SoundPairingReport.Match]? = nil, finding: ContentFinding? = nil
    ) {
        self.finding = finding
        self.recording = recording
        self.prints = prints
        self.output = output
        self.outputFrames = outputFrames
        self.outputSize = outputSize
        self.outputModified = outputModified
        self.checksum = checksum
        self.worker = worker
        self.run = run
        self.matches = matches
    }
}
