import DriftCore
import DriftSchema
import Foundation

extension SoundPairing {
    /// The pairing as the drift report every other command writes: one row per clip and recording that heard it
    /// (`pairedBy: sound`, its `content` measurement and its span in the recording), clips no recording heard and
    /// recordings that heard no clip as unpaired files, unreadable files as errors. With `repaired`, rows carry what
    /// the night did: the chosen recording's clip `repaired` (or `failed`), the others `skipped` with the reason.
    public static func scanReport(
        _ report: SoundPairingReport, roots: [String], repaired: Bool, generated: Date = Date()
    ) -> ScanReport {
        var pairs: [PairReport] = []
        var unpaired: [UnpairedFile] = []
        var errors: [ScanIssue] = []
        for group in report.groups {
            for m in group.matches {
                var row = PairReport(
                    recording: m.recordingText, reference: m.referenceText,
                    folder: (m.recordingText as NSString).deletingLastPathComponent, error: "")
                row.error = nil
                row.pairedBy = "sound"
                row.recordingStartSeconds = m.recordingStartSeconds
                row.recordingEndSeconds = m.recordingEndSeconds
                row.measuredBy = .content
                row.content = m.content
                row.referenceSeconds = m.content?.referenceSoundSeconds
                row.showClock(of: m.content)
                row.operations = m.operations ?? []
                row.outputText = m.outputText
                row.outputFrames = m.outputFrames
                row.soundPlace = SoundPlace(place: m.status, repeats: m.repeats, fit: m.fit, decidedBy: m.decidedBy)
                // The table shows recordings; the note says which clip, and where.
                var notes = [
                    "clip \((m.referenceText as NSString).lastPathComponent) at \(SoundPairingReport.clock(m.recordingStartSeconds))"
                ]
                if let start = m.recordingStartSeconds, let end = m.recordingEndSeconds {
                    row.recordingSeconds = end - start
                }
                switch m.status {
                case .used:
                    row.action = .resample
                    row.method = .resample
                    row.methodReason = "pair-by sound: the recording that heard most of the clip"
                    if repaired {
                        row.outcome = m.outputText == nil ? .failed : m.unchanged == true ? .unchanged : .repaired
                    }
                case .alternative:
                    row.action = .skip
                    notes.append("another recording heard more of the clip, or as much more surely")
                    if repaired { row.outcome = .skipped }
                case .uncertain:
                    row.action = .skip
                    notes.append(
                        m.repeats == true
                            ? "uncertain: the sound repeats; listed, not used" : "uncertain: listed, not used")
                    if repaired { row.outcome = .skipped }
                case .failed:
                    row.action = .resample
                    row.error = m.note
                    if repaired { row.outcome = .failed }
                }
                if let note = m.note, m.status != .failed { notes.append(note) }
                if m.coverage < 0.999 {
                    row.warnings.append("the recording heard \(Int((m.coverage * 100).rounded())) % of the clip")
                }
                if m.timecodeAgrees == false { row.warnings.append("timecode disagrees with the sound") }
                row.warnings += m.warnings ?? []
                row.contentNote = notes.joined(separator: "; ")
                pairs.append(row)
            }
            // Every file not paired, once, with its status in a word and its reason in words.
            for file in group.files {
                guard let reason = Self.reason(file, in: group) else { continue }
                unpaired.append(
                    UnpairedFile(
                        path: file.path, kind: file.kind == .clip ? .reference : .recording, reason: reason,
                        status: file.status))
            }
            errors += group.errors.map { ScanIssue(path: $0.path, error: $0.error) }
        }
        var scan = ScanReport(
            generated: ISO8601DateFormatter().string(from: generated), roots: roots, pairs: pairs, unpaired: unpaired,
            errors: errors)
        scan.leftForAPerson = report.leftForAPerson
        return scan
    }

    /// Why a file of a sound night is unpaired, in words; nil where it is paired.
    static func reason(_ file: SoundPairingReport.FileStatus, in group: SoundPairingReport.Group) -> String? {
        switch file.status {
        case .paired, .failed, .heard: return nil
        case .repeats:
            let places = group.matches.filter { $0.reference == file.path && $0.repeats == true }.count
            return "its sound repeats: \(places) places fit equally; left for a person, nothing cut"
        case .unconfirmed: return "found, but no place confirmed by the measurement; left for a person, nothing cut"
        case .tooShort: return "too short to measure; left for a person, nothing cut"
        case .silent: return "no sound of its own to sync by"
        case .unheard:
            return file.kind == .clip ? "no recording heard its sound" : "heard none of the clips"
        case .unsettled:
            let clips = Set(group.matches.filter { $0.recording == file.path }.map(\.reference)).count
            return "heard \(clips) clip\(clips == 1 ? "" : "s") only at places left for a person"
        }
    }

    /// A report of the pairs names made and the one of what sound paired among the files names left: both pairs'
    /// rows, the files neither paired, both runs' errors.
    public static func merged(names: ScanReport, sound: ScanReport) -> ScanReport {
        var report = names
        report.pairs += sound.pairs
        report.unpaired = sound.unpaired
        report.leftForAPerson = sound.leftForAPerson
        let known = Set(names.errors.map(\.path))
        report.errors += sound.errors.filter { !known.contains($0.path) }
        report.refreshSummary()
        return report
    }
}

extension PairReport {
    /// A clip's row shows its clock: the drift and the clock's cause alone, for where the clip lies in its recording
    /// is its place, not a late start.
    fileprivate mutating func showClock(of content: ContentMeasurement?) {
        driftPPM = content?.driftPPM
        guard let content,
            let (cause, words) = DriftFigures.clockCause(
                of: content, recordingSeconds: content.referenceSoundSeconds ?? 0, sampleRate: nil)
        else { return }
        self.cause = cause
        causeDetail = words
    }
}
