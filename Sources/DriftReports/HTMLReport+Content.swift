import DriftCore
import DriftSchema
import Foundation

extension HTMLReport {
    /// Pairs drawn in the "sync by sound" section at most; the others are in report.json.
    static let contentFigureLimit = 200
    /// Points per curve in the page (the JSON keeps every point it has).
    static let contentCurvePoints = 120

    /// One figure per pair measured by its sound, problems first: the lag over the recording as the headers predict
    /// it (their plan assumes the lag grows evenly from zero), as the sound measured it, and after the repair.
    static func contentSection(_ report: ScanReport) -> String {
        let measured = report.pairs.filter { $0.content != nil }
        guard !measured.isEmpty else { return "" }
        func concern(_ row: PairReport) -> Double {
            if row.outcome == .failed { return 4e6 }
            if row.outcome == .refused { return 3e6 }
            if row.content?.isMeasured != true { return 2e6 }
            return (row.content?.residualMs ?? 0) * 1000 + abs(row.content?.offsetMs ?? 0)
                + Double(row.content?.dropouts.count ?? 0) * 100
        }
        let shown = measured.sorted { concern($0) > concern($1) }.prefix(contentFigureLimit)
        var html = "<section id=\"content\"><h2>Sync by sound</h2><p class=\"hint\">"
        html +=
            "Each recording correlated with its reference's own sound. Left: the lag (reference time − recording "
            + "time) across the recording as the headers' plan assumes it (dashed) and as the sound measured it (solid). "
            + "Where the clock wandered or its rate stepped, its drift along the take (ppm). "
            + "Right: the lag left after the repair, against the limit. "
        html +=
            shown.count < measured.count
            ? "The \(shown.count) most notable of \(measured.count) pairs measured; all are in report.json.</p>"
            : "\(measured.count) pair\(measured.count == 1 ? "" : "s") measured.</p>"
        html += "<div class=\"content-grid\">"
        for row in shown { html += contentFigure(row) }
        return html + "</div></section>\n"
    }

    static func contentFigure(_ row: PairReport) -> String {
        guard let content = row.content else { return "" }
        var caption = escape(short(row.recordingText))
        caption += " — " + escape(content.isMeasured ? content.summary : content.reason ?? "unmeasurable")
        if let disagreement = content.disagreement { caption += " <span class=\"flag\">\(escape(disagreement))</span>" }
        var attributes = "data-recording=\"\(escape(row.recordingText))\" data-model=\"\(content.model.rawValue)\""
        if let offset = content.offsetMs { attributes += " data-offset-ms=\"\(offset)\"" }
        if let drift = content.driftPPM { attributes += " data-drift-ppm=\"\(drift)\"" }
        if let residual = content.residualMs { attributes += " data-residual-ms=\"\(residual)\"" }
        attributes += " data-dropouts=\"\(content.dropouts.count)\" data-measured-by=\"\(row.measuredBy.rawValue)\""
        var html = "<figure class=\"content\" \(attributes)><figcaption>\(caption)</figcaption><div class=\"pair\">"
        html += beforeChart(row, content)
        if let clock = content.clock { html += driftChart(clock) }
        html += afterChart(content)
        html += "</div><div class=\"note\">measured by \(row.measuredBy.rawValue)"
        if !row.operations.isEmpty { html += " · " + escape(row.operations.map(\.brief).joined(separator: "; ")) }
        if let outcome = row.outcome { html += " · \(outcome.rawValue)" }
        if let note = row.contentNote { html += " · " + escape(note) }
        return html + "</div></figure>"
    }

    /// The lag before the repair: the headers' straight line and the sound's curve, with each dropout marked.
    static func beforeChart(_ row: PairReport, _ content: ContentMeasurement) -> String {
        let duration = row.recordingSeconds ?? content.curve.last?.atSeconds ?? 1
        var series: [[(Double, Double)]] = []
        // The headers' plan: lag 0 at the start, growing evenly to the length difference at the end.
        if let reference = row.referenceSeconds, let recording = row.recordingSeconds {
            series.append([(0, 0), (duration, (reference - recording) * 1000)])
        } else {
            series.append([])
        }
        series.append(thin(content.curve.map { ($0.atSeconds, $0.lagMs) }))
        return lineChart(
            series: series, classes: ["header", "sound"], duration: duration, title: "lag before, ms",
            marks: content.dropouts.map(\.atSeconds), band: nil)
    }

