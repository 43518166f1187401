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

    /// One row per match; clips nobody recorded and recordings that matched nothing as rows with that status.
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
                        group.title, m.reference, m.recording, m.status.rawValue, number(m.recordingStartSeconds, 6),
                        number(m.recordingEndSeconds, 6), number(m.coverage, 4), number(m.clarity, 1),
                        number(c?.offsetMs, 3),
                        number(c?.driftPPM, 3), number(m.recordingDriftPPM, 3), c.map { "\($0.dropouts.count)" } ?? "",
                        number(c?.confidence, 3),
                        number(c?.residualMs, 3), number(m.timecodeStartSeconds, 3),
                        m.timecodeAgrees.map { $0 ? "true" : "false" } ?? "", m.output ?? "",
                        m.outputFrames.map { "\($0)" } ?? "", m.note ?? "",
                    ]
                    .map(field).joined(separator: ","))
            }
            for clip in group.unmatchedClips {
                lines.append(
                    ([group.title, clip, "", "unmatched-clip"] + Array(repeating: "", count: csvColumns.count - 4)).map(
                        field
                    ).joined(separator: ","))
            }
            for clip in group.uncertainClips {
                lines.append(
                    ([group.title, clip, "", "uncertain-clip"] + Array(repeating: "", count: csvColumns.count - 4)).map(
                        field
                    ).joined(separator: ","))
            }
            for recording in group.unmatchedRecordings {
                lines.append(
                    ([group.title, "", recording, "unmatched-recording"]
                        + Array(repeating: "", count: csvColumns.count - 4))
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
            let base = group.folder.hasSuffix("/") ? group.folder : group.folder + "/"
            func short(_ path: String) -> String { path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path }
            let byRecording = Dictionary(grouping: group.matches, by: \.recording)
            for recording in byRecording.keys.sorted() {
                out.append("  \(short(recording))")
                for m in (byRecording[recording] ?? []).sorted(by: {
                    ($0.recordingStartSeconds ?? 0) < ($1.recordingStartSeconds ?? 0)
                }) {
                    let span = "\(clock(m.recordingStartSeconds)) - \(clock(m.recordingEndSeconds))"
                    var line = "    \(span)  \(short(m.reference))  \(m.status.rawValue)"
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
                    if let residual = m.content?.residualMs, m.output != nil {
                        line += String(format: "  residual %.3f ms", residual)
                    }
                    if let agrees = m.timecodeAgrees { line += agrees ? "  timecode agrees" : "  TIMECODE DISAGREES" }
                    if let output = m.output { line += "  -> \(output)" }
                    if let note = m.note, m.status != .used { line += "  (\(note))" }
                    out.append(line)
                }
            }
            if !group.unmatchedClips.isEmpty {
                out.append("  clips no recording heard: " + group.unmatchedClips.map(short).joined(separator: ", "))
            }
            if !group.unmatchedRecordings.isEmpty {
                out.append(
                    "  recordings that heard no clip: " + group.unmatchedRecordings.map(short).joined(separator: ", "))
            }
            for error in group.errors { out.append("  error: \(short(error.path)): \(error.error)") }
        }
        if !report.leftForAPerson.isEmpty {
            out.append("left for a person (nothing cut from these):")
            for left in report.leftForAPerson { out.append(contentsOf: lines(left)) }
        }
        return out.joined(separator: "\n")
    }

    /// A clip left for a person, in words: why, each place, and what would decide.
    static func lines(_ left: SoundPairingReport.LeftClip) -> [String] {
        let why: String
        switch left.why {
        case .repeats: why = "its sound repeats: \(left.places.count) places fit equally"
        case .unconfirmed: why = "found, but no place confirmed by the measurement"
        case .unheard: why = "no recording heard its sound clearly"
        }
        var out = ["  \(left.clip): \(why)"]
        for place in left.places {
            var line = "    \(place.recording) at \(clock(place.recordingStartSeconds))"
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
