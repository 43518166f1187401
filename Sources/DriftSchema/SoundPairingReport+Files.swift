import DriftCore

public import struct SystemPackage.FilePath

extension SoundPairingReport {
    /// A file's one status in its group: every clip and every recording has exactly one, the same in the table, the
    /// JSON, the CSV and the HTML.
    public struct FileStatus: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable { case clip, recording }

        public enum Status: String, Codable, Sendable, CaseIterable {
            /// A clip: a place was chosen (and cut, where the night cuts).
            case paired
            /// A clip: a place was chosen, but its cut failed.
            case failed
            /// A clip: heard at places of a recording that fit equally, none chosen by a witness.
            case repeats
            /// A clip: found by the prints, but the measurement confirmed no place.
            case unconfirmed
            /// A clip: too short for the measurement (fewer windows of sound than it needs), or to search for.
            case tooShort = "too-short"
            /// A clip with no sound to search for.
            case silent
            /// A clip no recording heard clearly; a recording that heard no clip.
            case unheard
            /// A recording: it heard a clip at a place that was used, or surely at another recorder's clip.
            case heard
            /// A recording: it heard clips only at places left for a person (repeats, unconfirmed).
            case unsettled
        }

        public var path: FilePath {
            get { FilePath(pathText: pathText) }
            set { pathText = newValue.pathText }
        }
        /// `path` as the report holds it (`PathText`).
        package var pathText: String
        public var kind: Kind
        public var status: Status

        public init(path: FilePath, kind: Kind, status: Status) {
            self.init(path: path.pathText, kind: kind, status: status)
        }

        package init(path: String, kind: Kind, status: Status) {
            pathText = path
            self.kind = kind
            self.status = status
        }

        enum CodingKeys: String, CodingKey {
            case pathText = "path"
            case kind, status
        }
    }
}

extension SoundPairingReport.Group {
    /// Every clip of the group, whatever its status (those left off `files` by a hand-built group included).
    public var clips: [FilePath] { clipsText.map { FilePath(pathText: $0) } }

    /// `clips` as the report holds them (`PathText`), sorted by that text.
    package var clipsText: [String] {
        Array(
            Set(
                files.filter { $0.kind == .clip }.map(\.pathText) + unmatchedClipsText + uncertainClipsText
                    + unconfirmedClipsText + shortClipsText)
        ).sorted()
    }

    /// Gives every clip and recording of the group its one status from the rows, and fills the lists that name them
    /// by status (`unmatchedClips`, `uncertainClips`, `unconfirmedClips`, `shortClips`, `unmatchedRecordings`,
    /// `unsettledRecordings`) and `files`.
    /// - Parameters:
    ///   - clips: every clip of the group (searched, kept from an earlier night, silent).
    ///   - silent: clips with no sound to search for; `short`: clips too short to search for.
    package mutating func classify(
        clips: [String], recordings: [String], silent: Set<String> = [], short: Set<String> = []
    ) {
        let byClip = Dictionary(grouping: matches, by: \.referenceText)
        let byRecording = Dictionary(grouping: matches, by: \.recordingText)
        var files: [SoundPairingReport.FileStatus] = []
        for clip in Set(clips + matches.map(\.referenceText)).sorted() {
            files.append(
                .init(
                    path: clip, kind: .clip,
                    status: Self.status(
                        ofClip: clip, byClip[clip] ?? [],
                        silent: silent, short: short)))
        }
        for recording in Set(recordings + matches.map(\.recordingText)).sorted() {
            let rows = byRecording[recording] ?? []
            let status: SoundPairingReport.FileStatus.Status =
                rows.isEmpty ? .unheard : rows.contains { $0.status != .uncertain } ? .heard : .unsettled
            files.append(.init(path: recording, kind: .recording, status: status))
        }
        func paths(_ kind: SoundPairingReport.FileStatus.Kind, _ statuses: SoundPairingReport.FileStatus.Status...)
            -> [String]
        {
            files.filter { $0.kind == kind && statuses.contains($0.status) }.map(\.pathText)
        }
        unmatchedClipsText = paths(.clip, .unheard, .silent)
        uncertainClipsText = paths(.clip, .repeats)
        unconfirmedClipsText = paths(.clip, .unconfirmed)
        shortClipsText = paths(.clip, .tooShort)
        unmatchedRecordingsText = paths(.recording, .unheard)
        unsettledRecordingsText = paths(.recording, .unsettled)
        self.files = files
    }

    static func status(
        ofClip clip: String, _ rows: [SoundPairingReport.Match], silent: Set<String>, short: Set<String>
    ) -> SoundPairingReport.FileStatus.Status {
        if rows.contains(where: { $0.status == .used }) { return .paired }
        if rows.contains(where: { $0.status == .failed }) { return .failed }
        // Sure places with none chosen happen only while a night is being put together: they are the clip's pairs.
        if rows.contains(where: { $0.status == .alternative }) { return .paired }
        if rows.contains(where: { $0.repeats == true }) { return .repeats }
        if short.contains(clip) { return .tooShort }
        if !rows.isEmpty {
            return rows.allSatisfy { $0.content?.unmeasurable == .tooShort } ? .tooShort : .unconfirmed
        }
        return silent.contains(clip) ? .silent : .unheard
    }
}
