import DriftCore
import DriftSchema
import Foundation

/// The terminal table `driftfix scan` prints: one line per pair, then unpaired files, errors, skipped paths and a
/// summary. Control characters in file names are escaped (a name holding a newline stays on its row), columns are
/// aligned by display width (CJK and emoji take two columns), long paths are shortened in the middle, and the last
/// column - the note with errors and warnings - is never cut.
public enum ReportTable {
    public static func render(_ report: ScanReport, relativeTo base: String? = nil) -> String {
        let folder = base.map(FolderPrefix.init)
        func short(_ path: String) -> String {
            (folder?.relative(path) ?? path).escapedForTerminal
        }
        let withOutcome = report.pairs.contains { $0.outcome != nil }
        // The take column only where a recorder wrote one.
        let withTake = report.pairs.contains { take($0) != nil }
        var rows: [[String]] = [
            ["RECORDING"] + (withTake ? ["TAKE"] : []) + [
                "DRIFT ms", "PPM", "SYNC", "CAUSE", "BY", "PLAN", "TARGET",
            ] + (withOutcome ? ["OUTCOME"] : []) + ["NOTE"]
        ]
        for pair in report.pairs {
            var notes: [String] = []
            if let error = pair.error { notes.append(error) }
            if pair.cause == .lengthsDiffer, let detail = pair.causeDetail { notes.append(detail) }
            if let content = contentNote(pair) { notes.append(content) }
            notes += pair.warnings.map { "warning: \($0)" }
            // Every figure of a row is the measurement BY names: the sound, or the two lengths.
            let drift: String = pair.driftSeconds.map { String(format: "%+.1f", $0 * 1000) } ?? "-"
            let ppm: String = pair.driftPPM.map { String(format: "%+.1f", $0) } ?? "-"
            let flag = pair.flags.contains(.ituBT1359) ? " [BT.1359]" : pair.flags.contains(.ebuR37) ? " [R37]" : ""
            let sync: String = (compactSync(pair) ?? pair.sync).map { $0 + flag } ?? "-"
            let by = pair.cause == nil ? "-" : pair.measuredBy == .content ? "sound" : "lengths"
            let target: String = pair.action == .refuse ? "-" : pair.targetFrames.map { "\($0) frames" } ?? "-"
            var row: [String] =
                [short(pair.recordingText)] + (withTake ? [take(pair)?.escapedForTerminal ?? "-"] : []) + [
                    drift, ppm, sync, pair.cause?.rawValue ?? "-", by, pair.action.rawValue, target,
                ]
            if withOutcome { row.append(pair.outcome?.rawValue ?? "-") }
            row.append(notes.joined(separator: "; ").escapedForTerminal)
            rows.append(row)
        }
        // Every column but the note is at most 60 columns wide; the note runs to the end of the line.
        let widths = (0..<rows[0].count).map { column in min(60, rows.map { $0[column].terminalWidth }.max() ?? 0) }
        var out = rows.map { row in
            row.enumerated().map { index, text in
                index == row.count - 1 ? text : text.fitted(toColumns: widths[index]).padded(toColumns: widths[index])
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        for file in report.unpaired {
            out.append("unpaired \(file.kind.rawValue): \(short(file.pathText)) (\(file.reason.escapedForTerminal))")
        }
        if let left = report.leftForAPerson, !left.isEmpty {
            out.append("left for a person (nothing cut from these):")
            for clip in left { out += SoundPairingText.lines(clip).map(\.escapedForTerminal) }
        }
        for issue in report.errors { out.append("error: \(short(issue.pathText)): \(issue.error.escapedForTerminal)") }
        for skipped in report.skipped {
            out.append("skipped: \(short(skipped.pathText)): \(skipped.reason.escapedForTerminal)")
        }
        let s = report.summary
        out.append("")
        out.append(
            "\(s.pairs) pairs, \(formatDuration(s.totalAudioSeconds)) of audio: \(s.needRepair) to repair, "
                + "\(s.inSync) in sync, \(s.refused) refused, \(s.errors) errors, \(s.unpaired) unpaired"
                + (s.skipped > 0 ? ", \(s.skipped) skipped" : "") + (s.warned > 0 ? ", \(s.warned) with warnings" : "")
                + "; \(s.flagged) past a lip-sync limit"
                + (s.worstDriftPPM.map { String(format: "; worst %+.1f ppm", $0) } ?? ""))
        return out.joined(separator: "\n")
    }

    /// The sync from the first frame to the last in a few columns: "leads 300.0 → 315.7 ms", "lags 4.0 → leads
    /// 12.5 ms"; nil where the row has no start (its sync phrase says it).
    static func compactSync(_ pair: PairReport) -> String? {
        guard let start = pair.startOffsetMs, let end = pair.endOffsetMs, abs(start) >= 0.05,
            pair.sync != "in sync"
        else { return nil }
        func amount(_ ms: Double) -> String { String(format: abs(ms) >= 10 ? "%.1f" : "%.2f", abs(ms)) }
        func way(_ ms: Double) -> String { ms < 0 ? "leads" : "lags" }
        let to = way(start) == way(end) ? amount(end) : "\(way(end)) \(amount(end))"
        return "\(way(start)) \(amount(start)) → \(to) ms"
    }

    /// The take as its recorder slated it: "Sc 12A Tk 3 DAY04" (scene, take, tape).
    static func take(_ pair: PairReport) -> String? {
        guard let slate = pair.slate else { return nil }
        let text = [slate.label, slate.tape].compactMap { $0 }.joined(separator: " ")
        return text.isEmpty ? nil : text
    }

    /// What the sound said, for the note: "by its sound: offset +1500.02 ms, drift -131.02 ± 0.09 ppm (late start);
    /// pad-start, resample; residual 0.015 ms".
    public static func contentNote(_ pair: PairReport) -> String? {
        guard pair.content != nil || pair.contentNote != nil else { return nil }
        var parts: [String] = []
        // An unmeasurable sound's reason is said once: the note repeats it with what was done instead.
        if let content = pair.content,
            content.isMeasured || !(pair.contentNote ?? "").contains(content.reason ?? "unmeasurable")
        {
            var text = content.isMeasured ? "sound: \(content.summary)" : "sound: \(content.reason ?? "unmeasurable")"
            if let disagreement = content.disagreement { text += " (\(disagreement))" }
            parts.append(text)
            if let residual = content.residualMs { parts.append("residual \(String(residual, decimals: 3)) ms") }
        }
        if pair.measuredBy == .content, !pair.operations.isEmpty {
            parts.append(
                pair.operations.map(\.name)
                    .reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }.joined(separator: ", "))
        }
        if let note = pair.contentNote, pair.outcome != .refused || pair.error != note { parts.append(note) }
        return parts.joined(separator: "; ")
    }

    static func formatDuration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
