import DriftCore

public import struct SystemPackage.FilePath

/// One clip's sync as a unit of work, run where the files are (on the coordinator's machine or on a worker): each
/// place the prints found is measured, the sure ones ranked, and (with outputs) the chosen one cut.
public struct ClipTask: Codable, Sendable, Equatable {
    /// A recording where the prints found the clip.
    public struct Place: Codable, Sendable, Equatable {
        public var recording: FilePath {
            get { FilePath(pathText: recordingText) }
            set { recordingText = newValue.pathText }
        }
        /// `recording` as the report holds it (`PathText`).
        package var recordingText: String
        /// What the prints found (`candidate.recording` is the matcher's index, not used here).
        public var candidate: SoundCandidate
        /// Where the timecodes put the clip in this recording, seconds; nil where either carries none.
        package var timecodeStartSeconds: Double?
        /// The recording's frames and rate where they were counted already (a compressed file is counted by decoding
        /// it whole, so once per recording, not per clip); nil: counted by the task.
        public var recordingFrames: Int64?
        public var sampleRate: Int?
        /// Where the clip's audio goes when this recording is used; nil: listed only.
        public var output: FilePath? {
            get { outputText.map { FilePath(pathText: $0) } }
            set { outputText = newValue?.pathText }
        }
        /// `output` as the report holds it (`PathText`).
        package var outputText: String?
        /// Why it cannot be written there (another clip's output by the same name); the row fails with it if used.
        public var outputConflict: String?
        /// The resampling library for a cut from this recording (`repair.engine` and its rules).
        public var engine: ResampleEngine = .default

        package init(recording: String, candidate: SoundCandidate) {
            recordingText = recording
            self.candidate = candidate
        }

        enum CodingKeys: String, CodingKey {
            case recordingText = "recording"
            case candidate, timecodeStartSeconds, recordingFrames, sampleRate
            case outputText = "output"
            case outputConflict, engine
        }
    }

    public var clip: FilePath {
        get { FilePath(pathText: clipText) }
        set { clipText = newValue.pathText }
    }
    /// `clip` as the report holds it (`PathText`).
    package var clipText: String
    /// The clip's sound, seconds (from its print).
    package var clipSeconds: Double
    public var places: [Place]
    /// A measured match is used only at this confidence or above (the content policy's floor).
    public var minimumConfidence: Double
    /// The lag a written clip may keep against the clip, ms.
    package var residualLimitMs: Double
    public var quality: ResampleQuality
    /// The output is a copy of the clip with this audio in place of its own (`repair.mux`), not an audio file.
    public var mux: Bool

    package init(
        clip: String, clipSeconds: Double, places: [Place], minimumConfidence: Double, residualLimitMs: Double,
        quality: ResampleQuality, mux: Bool = false
    ) {
        clipText = clip
        self.clipSeconds = clipSeconds
        self.places = places
        self.minimumConfidence = minimumConfidence
        self.residualLimitMs = residualLimitMs
        self.quality = quality
        self.mux = mux
    }

    enum CodingKeys: String, CodingKey {
        case clipText = "clip"
        case clipSeconds, places, minimumConfidence, residualLimitMs, quality, mux
    }
}
