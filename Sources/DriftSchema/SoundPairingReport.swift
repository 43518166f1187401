import DriftCore

public import struct SystemPackage.FilePath

/// Clips paired with recordings by their sound, per group (a scanned root): which recording covers which clip, where,
/// with what drift; clips no recording heard; recordings that match nothing.
public struct SoundPairingReport: Codable, Sendable, Equatable {
    public var groups: [Group]
    /// Every clip no place was chosen for, with its places and what would decide: a person's list.
    public var leftForAPerson: [LeftClip]

    public init(groups: [Group]) {
        self.groups = groups
        leftForAPerson = groups.flatMap(LeftClip.of)
    }

    /// A clip the pairing could not settle: heard at places that fit equally (the sound repeats), heard but not
    /// confirmed anywhere, or heard nowhere clearly. Nothing was cut from it.
    public struct LeftClip: Codable, Sendable, Equatable {
        public enum Why: String, Codable, Sendable {
            /// Heard at two or more places of a recording that fit equally, and no witness chose one.
            case repeats
            /// Found by the prints, but the measurement confirmed no place.
            case unconfirmed
            /// Too short for the measurement (or to search for).
            case tooShort = "too-short"
            /// No sound to search for.
            case silent
            /// No recording heard its sound clearly.
            case unheard
        }

        public var clip: FilePath {
            get { FilePath(pathText: clipText) }
            set { clipText = newValue.pathText }
        }
        /// `clip` as the report holds it (`PathText`).
        package var clipText: String
        public var group: String
        public var why: Why
        /// Each place, as its row says (recording, where, the prints' clarity, the fit, the timecodes' agreement).
        public var places: [Match]
        /// What would settle it.
        public var wouldDecide: String

        static func of(_ group: Group) -> [LeftClip] {
            var left: [LeftClip] = []
            for clip in group.uncertainClipsText {
                left.append(
                    LeftClip(
                        clipText: clip, group: group.title, why: .repeats,
                        places: group.matches.filter { $0.referenceText == clip && $0.repeats == true },
                        wouldDecide:
                            "start timecodes on the clip and the recording, the takes' order by the files' times, or a sound only one place has (a slate, a voice)"
                    ))
            }
            for clip in group.unconfirmedClipsText {
                left.append(
                    LeftClip(
                        clipText: clip, group: group.title, why: .unconfirmed,
                        places: group.matches.filter { $0.referenceText == clip },
                        wouldDecide: "a longer clip, or a recording that heard it more clearly"))
            }
            for clip in group.shortClipsText {
                left.append(
                    LeftClip(
                        clipText: clip, group: group.title, why: .tooShort,
                        places: group.matches.filter { $0.referenceText == clip },
                        wouldDecide:
                            "a clip of at least \(Int(SoundPairingReport.shortestMeasurableSeconds.rounded(.up))) s of sound"
                    ))
            }
            let silent = Set(group.files.filter { $0.status == .silent }.map(\.pathText))
            for clip in group.unmatchedClipsText {
                left.append(
                    LeftClip(
                        clipText: clip, group: group.title, why: silent.contains(clip) ? .silent : .unheard, places: [],
                        wouldDecide: silent.contains(clip)
                            ? "a clip with sound of its own (a scratch track): it has none to sync by"
                            : "a recording that heard it (in this group: scan.sound-group), or none was running"))
            }
            return left
        }

        enum CodingKeys: String, CodingKey {
            case clipText = "clip"
            case group, why, places, wouldDecide
        }
    }

    /// About the shortest clip the measurement confirms: five windows of sound of about 0.77 s each.
    package static let shortestMeasurableSeconds = 3.84

