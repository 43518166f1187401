import DriftCore
import Foundation

/// The terminal table `driftfix scan` prints: one line per pair, then unpaired files, errors and a summary.
public enum ReportTable {
    public static func render(_ report: ScanReport, relativeTo base: String? = nil) -> String {
        func short(_ path: String) -> String {
            guard let base, path.hasPrefix(base + "/") else { return path }
            return String(path.dropFirst(base.count + 1))
        }
        let withOutcome = report.pairs.contains { $0.outcome != nil }
        var rows: [[String]] = [["RECORDING", "DRIFT ms", "PPM", "AT THE END", "CAUSE", "PLAN", "TARGET"] + (withOutcome ? ["OUTCOME"] : [])]
        for pair in report.pairs {
            if let error = pair.error, pair.driftPPM == nil {
                rows.append([short(pair.recording), "-", "-", "-", "-", "error", error] + (withOutcome ? [pair.outcome?.rawValue ?? "-"] : []))
                continue
            }
            rows.append([
                short(pair.recording),
                pair.driftSeconds.map { String(format: "%+.1f", $0 * 1000) } ?? "-",
                pair.driftPPM.map { String(format: "%+.1f", $0) } ?? "-",
                (pair.sync ?? "") + (pair.flags.contains(.ituBT1359) ? " [BT.1359]" : pair.flags.contains(.ebuR37) ? " [R37]" : ""),
                pair.cause?.rawValue ?? "-",
                pair.action.rawValue + (pair.method == nil ? "" : ""),
                pair.action == .refuse ? (pair.error ?? "") : pair.targetFrames.map { "\($0) frames" } ?? "-",
            ] + (withOutcome ? [pair.outcome.map { $0 == .failed ? "failed: \(pair.error ?? "")" : $0.rawValue } ?? "-"] : []))
        }
        let widths = (0..<rows[0].count).map { column in min(60, rows.map { $0[column].count }.max() ?? 0) }
        var out = rows.map { row in
            zip(row, widths).enumerated().map { index, item in
                let (text, width) = item
                let cell = text.count > width ? "…" + text.suffix(width - 1) : text
                return index == row.count - 1 ? cell : cell.padding(toLength: width, withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        for file in report.unpaired { out.append("unpaired \(file.kind.rawValue): \(short(file.path)) (\(file.reason))") }
        for issue in report.errors { out.append("error: \(issue.path): \(issue.error)") }
        let s = report.summary
        out.append("")
        out.append("\(s.pairs) pairs, \(formatDuration(s.totalAudioSeconds)) of audio: \(s.needRepair) to repair, "
            + "\(s.inSync) in sync, \(s.refused) refused, \(s.errors) errors, \(s.unpaired) unpaired; "
            + "\(s.flagged) past a lip-sync limit"
            + (s.worstDriftPPM.map { String(format: "; worst %+.1f ppm", $0) } ?? ""))
        return out.joined(separator: "\n")
    }

    static func formatDuration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }
}
