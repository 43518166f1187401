import DriftCore
import DriftSchema
import Foundation

/// One self-contained HTML file (no network, no external scripts): summary, drift histogram, drift by folder,
/// drift against duration, and a sortable table. Charts are inline SVG drawn here; the only script sorts the table.
/// Summary numbers carry `data-value` attributes so tests can compare the rendered page with the JSON.
public enum HTMLReport {
    public static func render(_ report: ScanReport) -> String {
        let measured = report.pairs.filter { $0.driftPPM != nil }
        let withContent = report.pairs.contains { $0.content != nil || $0.contentNote != nil }
        let s = report.summary
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>driftfix drift report</title>
            <style>\(css)\(contentCSS)</style></head><body>
            <header><h1>Drift report</h1><p>Generated \(escape(report.generated)) · roots: \(report.roots.map(escape).joined(separator: ", "))</p></header>
            <section class="cards">
            \(card("pairs", "Pairs", "\(s.pairs)", s.pairs))
            \(card("audio", "Total audio", ReportTable.formatDuration(s.totalAudioSeconds), s.totalAudioSeconds))
            \(card("repair", "Need repair", "\(s.needRepair)", s.needRepair, tone: s.needRepair > 0 ? "warn" : ""))
            \(card("insync", "In sync", "\(s.inSync)", s.inSync))
            \(card("refused", "Refused", "\(s.refused)", s.refused, tone: s.refused > 0 ? "bad" : ""))
            \(card("errors", "Errors", "\(s.errors)", s.errors, tone: s.errors > 0 ? "bad" : ""))
            \(card("flagged", "Past a lip-sync limit", "\(s.flagged)", s.flagged, tone: s.flagged > 0 ? "warn" : ""))
            \(card("unpaired", "Unpaired files", "\(s.unpaired)", s.unpaired, tone: s.unpaired > 0 ? "warn" : ""))
            \(card("warned", "Pairs with warnings", "\(s.warned)", s.warned, tone: s.warned > 0 ? "warn" : ""))
            \(card("worst", "Worst drift", s.worstDriftPPM.map { String(format: "%+.1f ppm", $0) } ?? "–", s.worstDriftPPM ?? 0,
                   note: s.worstDriftRecording.map { (($0 as NSString).lastPathComponent) }))
            </section>
            <section class="charts">
            <figure><figcaption>Drift distribution (ppm, recording vs reference)</figcaption>\(histogram(measured))</figure>
            <figure><figcaption>Drift by folder / device (mean and worst |ppm|)</figcaption>\(byFolder(measured))</figure>
            <figure class="wide"><figcaption>Sync offset at the end vs duration (dashed: ITU-R BT.1359, +125 / −45 ms)</figcaption>\(scatter(measured))</figure>
            </section>
            \(report.history.map(trend) ?? "")
            \(contentSection(report))
            <section><h2>Pairs</h2><p class="hint">Click a column to sort.</p>
            <table id="pairs"><thead><tr>
            """
        let columns: [(String, String)] = [
            ("Recording", "text"), ("Reference", "text"), ("Duration s", "num"), ("Drift ms", "num"), ("ppm", "num"),
            ("At the end", "text"), ("Flags", "text"), ("Cause", "text"), ("Plan", "text"), ("Target frames", "num"),
        ] + (withContent ? [("Sound", "text")] : [])
        for (index, column) in columns.enumerated() {
            html += "<th data-col=\"\(index)\" data-type=\"\(column.1)\">\(column.0)</th>"
        }
        html += "</tr></thead><tbody>\n"
        for row in report.pairs {
            let tone = row.action == .refuse ? "bad" : row.flags.isEmpty && row.warnings.isEmpty ? "" : "warn"
            html += "<tr class=\"\(tone)\">"
            html += cell(short(row.recording), title: row.recording)
            html += cell(short(row.reference), title: row.reference)
            html += numberCell(row.recordingSeconds, "%.3f")
            html += numberCell(row.driftSeconds.map { $0 * 1000 }, "%+.2f")
            html += numberCell(row.driftPPM, "%+.1f")
            html += cell(row.sync ?? "")
            html += "<td>" + row.flags.map { "<span class=\"flag\">\($0 == .ituBT1359 ? "BT.1359" : "EBU R37")</span>" }.joined() + "</td>"
            html += cell(row.cause.map { $0.rawValue + (row.causeDetail.map { ": \($0)" } ?? "") } ?? "")
            let plan = row.action.rawValue + (row.methodReason.map { " (\($0))" } ?? "") + (row.error.map { " — \($0)" } ?? "")
                + row.warnings.map { " ⚠ \($0)" }.joined()
            html += cell(plan)
            html += numberCell(row.targetFrames.map(Double.init), "%.0f")
            if withContent { html += cell(ReportTable.contentNote(row) ?? "") }
            html += "</tr>\n"
        }
        html += "</tbody></table></section>\n"
        if !report.unpaired.isEmpty {
            html += "<section><h2>Unpaired files</h2><ul>"
            html += report.unpaired.map { "<li>\($0.kind.rawValue): \(escape($0.path)) — \(escape($0.reason))</li>" }.joined()
            html += "</ul></section>\n"
        }
        if !report.errors.isEmpty {
            html += "<section><h2>Scan errors</h2><ul>"
            html += report.errors.map { "<li>\(escape($0.path)): \(escape($0.error))</li>" }.joined()
            html += "</ul></section>\n"
        }
        if !report.skipped.isEmpty {
            html += "<section id=\"skipped\"><h2>Skipped paths</h2><ul>"
            html += report.skipped.map { "<li>\(escape($0.path)) — \(escape($0.reason))</li>" }.joined()
            html += "</ul></section>\n"
        }
        html += "<footer>driftfix · every number here is also in report.json</footer>\n<script>\(script)</script></body></html>\n"
        return html
    }

    // MARK: pieces

    static func card(_ id: String, _ label: String, _ text: String, _ value: Any, tone: String = "", note: String? = nil) -> String {
        "<div class=\"card \(tone)\"><div class=\"label\">\(label)</div>"
            + "<div class=\"value\" id=\"summary-\(id)\" data-value=\"\(value)\">\(escape(text))</div>"
            + (note.map { "<div class=\"note\">\(escape($0))</div>" } ?? "") + "</div>"
    }

    static func cell(_ text: String, title: String? = nil) -> String {
        "<td" + (title.map { " title=\"\(escape($0))\"" } ?? "") + ">\(escape(text))</td>"
    }

    static func numberCell(_ value: Double?, _ format: String) -> String {
        guard let value else { return "<td class=\"num\" data-sort=\"\"></td>" }
        return "<td class=\"num\" data-sort=\"\(value)\">\(String(format: format, value))</td>"
    }

    static func short(_ path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.suffix(2).joined(separator: "/")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    /// Bins on a signed decade scale: drift spans clock drift (tens of ppm) to rate mislabels (tens of thousands).
    static let binEdges: [Double] = [1, 10, 100, 1000, 10_000]

    static func histogram(_ pairs: [PairReport]) -> String {
        var labels: [String] = []
        var counts: [Int] = []
        let edges = binEdges
        let values = pairs.compactMap(\.driftPPM)
        // Negative bins from the largest magnitude down, the in-sync centre, then positive bins.
        labels.append("< −\(Int(edges.last!))")
        counts.append(values.filter { $0 <= -edges.last! }.count)
        for i in stride(from: edges.count - 1, to: 0, by: -1) {
            labels.append("−\(Int(edges[i]))…−\(Int(edges[i - 1]))")
            counts.append(values.filter { $0 > -edges[i] && $0 <= -edges[i - 1] }.count)
        }
        labels.append("±1")
        counts.append(values.filter { abs($0) < 1 }.count)
        for i in 1..<edges.count {
            labels.append("+\(Int(edges[i - 1]))…\(Int(edges[i]))")
            counts.append(values.filter { $0 >= edges[i - 1] && $0 < edges[i] }.count)
        }
        labels.append("> +\(Int(edges.last!))")
        counts.append(values.filter { $0 >= edges.last! }.count)
        return bars(labels: labels, values: counts.map(Double.init), format: "%.0f", id: "histogram")
    }

    static func byFolder(_ pairs: [PairReport]) -> String {
        let groups = Dictionary(grouping: pairs, by: \.folder)
        let stats = groups.map { folder, rows -> (String, Double, Double) in
            let magnitudes = rows.compactMap(\.driftPPM).map(abs)
            return (short(folder + "/x").split(separator: "/").first.map(String.init) ?? folder,
                    magnitudes.reduce(0, +) / Double(max(magnitudes.count, 1)), magnitudes.max() ?? 0)
        }.sorted { $0.2 > $1.2 }.prefix(20)
        let width = 520.0
        let rowHeight = 22.0
        let height = Double(stats.count) * rowHeight + 10
        let top = max(stats.map(\.2).max() ?? 1, 1)
        var svg = "<svg id=\"by-folder\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\">"
        for (i, item) in stats.enumerated() {
            let y = Double(i) * rowHeight + 4
            let scale = (width - 230) / log10(top + 1)
            let worst = log10(item.2 + 1) * scale
            let mean = log10(item.1 + 1) * scale
            svg += "<text x=\"0\" y=\"\(y + 14)\" class=\"axis\">\(escape(String(item.0.suffix(24))))</text>"
            svg += "<rect x=\"160\" y=\"\(y)\" width=\"\(worst)\" height=\"16\" class=\"worst\"/>"
            svg += "<rect x=\"160\" y=\"\(y + 4)\" width=\"\(mean)\" height=\"8\" class=\"mean\"/>"
            svg += "<text x=\"\(165 + worst)\" y=\"\(y + 13)\" class=\"axis\">\(String(format: "%.0f", item.2))</text>"
        }
        return svg + "</svg>"
    }

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
        svg += "<text x=\"\(width - 150)\" y=\"\(height - 8)\" class=\"axis\">duration → \(ReportTable.formatDuration(maxX))</text>"
        for (seconds, offset) in points {
            let bad = offset > 125 || offset < -45
            svg += "<circle cx=\"\(x(seconds))\" cy=\"\(y(offset))\" r=\"3.5\" class=\"\(bad ? "dot bad" : "dot")\"/>"
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
            svg += "<rect x=\"\(x)\" y=\"\(height - bottom - h)\" width=\"\(slot - 6)\" height=\"\(h)\" class=\"bar\" data-count=\"\(Int(value))\"/>"
            if value > 0 {
                svg += "<text x=\"\(x + slot / 2 - 6)\" y=\"\(height - bottom - h - 4)\" class=\"axis\">\(String(format: format, value))</text>"
            }
            svg += "<text x=\"\(x)\" y=\"\(height - bottom + 14 + Double(i % 2) * 14)\" class=\"axis small\">\(escape(labels[i]))</text>"
        }
        return svg + "</svg>"
    }

    static let css = """
        body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2330;background:#f6f7f9}
        h1{margin:0 0 4px}header p{color:#5b6475;margin:0 0 16px}
        .cards{display:flex;flex-wrap:wrap;gap:12px;margin-bottom:16px}
        .card{background:#fff;border-radius:8px;padding:10px 14px;min-width:120px;box-shadow:0 1px 2px #0002}
        .card .label{color:#5b6475;font-size:12px}.card .value{font-size:22px;font-weight:600}.card .note{font-size:11px;color:#5b6475}
        .card.warn .value{color:#b26b00}.card.bad .value{color:#b3261e}
        .charts{display:flex;flex-wrap:wrap;gap:12px}figure{background:#fff;margin:0;padding:10px;border-radius:8px;box-shadow:0 1px 2px #0002;flex:1 1 480px}
        figure.wide{flex-basis:100%}figcaption{font-weight:600;margin-bottom:6px}svg{width:100%;height:auto}
        .bar{fill:#3b6fd8}.worst{fill:#f0b35a}.mean{fill:#b3261e}.dot{fill:#3b6fd8;opacity:.75}.dot.bad{fill:#b3261e}
        .series{fill:none;stroke:#3b6fd8;stroke-width:1.5}.series.alert{stroke:#b3261e;stroke-width:2.5}li.alert{color:#b3261e}
        .zero{stroke:#888}.limit{stroke:#b3261e;stroke-dasharray:5 4}.axis{font-size:11px;fill:#5b6475}.small{font-size:10px}
        table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 2px #0002;font-size:13px}
        th,td{padding:5px 8px;border-bottom:1px solid #e6e8ec;text-align:left;white-space:nowrap}
        th{cursor:pointer;background:#eef1f6;position:sticky;top:0}td.num{text-align:right;font-variant-numeric:tabular-nums}
        tr.warn td{background:#fff8ec}tr.bad td{background:#fdeeee}.flag{background:#b3261e;color:#fff;border-radius:4px;padding:1px 5px;margin-right:3px;font-size:11px}
        .hint{color:#5b6475;font-size:12px}footer{margin-top:24px;color:#8a93a3;font-size:12px}
        """

    static let script = """
        document.querySelectorAll('#pairs th').forEach(function (th) {
          th.addEventListener('click', function () {
            var table = th.closest('table'), body = table.tBodies[0], col = +th.dataset.col;
            var numeric = th.dataset.type === 'num', asc = th.dataset.dir !== 'asc';
            table.querySelectorAll('th').forEach(function (h) { delete h.dataset.dir; });
            th.dataset.dir = asc ? 'asc' : 'desc';
            var rows = Array.prototype.slice.call(body.rows);
            rows.sort(function (a, b) {
              var x = a.cells[col], y = b.cells[col];
              var u = numeric ? parseFloat(x.dataset.sort) : x.textContent, v = numeric ? parseFloat(y.dataset.sort) : y.textContent;
              if (numeric) { if (isNaN(u)) return 1; if (isNaN(v)) return -1; return asc ? u - v : v - u; }
              return asc ? u.localeCompare(v) : v.localeCompare(u);
            });
            rows.forEach(function (r) { body.appendChild(r); });
          });
        });
        """
}
