import DriftCore
import DriftSchema
import Foundation

/// The terminal table `driftfix history` prints: one row per device (its median drift in each run, the spread and
/// count of its recordings in the latest), alerting devices first and marked `!`, then the files asked for, then
/// every alert in words.
public enum HistoryTable {
    public static func render(_ history: DriftHistory) -> String {
        guard !history.runs.isEmpty else { return "no runs with measurements in this journal yet" }
        // "#12 11-22 03:14": run id, month-day and UTC time of its start.
        let runHeaders = history.runs.map {
            "#\($0.id) " + $0.started.dropFirst(5).prefix(11).replacingOccurrences(of: "T", with: " ")
        }
        func signed(_ value: Double?) -> String { value.map { String(format: "%+.1f", $0) } ?? "-" }
        var lines: [String] = []
        if !history.devices.isEmpty {
            let alerting = history.devices.filter { $0.alert != nil }.count
            lines.append(
                "devices: \(alerting) alerting of \(history.devicesTotal); median clock error of their recordings per run"
                    + " (ppm), and in the latest run the spread (interquartile range), the recordings, what measured"
                    + " them (sound, lengths) and the median sync at their first frames (ms; negative: started late)")
            var rows = [["DEVICE"] + runHeaders + ["SPREAD", "FILES", "BY", "START ms"]]
            for series in history.devices {
                let by = series.measuredBy?.last.flatMap { $0 }
                rows.append(
                    [(series.alert == nil ? "  " : "! ") + series.name.escapedForTerminal] + series.ppm.map(signed)
                        + [
                            series.spreadPPM?.last.flatMap { $0 }.map { String(format: "%.1f", $0) } ?? "-",
                            "\(series.files.last ?? 0)",
                            by.map { $0 == "content" ? "sound" : $0 == "headers" ? "lengths" : $0 } ?? "-",
                            signed(series.startOffsetMs?.last ?? nil),
                        ])
            }
            lines += align(rows)
            if history.devicesTotal > history.devices.count {
                lines.append("… and \(history.devicesTotal - history.devices.count) more devices (--limit, --device)")
            }
            lines.append("")
        }
        if !history.files.isEmpty {
            lines.append("files (ppm):")
            lines += align(
                [["FILE"] + runHeaders]
                    + history.files.map { series in
                        [(series.alert == nil ? "  " : "! ") + series.name.escapedForTerminal] + series.ppm.map(signed)
                    })
            lines.append("")
        }
        let alerts = history.alerts
        let thresholds =
            "\(String(format: "%.0f", history.alertPPM)) ppm drift, \(String(format: "%.0f", history.alertSpreadPPM)) ppm spread"
        lines.append(
            alerts.isEmpty
                ? "no alerts (thresholds: \(thresholds))"
                : alerts.map { "! \($0.name.escapedForTerminal): \($0.alert ?? "")" }.joined(separator: "\n"))
        return lines.joined(separator: "\n")
    }

    /// Left-aligned first column, right-aligned numbers.
    private static func align(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].terminalWidth }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, text in
                index == 0
                    ? text.padded(toColumns: widths[index])
                    : String(repeating: " ", count: widths[index] - text.terminalWidth) + text
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
    }
}
