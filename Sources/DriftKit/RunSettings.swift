import DriftConfig
import DriftCore
import DriftJournal
import DriftRules
import DriftTimeline
import Foundation

import struct SystemPackage.FilePath

extension Run {
    /// Everything a run is asked to do, whatever the command that asks: the roots, how files pair, whether anything is
    /// written, and where the work runs. A setting that means nothing on the chosen path is refused by `validate`,
    /// never silently dropped.
    public struct Settings: Sendable {
        /// The roots as path text (`PathText`: every byte kept), as the engine takes them.
        var rootTexts: [String]
        /// Absolute, standardised roots.
        public var roots: [FilePath] {
            get { rootTexts.map { FilePath(pathText: $0) } }
            set { rootTexts = newValue.map(\.pathText) }
        }
        public var configuration: Configuration
        /// The configuration's file (absolute), handed on to the workers this run starts; nil: none.
        public var configurationPath: FilePath? {
            get { configurationPathText.map { FilePath(pathText: $0) } }
            set { configurationPathText = newValue?.pathText }
        }
        var configurationPathText: String?
        /// How files pair; nil: the configuration's `scan.pair-by`.
        public var pairBy: PairBy?
        /// Where repaired recordings and clips' audio go (absolute); nil: nothing is written (a scan, a listing).
        public var outputRoot: FilePath? {
            get { outputRootText.map { FilePath(pathText: $0) } }
            set { outputRootText = newValue?.pathText }
        }
        var outputRootText: String?
        /// Also measure each pair by its sound, on workers (a scan by names).
        public var measureContent = false
        /// Overrides the configuration's quality.
        public var quality: ResampleQuality?
        /// Overrides the configuration's engine (and its rules) for every pair and clip.
        public var engine: EngineChoice?
        /// Writes each clip's synced audio into a copy of the clip; nil: the configuration's `repair.mux`.
        public var mux: Bool?
        /// The journal file (absolute); nil: the configuration's `journal.path`, else with an output
        /// `OUT/.driftfix/journal.sqlite`, else none (a listing then keeps no prints).
        public var journalPath: FilePath? {
            get { journalPathText.map { FilePath(pathText: $0) } }
            set { journalPathText = newValue?.pathText }
        }
        var journalPathText: String?
        /// Whether the unfinished run over these roots is resumed.
        public var resume = ResumePolicy.whenUnfinished
        /// Redo every pair and clip, even those whose output from an earlier run is still current.
        public var full = false
        /// The Prometheus text file to write after the run; nil: the configuration's `journal.metrics-textfile`.
        public var metricsFile: FilePath? {
            get { metricsFileText.map { FilePath(pathText: $0) } }
            set { metricsFileText = newValue?.pathText }
        }
        var metricsFileText: String?
        /// Where to serve live metrics (`/metrics`, `/healthz`) while the run goes on; nil: nowhere.
        public var metricsAddress: MetricsAddress?
        /// Where jobs run; nil: the path's default (workers started on this machine, one per core).
        public var work: Work?
        /// The timeline for an editor to write from a pairing by sound (OpenTimelineIO, FCPXML or EDL); nil: none.
        public var timeline: TimelineFile?

        public init(roots: [FilePath], configuration: Configuration = Configuration()) {
            rootTexts = roots.map(\.pathText)
            self.configuration = configuration
        }

        /// The pairing this run uses.
        public var pairing: PairBy { pairBy ?? configuration.pairing.pairBy }

        /// The journal this run records in, if any.
        public var journal: FilePath? { journalText.map { FilePath(pathText: $0) } }
        var journalText: String? {
            journalPathText ?? configuration.journal.path?.pathText
                ?? outputRootText.map { Journal.defaultPath(outputRoot: $0) }
        }

        /// Whether each clip's audio goes into a copy of the clip.
        var writesMux: Bool { mux ?? configuration.repair.mux }

        /// Refuses settings that could not work, or that would mean nothing on this path, before anything is created:
        /// an output root inside a root (repaired files would be scanned as recordings) or a root inside it (paths
        /// compared with links resolved); resuming a full run; and each setting the path has no use for.
        public func validate() throws(SettingsError) {
            try validateFolders()
            if let refusal = metricsAddress?.refusal { throw SettingsError(.metricsAddress, refusal.description) }
            if resume == .always && full {
                throw SettingsError(
                    .full, "resuming keeps the stored plan and a full run makes a fresh one: choose one")
            }
            try validateUses()
            try validateTimeline()
            if measureContent {
                if outputRootText != nil {
                    throw SettingsError(.measureContent, "a repair measures by the sound as content.measure says")
                }
                if pairing == .sound {
                    throw SettingsError(.measureContent, "pairing by sound measures every clip by its sound already")
                }
            }
        }

