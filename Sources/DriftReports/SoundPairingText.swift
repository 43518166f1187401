import DriftSchema
import Foundation

/// The sound pairing report as JSON, CSV (one row per match, the measurement's main numbers flattened) and a table.
public enum SoundPairingText {
    public static func json(_ report: SoundPairingReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(report)
    }

    static let csvColumns = [
        "group", "reference", "recording", "status", "recordingStartSeconds", "recordingEndSeconds",
        "coverage", "clarity", "offsetMs", "driftPPM", "recordingDriftPPM", "dropouts", "confidence", "residualMs",
        "timecodeStartSeconds", "timecodeAgrees", "output", "outputFrames", "note",
    ]

    /// One row per match; then each file not paired, once, as a row with its status (`csvStatus`).
    public static func csv(_ report: SoundPairingReport) -> String {
        var lines = [csvColumns.joined(separator: ",")]
        func number(_ value: Double?, _ decimals: Int) -> String {
            value.map { String(format: "%.\(decimals)f", $0) } ?? ""
        }
        for group in report.groups {
            for m in group.matches {
                let c = m.content
                lines.append(
                    [
                        group.title, m.referenceText, m.recordingText, m.status.rawValue,
                        number(m.recordingStartSeconds, 6),
                        number(m.recordingEndSeconds, 6), number(m.coverage, 4), number(m.clarity, 1),
                        number(c?.offsetMs, 3),
                        number(c?.driftPPM, 3), number(m.recordingDriftPPM, 3), c.map { "\($0.dropouts.count)" } ?? "",
                        number(c?.confidence, 3),
                        number(c?.residualMs, 3), number(m.timecodeStartSeconds, 3),
                        m.timecodeAgrees.map { $0 ? "true" : "false" } ?? "", m.outputText ?? "",
                        m.outputFrames.map { "\($0)" } ?? "", m.note ?? "",
                    ]
                    .map(field).joined(separator: ","))
            }
            // Every file not paired, once, with its status.
            for file in group.files {
                guard let status = csvStatus(file) else { continue }
                let (clip, recording) = file.kind == .clip ? (file.pathText, "") : ("", file.pathText)
                lines.append(
                    ([group.title, clip, recording, status] + Array(repeating: "", count: csvColumns.count - 4))
                        .map(field).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A timeline per group: each recording with the clips it heard, in order, then what matched nothing.
    public static func table(_ report: SoundPairingReport) -> String {
        var out: [String] = []
        for group in report.groups {
            out.append("\(group.title):")
            let base = group.folderText.hasSuffix("/") ? group.folderText : group.folderText + "/"
            func short(_ path: String) -> String { path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path }
            let byRecording = Dictionary(grouping: group.matches, by: \.recordingText)
            for recording in byRecording.keys.sorted() {
                out.append("  \(short(recording))")
                for m in (byRecording[recording] ?? []).sorted(by: {
                    ($0.recordingStartSeconds ?? 0) < ($1.recordingStartSeconds ?? 0)
                }) {
                    let span = "\(clock(m.recordingStartSeconds)) - \(clock(m.recordingEndSeconds))"
                    var line = "    \(span)  \(short(m.referenceText))  \(m.status.rawValue)"
                    if let c = m.content, let drift = c.driftPPM { line += String(format: "  drift %+.2f ppm", drift) }
                    if let pooled = m.recordingDriftPPM, let clips = m.recordingDriftClips {
                        line += String(
                            format: " (recorder %+.2f ± %.2f ppm from %d clips)", pooled, m.recordingDriftPPMError ?? 0,
                            clips)
                    }
                    if let c = m.content, !c.dropouts.isEmpty {
                        line += "  \(c.dropouts.count) dropout\(c.dropouts.count == 1 ? "" : "s")"
                    }
                    if m.coverage < 0.999 { line += String(format: "  covers %.0f %%", m.coverage * 100) }
                    if let residual = m.content?.residualMs, m.outputText != nil {
                        line += String(format: "  residual %.3f ms", residual)
                    }
                    if let agrees = m.timecodeAgrees { line += agrees ? "  timecode agrees" : "  TIMECODE DISAGREES" }
                    if let output = m.outputText { line += "  -> \(output)" }
                    if let note = m.note, m.status != .used { line += "  (\(note))" }
                    out.append(line)
                }
            }
            for (status, heading) in groupHeadings {
                let files = group.files.filter { $0.status == status.status && $0.kind == status.kind }
                guard !files.isEmpty else { continue }
                out.append("  \(heading.lowercased()): " + files.map { short($0.pathText) }.joined(separator: ", "))
            }
            for error in group.errors { out.append("  error: \(short(error.pathText)): \(error.error)") }
        }
        if !report.leftForAPerson.isEmpty {
            out.append("left for a person (nothing cut from these):")
            for left in report.leftForAPerson { out.append(contentsOf: lines(left)) }
        }
        return out.joined(separator: "\n")
    }

    /// The statuses a group's files are listed under, beside its timeline (clips that repeat or were not confirmed
    /// are listed with their places under "left for a person").
    static let groupHeadings:
        [(
            status: (kind: SoundPairingReport.FileStatus.Kind, status: SoundPairingReport.FileStatus.Status),
            heading: String
        )] = [
            ((.clip, .unheard), "Clips no recording heard"),
            ((.clip, .silent), "Clips with no sound to sync by"),
            ((.clip, .tooShort), "Clips too short to measure"),
            ((.recording, .unheard), "Recordings that heard no clip"),
            ((.recording, .unsettled), "Recordings that heard clips only at places left for a person"),
        ]

    /// A file's row in the CSV where it is not paired: `unmatched-clip`, `silent-clip`, `short-clip`,
    /// `unconfirmed-clip`, `uncertain-clip` (its sound repeats), `unmatched-recording`, `unsettled-recording`.
    static func csvStatus(_ file: SoundPairingReport.FileStatus) -> String? {
        switch (file.kind, file.status) {
        case (.clip, .unheard): "unmatched-clip"
        case (.clip, .silent): "silent-clip"
        case (.clip, .tooShort): "short-clip"
        case (.clip, .unconfirmed): "unconfirmed-clip"
        case (.clip, .repeats): "uncertain-clip"
        case (.recording, .unheard): "unmatched-recording"
        case (.recording, .unsettled): "unsettled-recording"
        default: nil
        }
    }

    /// Why a clip was left for a person, in words.
    public static func why(_ left: SoundPairingReport.LeftClip) -> String {
        switch left.why {
        case .repeats: "its sound repeats: \(left.places.count) places fit equally"
        case .unconfirmed: "found, but no place confirmed by the measurement"
        case .tooShort: "too short to measure"
        case .silent: "no sound of its own to sync by"
        case .unheard: "no recording heard its sound clearly"
        }
    }

    /// A clip left for a person, in words: why, each place, and what would decide.
    static func lines(_ left: SoundPairingReport.LeftClip) -> [String] {
        var out = ["  \(left.clipText): \(why(left))"]
        for place in left.places {
            var line = "    \(place.recordingText) at \(clock(place.recordingStartSeconds))"
            line += String(format: ", clarity %.1f", place.clarity)
            if let fit = place.fit { line += String(format: ", fit %.3f", fit) }
            if let agrees = place.timecodeAgrees { line += agrees ? ", timecode agrees" : ", timecode disagrees" }
            out.append(line)
        }
        out.append("    would decide: \(left.wouldDecide)")
        return out
    }

    static func clock(_ seconds: Double?) -> String { SoundPairingReport.clock(seconds) }

    static func field(_ value: String) -> String {
        value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
    }
}