    public struct Group: Codable, Sendable, Equatable {
        /// The folder the group was scanned from.
        public var folder: FilePath {
            get { FilePath(pathText: folderText) }
            set { folderText = newValue.pathText }
        }
        /// `folder` as the report holds it (`PathText`).
        package var folderText: String
        /// The group's name within the folder (`scan.sound-group`: a day, a device, both); nil: the whole folder.
        public var name: String?
        /// One row per clip and recording that heard it (a clip two recorders heard has two rows).
        public var matches: [Match]
        /// Clips no recording heard clearly.
        public var unmatchedClips: [FilePath] {
            get { unmatchedClipsText.map { FilePath(pathText: $0) } }
            set { unmatchedClipsText = newValue.map(\.pathText) }
        }
        /// `unmatchedClips` as the report holds them (`PathText`).
        package var unmatchedClipsText: [String]
        /// Clips whose sound was heard at two or more places that fit equally (the sound repeats: a loop, a chorus,
        /// a playback recorded at every take), none decided by a witness: listed with every place, never cut.
        public var uncertainClips: [FilePath] {
            get { uncertainClipsText.map { FilePath(pathText: $0) } }
            set { uncertainClipsText = newValue.map(\.pathText) }
        }
        /// `uncertainClips` as the report holds them (`PathText`).
        package var uncertainClipsText: [String] = []
        /// Clips the prints found but the measurement confirmed at no place.
        public var unconfirmedClips: [FilePath] {
            get { unconfirmedClipsText.map { FilePath(pathText: $0) } }
            set { unconfirmedClipsText = newValue.map(\.pathText) }
        }
        /// `unconfirmedClips` as the report holds them (`PathText`).
        package var unconfirmedClipsText: [String] = []
        /// Clips too short to measure or to search for.
        public var shortClips: [FilePath] {
            get { shortClipsText.map { FilePath(pathText: $0) } }
            set { shortClipsText = newValue.map(\.pathText) }
        }
        /// `shortClips` as the report holds them (`PathText`).
        package var shortClipsText: [String] = []
        /// Recordings that heard no clip.
        public var unmatchedRecordings: [FilePath] {
            get { unmatchedRecordingsText.map { FilePath(pathText: $0) } }
            set { unmatchedRecordingsText = newValue.map(\.pathText) }
        }
        /// `unmatchedRecordings` as the report holds them (`PathText`).
        package var unmatchedRecordingsText: [String]
        /// Recordings that heard clips only at places left for a person.
        public var unsettledRecordings: [FilePath] {
            get { unsettledRecordingsText.map { FilePath(pathText: $0) } }
            set { unsettledRecordingsText = newValue.map(\.pathText) }
        }
        /// `unsettledRecordings` as the report holds them (`PathText`).
        package var unsettledRecordingsText: [String] = []
        /// Every clip and recording with its one status (`classify`).
        public var files: [SoundPairingReport.FileStatus] = []
        /// Files that could not be read, one line each.
        public var errors: [FileError]

        /// How reports head the group: the folder, and its name where it has one (`/shoot · 2026-11-24`).
        public var title: String { name.map { "\(folderText) · \($0)" } ?? folderText }

        public init(
            folder: FilePath, matches: [Match] = [], unmatchedClips: [FilePath] = [],
            unmatchedRecordings: [FilePath] = [], errors: [FileError] = []
        ) {
            self.init(
                folder: folder.pathText, matches: matches, unmatchedClips: unmatchedClips.map(\.pathText),
                unmatchedRecordings: unmatchedRecordings.map(\.pathText), errors: errors)
        }

        /// A group whose files are named by their `PathText` (as the pairing carries them).
        package init(
            folder: String, matches: [Match] = [], unmatchedClips: [String] = [], unmatchedRecordings: [String] = [],
            errors: [FileError] = []
        ) {
            folderText = folder
            self.matches = matches
            unmatchedClipsText = unmatchedClips
            unmatchedRecordingsText = unmatchedRecordings
            self.errors = errors
        }

        enum CodingKeys: String, CodingKey {
            case folderText = "folder"
            case name, matches
            case unmatchedClipsText = "unmatchedClips"
            case uncertainClipsText = "uncertainClips"
            case unconfirmedClipsText = "unconfirmedClips"
            case shortClipsText = "shortClips"
            case unmatchedRecordingsText = "unmatchedRecordings"
            case unsettledRecordingsText = "unsettledRecordings"
            case files, errors
        }
    }