    /// A clock that wandered or stepped: its drift along the take (ppm), each rate step marked.
    static func driftChart(_ clock: ClockPath) -> String {
        let duration = clock.drift.last?.atSeconds ?? clock.toSeconds
        let points = thin(clock.drift.map { ($0.atSeconds, $0.driftPPM) })
        let title = clock.rateSteps.isEmpty ? "drift, ppm (the clock wanders)" : "drift, ppm (the clock's rate stepped)"
        return lineChart(
            series: [points], classes: ["drift"], duration: duration, title: title,
            marks: clock.rateSteps.map(\.atSeconds), band: nil
        )
        .replacingOccurrences(of: "<svg class=\"lag\"", with: "<svg class=\"lag drift\"")
    }

    /// The lag left after the repair, with the limit as a band.
    static func afterChart(_ content: ContentMeasurement) -> String {
        guard let curve = content.residualCurve, !curve.isEmpty else {
            return
                "<svg class=\"lag\" viewBox=\"0 0 300 150\" role=\"img\"><text x=\"10\" y=\"75\" class=\"axis\">not repaired by its sound</text></svg>"
        }
        let duration = curve.last?.atSeconds ?? 1
        let limit = content.residualLimitMs ?? 1
        return lineChart(
            series: [thin(curve.map { ($0.atSeconds, $0.lagMs) })], classes: ["after"], duration: duration,
            title: "lag after, ms (residual \(String(content.residualMs ?? 0, decimals: 3)))", marks: [],
            band: limit)
    }

    static func thin(_ points: [(Double, Double)]) -> [(Double, Double)] {
        guard points.count > contentCurvePoints else { return points }
        let step = Double(points.count - 1) / Double(contentCurvePoints - 1)
        return (0..<contentCurvePoints).map { points[Int((Double($0) * step).rounded())] }
    }

    static func lineChart(
        series: [[(Double, Double)]], classes: [String], duration: Double, title: String,
        marks: [Double], band: Double?
    ) -> String {
        let (width, height, left, bottom) = (300.0, 150.0, 44.0, 18.0)
        let values = series.flatMap { $0.map(\.1) } + (band.map { [$0, -$0] } ?? [])
        var low = values.min() ?? -1
        var high = values.max() ?? 1
        if high - low < 1e-6 { (low, high) = (low - 1, high + 1) }
        let pad = (high - low) * 0.08
        (low, high) = (low - pad, high + pad)
        func x(_ t: Double) -> Double { left + t / max(duration, 1e-9) * (width - left - 6) }
        func y(_ v: Double) -> Double { 6 + (high - v) / (high - low) * (height - bottom - 12) }
        func label(_ v: Double) -> String {
            abs(v) >= 100 ? String(v, decimals: 0) : abs(v) >= 1 ? String(v, decimals: 1) : String(v, decimals: 3)
        }
        var svg = "<svg class=\"lag\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\">"
        if let band {
            svg +=
                "<rect x=\"\(left)\" y=\(quote(y(band))) width=\"\(width - left - 6)\" height=\(quote(y(-band) - y(band))) class=\"band\"/>"
        }
        if low < 0 && high > 0 {
            svg += "<line x1=\"\(left)\" y1=\(quote(y(0))) x2=\"\(width - 6)\" y2=\(quote(y(0))) class=\"zero\"/>"
        }
        for mark in marks {
            svg +=
                "<line x1=\(quote(x(mark))) y1=\"6\" x2=\(quote(x(mark))) y2=\"\(height - bottom - 6)\" class=\"mark\"/>"
        }
        for (points, kind) in zip(series, classes) where !points.isEmpty {
            let path = points.map { "\(format(x($0.0))),\(format(y($0.1)))" }.joined(separator: " ")
            svg += "<polyline points=\"\(path)\" class=\"curve \(kind)\"/>"
        }
        svg += "<text x=\"2\" y=\"12\" class=\"axis\">\(label(high - pad))</text>"
        svg += "<text x=\"2\" y=\"\(height - bottom - 4)\" class=\"axis\">\(label(low + pad))</text>"
        svg +=
            "<text x=\"\(left)\" y=\"\(height - 4)\" class=\"axis\">\(escape(title)) · \(ReportTable.formatDuration(duration))</text>"
        return svg + "</svg>"
    }

    private static func quote(_ value: Double) -> String { "\"\(format(value))\"" }
    private static func format(_ value: Double) -> String { String(value, decimals: 1) }

    static let contentCSS = """
        .content-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(620px,1fr));gap:12px}
        figure.content .pair{display:flex;gap:8px}figure.content svg.lag{flex:1 1 300px}
        figure.content .note{font-size:12px;color:#5b6475;margin-top:4px;white-space:normal}
        .curve{fill:none;stroke-width:1.6}.curve.header{stroke:#8a93a3;stroke-dasharray:5 4}.curve.sound{stroke:#3b6fd8}
        .curve.after{stroke:#1e8e3e}.curve.drift{stroke:#c26a00}.band{fill:#1e8e3e22}.mark{stroke:#b3261e;stroke-dasharray:2 3}
        """
}
