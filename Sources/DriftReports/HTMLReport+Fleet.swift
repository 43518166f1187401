import DriftCore
import DriftSchema
import Foundation

extension HTMLReport {
    /// The fleet: one row per device, alerting and troubled devices first, then by the size of their drift - what a
    /// QA engineer reads first. Each row's numbers carry `data-value` for tests; the trend is a sparkline of the
    /// device's median drift over the journal's recent runs.
    static func fleetSection(_ devices: [DeviceSummary], runs: Int) -> String {
        guard !devices.isEmpty else { return "" }
        let shown = devices.prefix(deviceRowLimit)
        var html = "<section id=\"fleet\"><h2>Devices</h2><p class=\"hint\">"
        html +=
            shown.count < devices.count
            ? "The first \(shown.count) of \(devices.count) devices, alerting and troubled first; every device is in report.json and devices.csv. "
            : "\(devices.count) device\(devices.count == 1 ? "" : "s"), alerting and troubled first. "
        html += "Median, worst and spread (interquartile range) of each device's clock errors in this run (by their "
        html += "sound where measured: By sound counts those), and the median sync at their first frames (Start ms; "
        html += "negative: started late)"
        html += runs >= 2 ? "; the trend is its median drift over the last \(runs) runs.</p>" : ".</p>"
        html +=
            "<div class=\"scroll tall\"><table id=\"devices\" data-total=\"\(devices.count)\" data-shown=\"\(shown.count)\"><thead><tr>"
        for title in [
            "Device", "Recordings", "By sound", "Audio h", "Median ppm", "Worst ppm", "Spread ppm", "Start ms",
            "Past limit", "Refused", "Failed", "Trend", "Alert",
        ] {
            html += "<th>\(title)</th>"
        }
        html += "</tr></thead><tbody>\n"
        for device in shown {
            let tone =
                device.alert != nil || device.failed > 0 || device.refused > 0
                ? "bad" : device.hasProblems ? "warn" : ""
            html += "<tr class=\"\(tone)\" data-device=\"\(escape(device.device))\">"
            html += cell(middle(device.device), title: device.device)
            html += countCell(device.recordings)
            html += countCell(device.measuredBySound)
            html += numberCell(device.audioSeconds / 3600, "%.1f")
            html += numberCell(device.medianPPM, "%+.1f")
            html += numberCell(device.worstPPM, "%+.1f")
            html += numberCell(device.spreadPPM, "%.1f")
            html += numberCell(device.medianStartOffsetMs, "%+.1f")
            html += countCell(device.pastLimit)
            html += countCell(device.refused)
            html += countCell(device.failed)
            html += "<td>\(sparkline(device.trend))</td>"
            html +=
                "<td class=\"wrap\" data-value=\"\(escape(device.alert ?? ""))\">\(escape(device.alert ?? ""))</td></tr>\n"
        }
        return html + "</tbody></table></div></section>\n"
    }

    static func countCell(_ value: Int) -> String {
        "<td class=\"num\" data-value=\"\(value)\">\(value == 0 ? "" : "\(value)")</td>"
    }

    /// A small line of `values` (oldest left); nothing for fewer than two measured points.
    static func sparkline(_ values: [Double?]) -> String {
        let points = values.enumerated().compactMap { index, value in value.map { (index, $0) } }
        guard points.count >= 2, values.count >= 2 else { return "" }
        let low = points.map(\.1).min() ?? 0
        let high = points.map(\.1).max() ?? 0
        let span = max(high - low, 1)
        let (width, height) = (90.0, 22.0)
        let path = points.map { index, value in
            String(
                format: "%.1f,%.1f", 2 + Double(index) / Double(values.count - 1) * (width - 4),
                2 + (high - value) / span * (height - 4))
        }.joined(separator: " ")
        let text = values.map { $0.map { String(format: "%+.1f", $0) } ?? "–" }.joined(separator: " → ")
        return
            "<svg class=\"spark\" viewBox=\"0 0 90 22\"><title>\(text) ppm</title><polyline points=\"\(path)\"/></svg>"
    }
}