    public struct Match: Codable, Sendable, Equatable {
        /// The clip (the reference: a camera's file with its scratch track).
        public var reference: FilePath {
            get { FilePath(pathText: referenceText) }
            set { referenceText = newValue.pathText }
        }
        /// `reference` as the report holds it (`PathText`).
        package var referenceText: String
        public var recording: FilePath {
            get { FilePath(pathText: recordingText) }
            set { recordingText = newValue.pathText }
        }
        /// `recording` as the report holds it (`PathText`).
        package var recordingText: String
        /// Recording time of the clip's first and last moments, seconds (before 0 or past the recording's end where
        /// it started late or stopped early).
        package var recordingStartSeconds: Double?
        package var recordingEndSeconds: Double?
        /// The share of the clip the recording heard.
        public var coverage: Double
        /// How clearly the prints found the place (a z-score; ~5 at random).
        public var clarity: Double
        /// The measurement on that stretch of the recording (offset on the recording's timeline).
        public var content: ContentMeasurement?
        /// Where the files' start timecodes put the clip (the clip's less the recording's), recording seconds; nil
        /// where either carries none.
        package var timecodeStartSeconds: Double?
        /// Whether the timecodes agree with the sound (within 0.1 s and 1000 ppm of the time since the recording
        /// started); nil without timecodes.
        public var timecodeAgrees: Bool?
        /// The recorder's drift against this clip's camera from every clip of that camera it surely heard (their
        /// drifts weighted by their errors; clips that disagree left out): sharper than one short clip's. nil where
        /// fewer than two clips agree.
        public var recordingDriftPPM: Double?
        public var recordingDriftPPMError: Double?
        /// The clips it rests on.
        public var recordingDriftClips: Int?
        /// Whether this match is sure (measured, confident) and, among a clip's sure matches, the one repaired.
        public var status: Status
        /// Why it is uncertain, or why it failed.
        public var note: String?
        /// How well the clip's sound fits the recording at this place, second by second, on average (a normalised
        /// correlation, where the clip was heard at more than one place of a recording).
        public var fit: Double?
        /// The witness that chose this place among places of one recording that all heard the clip's sound: `sound`
        /// (a sound only this place has), `timecode`, `take order`.
        public var decidedBy: String?
        /// One of places of one recording that fit the clip equally (the sound repeats there), none chosen.
        public var repeats: Bool?
        /// After a repair: the clip's audio, its length and the operations that cut it.
        public var output: FilePath? {
            get { outputText.map { FilePath(pathText: $0) } }
            set { outputText = newValue?.pathText }
        }
        /// `output` as the report holds it (`PathText`).
        package var outputText: String?
        public var outputFrames: Int64?
        public var operations: [RepairOperation]?
        /// What of the recording's metadata could not stay as it was in the cut (a chunk its type cannot hold, a
        /// marker moved off its sound); nil when nothing.
        public var warnings: [String]?
        /// The row as an earlier night found it, whose output still stands (its clip, the recordings that heard it and
        /// the settings are unchanged, the output verifies): not measured or cut again. nil: found tonight.
        public var unchanged: Bool?

        public enum Status: String, Codable, Sendable, CaseIterable {
            /// Sure, and the clip's chosen recording.
            case used
            /// Sure, another recording was chosen for this clip (a second recorder).
            case alternative
            /// Found by the prints but not confirmed by the measurement: listed, never used.
            case uncertain
            /// Chosen, but its repair failed (the note says why).
            case failed
        }

        package init(
            reference: String, recording: String, recordingStartSeconds: Double?, recordingEndSeconds: Double?,
            coverage: Double, clarity: Double, content: ContentMeasurement?, status: Status, note: String? = nil
        ) {
            referenceText = reference
            recordingText = recording
            self.recordingStartSeconds = recordingStartSeconds
            self.recordingEndSeconds = recordingEndSeconds
            self.coverage = coverage
            self.clarity = clarity
            self.content = content
            self.status = status
            self.note = note
        }

        enum CodingKeys: String, CodingKey {
            case referenceText = "reference"
            case recordingText = "recording"
            case recordingStartSeconds, recordingEndSeconds, coverage, clarity, content, timecodeStartSeconds
            case timecodeAgrees, recordingDriftPPM, recordingDriftPPMError, recordingDriftClips, status, note, fit
            case decidedBy, repeats
            case outputText = "output"
            case outputFrames, operations, warnings, unchanged
        }
    }

    /// A file or folder that could not be read, and why: the scan's own kind (the search lists the folders as the
    /// scan does, and passes its issues on as they are).
    public typealias FileError = ScanIssue

    /// A recording time as h:mm:ss.mmm (a minus sign before the recording's start; `?` when unknown).
    package static func clock(_ seconds: Double?) -> String {
        guard let seconds else { return "?" }
        let millis = Int((abs(seconds) * 1000).rounded())
        return String(
            format: "%@%d:%02d:%02d.%03d", seconds < 0 ? "-" : "", millis / 3_600_000, millis / 60_000 % 60,
            millis / 1000 % 60, millis % 1000)
    }

    /// Whether anything failed or could not be read.
    public var hasFailures: Bool {
        groups.contains { !$0.errors.isEmpty || $0.matches.contains { $0.status == .failed } }
    }
}
