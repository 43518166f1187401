import DriftCore
import DriftSchema
import Foundation

extension HTMLReport {
    /// Lines in the drift history chart at most.
    static let trendLineLimit = 12

    /// The drift history section: one line per device (median ppm per run, oldest run left), the alerting devices and
    /// then those drifting most, flagged ones in red with their alerts listed below. Shown when the journal holds at
    /// least two runs.
    static func trend(_ history: DriftHistory) -> String {
        guard history.runs.count >= 2, !history.devices.isEmpty else { return "" }
        // The history lists alerting devices first, then the largest drift: a dozen lines stay readable.
        let shown = history.devices.prefix(trendLineLimit)
        let values = shown.flatMap { $0.ppm.compactMap { $0 } }
        let low = min(values.min() ?? -1, 0)
        let high = max(values.max() ?? 1, 0)
        let span = max(high - low, 1)
        let (width, height, left, bottom, right) = (900.0, 280.0, 70.0, 30.0, 200.0)
        let runs = history.runs.count
        func x(_ index: Int) -> Double { left + Double(index) / Double(runs - 1) * (width - left - right) }
        func y(_ ppm: Double) -> Double { 10 + (high - ppm) / span * (height - bottom - 20) }

        var svg = "<svg id=\"trend\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\">"
        svg += "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(width - right)\" y2=\"\(y(0))\" class=\"zero\"/>"
        for value in [high, low] where value != 0 {
            svg += "<text x=\"2\" y=\"\(y(value) + 4)\" class=\"axis\">\(String(format: "%+.0f ppm", value))</text>"
        }
        for (index, run) in history.runs.enumerated() {
            svg +=
                "<text x=\"\(x(index) - 20)\" y=\"\(height - 8)\" class=\"axis small\">#\(run.id) \(escape(String(run.started.dropFirst(5).prefix(5))))</text>"
        }
        // Labels at the right end, nudged apart so that none covers another.
        var labels: [(y: Double, text: String, name: String)] = []
        for series in shown {
            let flagged = series.alert != nil
            let points = series.ppm.enumerated().compactMap { index, value in value.map { (x(index), y($0)) } }
            let path = points.map { "\($0.0),\($0.1)" }.joined(separator: " ")
            svg +=
                "<polyline points=\"\(path)\" class=\"\(flagged ? "series alert" : "series")\" data-device=\"\(escape(series.name))\"><title>\(escape(series.name))</title></polyline>"
            for point in points {
                svg +=
                    "<circle cx=\"\(point.0)\" cy=\"\(point.1)\" r=\"2.5\" class=\"\(flagged ? "dot bad" : "dot")\"/>"
            }
            if let last = points.last { labels.append((last.1, series.name, series.name)) }
        }
        labels.sort { $0.y < $1.y }
        var previous = -Double.infinity
        for label in labels {
            let at = max(label.y + 4, previous + 12)
            previous = at
            svg +=
                "<text x=\"\(width - right + 6)\" y=\"\(at)\" class=\"axis\"><title>\(escape(label.name))</title>\(escape(middle(label.text, 30)))</text>"
        }
        svg += "</svg>"
        let caption =
            history.devicesTotal > shown.count
            ? "Median drift by device over the last \(runs) runs (ppm): top \(shown.count) of \(history.devicesTotal), alerting first"
            : "Median drift by device over the last \(runs) runs (ppm)"
        var html =
            "<section><h2>Drift history</h2><figure class=\"wide\"><figcaption>\(caption)</figcaption>\(svg)</figure>"
        let alerts = history.devices.filter { $0.alert != nil }
        html += "<ul id=\"alerts\" data-count=\"\(alerts.count)\">"
        html +=
            alerts.isEmpty
            ? "<li>No device moved more than \(String(format: "%.0f", history.alertPPM)) ppm from its earlier runs, and none turned erratic.</li>"
            : alerts.map { "<li class=\"alert\">\(escape($0.name)): \(escape($0.alert ?? ""))</li>" }.joined()
        return html + "</ul></section>\n"
    }

    /// Each alerting device's clock night by night: its recordings' clock errors as points, their median as a line,
    /// from the history's own numbers (`recordings`, `ppm`), so the page and the JSON show the same plot. Each point
    /// and each median carries its value (`data-ppm`) for tests.
    static func alertingClocks(_ history: DriftHistory) -> String {
        let alerting = history.devices.filter { $0.alert != nil && $0.recordings != nil }
        guard !alerting.isEmpty else { return "" }
        var html =
            "<section id=\"alerting-clocks\"><h2>Alerting devices: their clocks night by night</h2><p class=\"hint\">"
        html += "Each dot is one recording's clock error (ppm) in a run, the line the device's median: clock figures "
        html += "only (by the sound, or by lengths a clock explains), never a late start.</p>"
        for series in alerting.prefix(trendLineLimit) { html += clockChart(series, runs: history.runs) }
        return html + "</section>\n"
    }

    private static func clockChart(_ series: DriftHistory.Series, runs: [DriftHistory.Run]) -> String {
        let points = series.recordings ?? []
        let values = points.flatMap { $0 } + series.ppm.compactMap { $0 }
        let low = min(values.min() ?? -1, 0)
        let high = max(values.max() ?? 1, 0)
        let span = max(high - low, 1)
        let (width, height, left, bottom, right) = (640.0, 200.0, 70.0, 30.0, 20.0)
        let count = max(runs.count, 1)
        func x(_ index: Int) -> Double {
            count == 1 ? (left + width - right) / 2 : left + Double(index) / Double(count - 1) * (width - left - right)
        }
        func y(_ ppm: Double) -> Double { 10 + (high - ppm) / span * (height - bottom - 20) }
        var svg =
            "<svg class=\"clock-chart\" data-device=\"\(escape(series.name))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\">"
        svg += "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(width - right)\" y2=\"\(y(0))\" class=\"zero\"/>"
        for value in [high, low] where value != 0 {
            svg += "<text x=\"2\" y=\"\(y(value) + 4)\" class=\"axis\">\(String(format: "%+.1f ppm", value))</text>"
        }
        for (index, run) in runs.enumerated() {
            svg +=
                "<text x=\"\(x(index) - 20)\" y=\"\(height - 8)\" class=\"axis small\">#\(run.id) \(escape(String(run.started.dropFirst(5).prefix(5))))</text>"
        }
        let medians = series.ppm.enumerated().compactMap { index, value in value.map { (index, $0) } }
        svg +=
            "<polyline points=\"\(medians.map { "\(x($0.0)),\(y($0.1))" }.joined(separator: " "))\" class=\"series alert\"/>"
        for (index, value) in medians {
            svg +=
                "<rect class=\"median\" data-run=\"\(index)\" data-ppm=\"\(value)\" x=\"\(x(index) - 6)\" y=\"\(y(value) - 1)\" width=\"12\" height=\"2\"><title>median \(String(format: "%+.2f", value)) ppm</title></rect>"
        }
        for (index, run) in points.enumerated() {
            for value in run {
                svg +=
                    "<circle class=\"dot recording\" data-run=\"\(index)\" data-ppm=\"\(value)\" cx=\"\(x(index))\" cy=\"\(y(value))\" r=\"3\"><title>\(String(format: "%+.2f", value)) ppm</title></circle>"
            }
        }
        svg += "</svg>"
        return
            "<figure class=\"wide\"><figcaption>\(escape(series.name)): \(escape(series.alert ?? ""))</figcaption>\(svg)</figure>"
    }
}
