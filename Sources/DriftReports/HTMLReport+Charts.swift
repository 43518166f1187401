import DriftCore
import DriftSchema
import Foundation

extension HTMLReport {
    /// Bins on a signed decade scale: drift spans clock drift (tens of ppm) to rate mislabels (tens of thousands).
    static let binEdges: [Double] = [1, 10, 100, 1000, 10_000]
    /// Devices in the drift-by-device chart.
    static let deviceChartLimit = 20

    static func histogram(_ pairs: [PairReport]) -> String {
        var labels: [String] = []
        let edges = binEdges
        var counts = Array(repeating: 0, count: 2 * edges.count + 1)
        // Negative bins from the largest magnitude down, the in-sync centre, then positive bins.
        labels.append("< −\(Int(edges[edges.count - 1]))")
        for i in stride(from: edges.count - 1, to: 0, by: -1) {
            labels.append("−\(Int(edges[i]))…−\(Int(edges[i - 1]))")
        }
        labels.append("±1")
        for i in 1..<edges.count { labels.append("+\(Int(edges[i - 1]))…\(Int(edges[i]))") }
        labels.append("> +\(Int(edges[edges.count - 1]))")
        for value in pairs.compactMap(\.driftPPM) {
            let magnitude = abs(value)
            let decade = edges.firstIndex { magnitude < $0 } ?? edges.count  // 0: in sync, k: below edges[k]
            let bin = decade == 0 ? edges.count : value < 0 ? edges.count - decade : edges.count + decade
            counts[bin] += 1
        }
        return bars(labels: labels, values: counts.map(Double.init), format: "%.0f", id: "histogram")
    }

    /// Median and worst |ppm| of the devices drifting most, labelled with their names cut in the middle (the whole
    /// name on hover).
    static func byDevice(_ devices: [DeviceSummary]) -> String {
        let ranked = devices.filter { $0.medianPPM != nil }
            .sorted { abs($0.worstPPM ?? 0) > abs($1.worstPPM ?? 0) }
        let stats = ranked.prefix(deviceChartLimit)
        let caption =
            ranked.count > stats.count
            ? "Drift by device: top \(stats.count) of \(ranked.count) (median and worst |ppm|)"
            : "Drift by device (median and worst |ppm|)"
        let width = 520.0
        let rowHeight = 22.0
        let height = Double(stats.count) * rowHeight + 10
        let top = max(stats.map { abs($0.worstPPM ?? 0) }.max() ?? 1, 1)
        var svg = "<svg id=\"by-device\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\">"
        for (i, item) in stats.enumerated() {
            let y = Double(i) * rowHeight + 4
            let scale = (width - 250) / log10(top + 1)
            let worst = log10(abs(item.worstPPM ?? 0) + 1) * scale
            let median = log10(abs(item.medianPPM ?? 0) + 1) * scale
            svg += "<g data-device=\"\(escape(item.device))\"><title>\(escape(item.device))</title>"
            svg += "<text x=\"0\" y=\"\(y + 14)\" class=\"axis\">\(escape(middle(item.device, 28)))</text>"
            svg += "<rect x=\"180\" y=\"\(y)\" width=\"\(worst)\" height=\"16\" class=\"worst\"/>"
            svg += "<rect x=\"180\" y=\"\(y + 4)\" width=\"\(median)\" height=\"8\" class=\"mean\"/>"
            svg +=
                "<text x=\"\(185 + worst)\" y=\"\(y + 13)\" class=\"axis\">\(String(format: "%.0f", abs(item.worstPPM ?? 0)))</text></g>"
        }
        return "<figure><figcaption>\(caption)</figcaption>\(svg)</svg></figure>"
    }

