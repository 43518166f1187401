import DriftConfig
import DriftCore
import DriftRules
import DriftSupport
import DriftTimeline
import Logging

import struct SystemPackage.FilePath

// What each of the three commands asks of a run, as a type of its own: a setting a command has no use for is not a
// field of it (a scan has no output, quality or resume; a repair always has an output; a sync never pairs by names
// alone), so the compiler refuses what `Run.Settings.validate` would refuse at run time. Each becomes the general
// `Run.Settings` through `settings`, which `validate` still checks for what only the values can say (a timeline
// from a pairing by names, an output inside a root).

extension Run {
    /// A scan: pair the roots and measure their drift (by the headers, by the sound with `measureContent` or a
    /// pairing by sound); nothing is written.
    public struct Scan: Sendable {
        public var roots: [FilePath]
        public var configuration: Configuration
        /// The configuration's file, handed on to the workers the scan starts; nil: none.
        public var configurationPath: FilePath?
        /// How files pair; nil: the configuration's `scan.pair-by`.
        public var pairBy: PairBy?
        /// Also measure each pair by its sound, on workers (a scan by names).
        public var measureContent = false
        /// Where measuring jobs run; nil: workers started on this machine, one per core.
        public var work: Work?
        /// The timeline to write from a pairing by sound, pointing at the original recordings; nil: none.
        public var timeline: TimelineFile?

        public init(roots: [FilePath], configuration: Configuration = Configuration()) {
            self.roots = roots
            self.configuration = configuration
        }

        /// The general form of these settings.
        public var settings: Settings {
            var settings = Settings(
                roots, configuration, configurationPath: configurationPath, pairBy: pairBy, work: work,
                timeline: timeline)
            settings.measureContent = measureContent
            return settings
        }
    }

    /// A repair night: pair the roots, plan, and repair every drifted pair into `outputRoot` on workers, recorded in
    /// the journal (resumed when it did not finish; what an earlier night made and still stands kept).
    public struct Repair: Sendable {
        public var roots: [FilePath]
        /// Where repaired recordings go (absolute): they mirror the input tree.
        public var outputRoot: FilePath
        public var configuration: Configuration
        /// The configuration's file, handed on to the workers the night starts; nil: none.
        public var configurationPath: FilePath?
        /// How files pair; nil: the configuration's `scan.pair-by`.
        public var pairBy: PairBy?
        /// Overrides the configuration's quality.
        public var quality: ResampleQuality?
        /// Overrides the configuration's engine (and its rules) for every pair and clip.
        public var engine: EngineChoice?
        /// Writes each clip's synced audio into a copy of the clip (a pairing by sound); nil: the configuration's
        /// `repair.mux`.
        public var mux: Bool?
        /// The journal file; nil: the configuration's `journal.path`, else `OUT/.driftfix/journal.sqlite`.
        public var journalPath: FilePath?
        /// Whether the unfinished night over these roots is resumed.
        public var resume = ResumePolicy.whenUnfinished
        /// Redo every pair, even those whose output from an earlier night is still current.
        public var full = false
        /// The Prometheus text file to write after the night; nil: the configuration's `journal.metrics-textfile`.
        public var metricsFile: FilePath?
        /// Where to serve live metrics while the night goes on; nil: nowhere.
        public var metricsAddress: MetricsAddress?
        /// Where jobs run; nil: workers started on this machine, one per core.
        public var work: Work?
        /// The timeline to write from a pairing by sound; nil: none.
        public var timeline: TimelineFile?

        public init(roots: [FilePath], outputRoot: FilePath, configuration: Configuration = Configuration()) {
            self.roots = roots
            self.outputRoot = outputRoot
            self.configuration = configuration
        }

        /// The general form of these settings.
        public var settings: Settings {
            var settings = Settings(
                roots, configuration, configurationPath: configurationPath, pairBy: pairBy, work: work,
                timeline: timeline)
            settings.outputRoot = outputRoot
            settings.quality = quality
            settings.engine = engine
            settings.mux = mux
            settings.journalPath = journalPath
            settings.resume = resume
            settings.full = full
            settings.metricsFile = metricsFile
            settings.metricsAddress = metricsAddress
            return settings
        }
    }

    /// A sync: find each clip in the recordings that heard it, by the sound, on this process's threads; with an
    /// output, cut each clip's audio from its recording (and into a copy of the clip with `mux`).
    public struct Sync: Sendable {
        /// How a sync pairs: always by the sound, perhaps by names first.
        public enum Pairing: Sendable, Equatable {
            /// Every clip searched for in every recording of its group.
            case sound
            /// By names first; the files names leave unpaired, by the sound.
            case nameThenSound
        }

        public var roots: [FilePath]
        public var configuration: Configuration
        /// How files pair; nil: names then sound where the configuration's `scan.pair-by` says so, else sound.
        public var pairing: Pairing?
        /// Where each clip's audio goes; nil: nothing is written (the pairing and its report only).
        public var outputRoot: FilePath?
        /// Overrides the configuration's quality.
        public var quality: ResampleQuality?
        /// Writes each clip's audio into a copy of the clip; nil: the configuration's `repair.mux`.
        public var mux: Bool?
        /// The journal file; nil: the configuration's `journal.path`, else with an output
        /// `OUT/.driftfix/journal.sqlite`, else none.
        public var journalPath: FilePath?
        /// Print every file and cut every clip again, even those an earlier run made that still stand.
        public var full = false
        /// Files printed and clips measured at once.
        public var threads = Cores.available
        /// The timeline to write for an editor; nil: none.
        public var timeline: TimelineFile?

        public init(roots: [FilePath], configuration: Configuration = Configuration()) {
            self.roots = roots
            self.configuration = configuration
        }

        /// The general form of these settings.
        public var settings: Settings {
            let byNamesFirst = configuration.pairing.pairBy == .nameThenSound
            let pairBy: PairBy =
                switch pairing ?? (byNamesFirst ? .nameThenSound : .sound) {
                case .sound: .sound
                case .nameThenSound: .nameThenSound
                }
            var settings = Settings(
                roots, configuration, configurationPath: nil, pairBy: pairBy, work: .threads(threads),
                timeline: timeline)
            settings.outputRoot = outputRoot
            settings.quality = quality
            settings.mux = mux
            settings.journalPath = journalPath
            settings.full = full
            return settings
        }
    }

    /// A scan, run as `driftfix scan` runs it.
    public init(_ scan: Scan, logger: Logger, observer: RunObserver? = nil) {
        self.init(settings: scan.settings, logger: logger, observer: observer)
    }

    /// A repair night, run as `driftfix repair` runs it.
    public init(_ repair: Repair, logger: Logger, observer: RunObserver? = nil) {
        self.init(settings: repair.settings, logger: logger, observer: observer)
    }

    /// A sync, run as `driftfix sync` runs it.
    public init(_ sync: Sync, logger: Logger, observer: RunObserver? = nil) {
        self.init(settings: sync.settings, logger: logger, observer: observer)
    }
}

extension Run.Settings {
    /// What every command sets.
    fileprivate init(
        _ roots: [FilePath], _ configuration: Configuration, configurationPath: FilePath?, pairBy: PairBy?,
        work: Run.Work?, timeline: TimelineFile?
    ) {
        self.init(roots: roots, configuration: configuration)
        self.configurationPath = configurationPath
        self.pairBy = pairBy
        self.work = work
        self.timeline = timeline
    }
}