        /// The output root apart from the roots (paths compared with links resolved), and a journal named by the
        /// user in a folder that exists: a typing error must not create folders (as root, anywhere). Only below the
        /// output folder, driftfix's own, are folders made for it (the default `OUT/.driftfix/`).
        private func validateFolders() throws(SettingsError) {
            if let outputRootText {
                let realOut = FilePath(pathText: outputRootText).resolvingLinks()
                if let inside = rootTexts.first(where: { realOut.isInside(FilePath(pathText: $0).resolvingLinks()) }) {
                    throw SettingsError(
                        nil,
                        "the output root \(outputRootText) lies inside the root \(inside): repaired files would be scanned as recordings"
                    )
                }
                if let root = rootTexts.first(where: { FilePath(pathText: $0).resolvingLinks().isInside(realOut) }) {
                    throw SettingsError(
                        nil,
                        "the root \(root) lies inside the output root \(outputRootText): repaired files could land on recordings"
                    )
                }
            }
            if let named = journalPathText ?? configuration.journal.path?.pathText,
                !(outputRootText.map { FilePath(pathText: named).isBelow(FilePath(pathText: $0)) } ?? false)
            {
                let folder = FilePath(pathText: named).removingLastComponent()
                if !Self.isFolder(folder) {
                    throw SettingsError(
                        .journal,
                        "\(named): the folder \(folder.pathText) does not exist (driftfix creates the journal, not its folder)"
                    )
                }
            }
        }

        /// Each setting this path has no use for: without an output folder nothing is written, and a scan by names
        /// reads headers only.
        private func validateUses() throws(SettingsError) {
            func refuse(_ setting: Setting, _ reason: String) -> SettingsError { SettingsError(setting, reason) }
            if outputRootText == nil {
                let nothing = "nothing is written without an output folder"
                if resume != .whenUnfinished {
                    throw refuse(.resume, "\(nothing), so there is no run to resume")
                }
                if full { throw refuse(.full, "\(nothing), so there is nothing to redo") }
                if quality != nil { throw refuse(.quality, "\(nothing), so nothing is resampled") }
                if engine != nil { throw refuse(.engine, "\(nothing), so nothing is resampled") }
                if mux == true { throw refuse(.mux, "\(nothing): give one to write clips") }
                if metricsFileText != nil {
                    throw refuse(.metricsFile, "\(nothing): the metrics describe a night's run")
                }
                if metricsAddress != nil, pairing == .name, !measureContent {
                    throw refuse(.metricsAddress, "a scan by names reads headers only: nothing runs to watch")
                }
            }
            if pairing == .name {
                if mux == true {
                    throw refuse(.mux, "it writes clips paired by sound into copies of the clips; names pair none")
                }
                if outputRootText == nil, !measureContent, work != nil {
                    throw refuse(.work, "a scan by names reads headers only: nothing runs on workers")
                }
                if outputRootText == nil, !measureContent, journalPathText != nil {
                    throw refuse(.journal, "a scan by names reads headers only and records nothing")
                }
            }
        }

        /// A timeline comes from a pairing by sound, points at synced audio only where some is written, and goes
        /// into a folder that exists.
        private func validateTimeline() throws(SettingsError) {
            guard let timeline else { return }
            if pairing == .name {
                throw SettingsError(
                    .timeline,
                    "names pair no clips with recordings: a timeline comes from a pairing by sound (sound or name-then-sound)"
                )
            }
            if timeline.audio == .synced, outputRootText == nil {
                throw SettingsError(
                    .timeline, "nothing is written without an output folder, so there is no synced audio to point at")
            }
            let folder = timeline.path.removingLastComponent()
            if !Self.isFolder(folder) {
                throw SettingsError(
                    .timeline, "\(timeline.path.pathText): the folder \(folder.pathText) does not exist")
            }
        }

        private static func isFolder(_ path: FilePath) -> Bool {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path.string, isDirectory: &isFolder) && isFolder.boolValue
        }
    }

    /// Where a run's jobs run.
    public enum Work: Sendable {
        /// Workers over ZeroMQ: started here, in a Slurm array, or connecting to a bound endpoint.
        case workers(DispatchSettings)
        /// This process's threads.
        case threads(Int)
    }

    /// The settings a run takes, named in domain terms (the command line words them as its options).
    public enum Setting: String, Sendable, CaseIterable {
        case outputRoot, measureContent, quality, engine, mux, journal, resume, full, metricsFile, metricsAddress,
            work, timeline
    }

    /// Settings that cannot work, or a setting that means nothing on the chosen path (a usage error).
    public struct SettingsError: Error, CustomStringConvertible, Sendable {
        /// The setting refused; nil for a conflict of paths.
        public let setting: Setting?
        public let reason: String

        init(_ setting: Setting?, _ reason: String) {
            self.setting = setting
            self.reason = reason
        }

        public var description: String { setting.map { "\($0.rawValue): \(reason)" } ?? reason }
    }
}

/// Whether a run takes up the unfinished run over the same roots (its stored plan, its verified work kept).
public enum ResumePolicy: Sendable, Equatable {
    /// Resume where there is an unfinished run; otherwise plan a new one (the default).
    case whenUnfinished
    /// Resume; a run with nothing to resume fails, naming the journal.
    case always
    /// Plan afresh; an unfinished run is closed as it stands.
    case never
}