    /// Every pair's sync at the end against its duration; beyond `scatterPointLimit` pairs, how many fall in each
    /// cell of a grid (darker: more), the cells past a limit in red.
    static func scatter(_ pairs: [PairReport]) -> String {
        let points = pairs.compactMap { row -> (Double, Double)? in
            guard let seconds = row.recordingSeconds, let offset = row.endOffsetMs else { return nil }
            return (seconds, offset)
        }
        let (width, height, left, bottom) = (900.0, 300.0, 60.0, 30.0)
        let maxX = max(points.map(\.0).max() ?? 1, 1)
        let limit = max(points.map { abs($0.1) }.max() ?? 150, 150)
        func x(_ v: Double) -> Double { left + v / maxX * (width - left - 10) }
        func y(_ v: Double) -> Double {
            // Signed square-root scale keeps both a few ms and seconds readable.
            let scaled = (v < 0 ? -1 : 1) * (abs(v) / limit).squareRoot()
            return (height - bottom) / 2 - scaled * ((height - bottom) / 2 - 6)
        }
        var svg = "<svg id=\"scatter\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\">"
        svg += "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(width)\" y2=\"\(y(0))\" class=\"zero\"/>"
        for (value, label) in [(125.0, "+125 ms"), (-45.0, "−45 ms")] {
            svg += "<line x1=\"\(left)\" y1=\"\(y(value))\" x2=\"\(width)\" y2=\"\(y(value))\" class=\"limit\"/>"
            svg += "<text x=\"2\" y=\"\(y(value) + 4)\" class=\"axis\">\(label)</text>"
        }
        svg +=
            "<text x=\"\(width - 150)\" y=\"\(height - 8)\" class=\"axis\">duration → \(ReportTable.formatDuration(maxX))</text>"
        if points.count <= scatterPointLimit {
            for (seconds, offset) in points {
                let bad = offset > 125 || offset < -45
                svg +=
                    "<circle cx=\"\(x(seconds))\" cy=\"\(y(offset))\" r=\"3.5\" class=\"\(bad ? "dot bad" : "dot")\"/>"
            }
            return svg + "</svg>"
        }
        let (columns, rows) = (140, 54)
        var cells: [Int: (count: Int, bad: Bool)] = [:]
        for (seconds, offset) in points {
            let column = min(columns - 1, Int((x(seconds) - left) / (width - left - 10) * Double(columns)))
            let row = min(rows - 1, max(0, Int(y(offset) / (height - bottom) * Double(rows))))
            let key = row * columns + column
            cells[key, default: (0, false)].count += 1
            if offset > 125 || offset < -45 { cells[key]?.bad = true }
        }
        let most = Double(cells.values.map(\.count).max() ?? 1)
        let (cellWidth, cellHeight) = ((width - left - 10) / Double(columns), (height - bottom) / Double(rows))
        for (key, cell) in cells.sorted(by: { $0.key < $1.key }) {
            let opacity = 0.2 + 0.8 * log(Double(cell.count) + 1) / log(most + 1)
            svg +=
                "<rect x=\"\(String(format: "%.1f", left + Double(key % columns) * cellWidth))\" y=\"\(String(format: "%.1f", Double(key / columns) * cellHeight))\" "
                + "width=\"\(String(format: "%.1f", cellWidth))\" height=\"\(String(format: "%.1f", cellHeight))\" "
                + "class=\"\(cell.bad ? "dot bad" : "dot")\" style=\"opacity:\(String(format: "%.2f", opacity))\"><title>\(cell.count)</title></rect>"
        }
        return svg + "</svg>"
    }

    static func bars(labels: [String], values: [Double], format: String, id: String) -> String {
        let (width, height, bottom) = (520.0, 240.0, 40.0)
        let slot = width / Double(values.count)
        let top = max(values.max() ?? 1, 1)
        var svg = "<svg id=\"\(id)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\">"
        for (i, value) in values.enumerated() {
            let h = value / top * (height - bottom - 20)
            let x = Double(i) * slot + 3
            svg +=
                "<rect x=\"\(x)\" y=\"\(height - bottom - h)\" width=\"\(slot - 6)\" height=\"\(h)\" class=\"bar\" data-count=\"\(Int(value))\"/>"
            if value > 0 {
                svg +=
                    "<text x=\"\(x + slot / 2 - 6)\" y=\"\(height - bottom - h - 4)\" class=\"axis\">\(String(format: format, value))</text>"
            }
            svg +=
                "<text x=\"\(x)\" y=\"\(height - bottom + 14 + Double(i % 2) * 14)\" class=\"axis small\">\(escape(labels[i]))</text>"
        }
        return svg + "</svg>"
    }
}
