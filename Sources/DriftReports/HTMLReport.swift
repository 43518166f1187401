import DriftCore
import DriftSchema
import Foundation

/// One self-contained HTML file (no network, no external scripts) that stays small and fast at fleet scale: the
/// fleet first (one row per device, worst first, with its trend and alert), then charts that say "top N of M", the
/// problems (refused, failed, unreadable, past a lip-sync limit) as a table, and every pair in a paged table whose
/// data the page carries gzip-compressed and unpacks after it is shown. Summary numbers and device rows carry
/// `data-value` attributes so tests can compare the rendered page with the JSON.
public enum HTMLReport {
    /// Devices in the fleet table at most; every device is in report.json and devices.csv.
    static let deviceRowLimit = 1000
    /// Problem pairs rendered as HTML at most; every pair is in the paged table, report.json and report.csv.
    static let problemRowLimit = 1000
    /// Points drawn one by one in the scatter chart; beyond this it shows their density.
    static let scatterPointLimit = 3000

    public static func render(_ report: ScanReport) -> String {
        let devices = report.devices ?? report.deviceSummaries()
        let measured = report.pairs.filter { $0.driftPPM != nil }
        let s = report.summary
        let alerts = devices.filter { $0.alert != nil }.count
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>driftfix drift report</title>
            <style>\(css)\(contentCSS)</style></head><body>
            <header><h1>Drift report</h1><p>Generated \(escape(report.generated)) · roots: \(report.rootTexts.map(escape).joined(separator: ", "))</p></header>
            <section class="cards">
            \(card("devices", "Devices", "\(devices.count)", devices.count))
            \(card("alerts", "Devices alerting", "\(alerts)", alerts, tone: alerts > 0 ? "bad" : ""))
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
                   note: s.worstDriftRecordingText.map { (($0 as NSString).lastPathComponent) }))
            </section>
            \(fleetSection(devices, runs: report.history?.runs.count ?? 0))
            <section class="charts">
            <figure><figcaption>Drift distribution (ppm, recording vs reference; \(measured.count) pairs)</figcaption>\(histogram(measured))</figure>
            \(byDevice(devices))
            <figure class="wide"><figcaption>Sync offset at the end vs duration (the sound's where it was measured; dashed: ITU-R BT.1359, +125 / −45 ms)\(measured.count > scatterPointLimit ? " — density of \(measured.count) pairs" : "")</figcaption>\(scatter(measured))</figure>
            </section>
            \(report.history.map(trend) ?? "")
            \(report.history.map(alertingClocks) ?? "")
            \(contentSection(report))
            \(problemSection(report))
            \(pairSection(report))
            """
        html += listSection(
            "unpaired", "Unpaired files", report.unpaired.map { "\($0.kind.rawValue): \($0.pathText) — \($0.reason)" })
        if let left = report.leftForAPerson { html += SoundPairingText.leftSection(left) }
        html += listSection("scan-errors", "Scan errors", report.errors.map { "\($0.pathText): \($0.error)" })
        html += listSection("skipped", "Skipped paths", report.skipped.map { "\($0.pathText) — \($0.reason)" })
        html +=
            "<footer>driftfix · every number here is also in report.json</footer>\n<script>\(script)</script></body></html>\n"
        return html
    }

    // MARK: pieces

    static func card(
        _ id: String, _ label: String, _ text: String, _ value: Any, tone: String = "", note: String? = nil
    ) -> String {
        "<div class=\"card \(tone)\"><div class=\"label\">\(label)</div>"
            + "<div class=\"value\" id=\"summary-\(id)\" data-value=\"\(value)\">\(escape(text))</div>"
            + (note.map { "<div class=\"note\">\(escape($0))</div>" } ?? "") + "</div>"
    }

    static func cell(_ text: String, title: String? = nil) -> String {
        "<td" + (title.map { " title=\"\(escape($0))\"" } ?? "") + ">\(escape(text))</td>"
    }

    static func numberCell(_ value: Double?, _ format: String) -> String {
        guard let value else { return "<td class=\"num\" data-value=\"\"></td>" }
        return "<td class=\"num\" data-value=\"\(value)\">\(String(format: format, value))</td>"
    }

    /// A list of lines (unpaired files, scan errors, skipped paths), the first `problemRowLimit` of them.
    static func listSection(_ id: String, _ title: String, _ lines: [String]) -> String {
        guard !lines.isEmpty else { return "" }
        var html = "<section id=\"\(id)\"><h2>\(title) (\(lines.count))</h2><ul>"
        html += lines.prefix(problemRowLimit).map { "<li>\(escape($0))</li>" }.joined()
        if lines.count > problemRowLimit {
            html += "<li class=\"hint\">… and \(lines.count - problemRowLimit) more in report.json and report.csv</li>"
        }
        return html + "</ul></section>\n"
    }

    /// The last two folders and the file of a path.
    static func short(_ path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.suffix(2).joined(separator: "/")
    }

    /// `text` cut in the middle to at most `limit` characters ("dev0…ht3/take1.wav"): both ends stay readable.
    static func middle(_ text: String, _ limit: Int = 36) -> String {
        guard text.count > limit, limit > 3 else { return text }
        let head = (limit - 1) / 2
        return String(text.prefix(head)) + "…" + String(text.suffix(limit - 1 - head))
    }

    /// A file name's bytes that are not UTF-8 (or not composed) shown as \xHH, then escaped as markup.
    static func escape(_ text: String) -> String { TextEscaping.markup(PathText.shown(text)) }

    static let css = """
        body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2330;background:#f6f7f9}
        h1{margin:0 0 4px}header p{color:#5b6475;margin:0 0 16px}
        .cards{display:flex;flex-wrap:wrap;gap:12px;margin-bottom:16px}
        .card{background:#fff;border-radius:8px;padding:10px 14px;min-width:120px;box-shadow:0 1px 2px #0002}
        .card .label{color:#5b6475;font-size:12px}.card .value{font-size:22px;font-weight:600}.card .note{font-size:11px;color:#5b6475}
        .card.warn .value{color:#b26b00}.card.bad .value{color:#b3261e}
        .charts{display:flex;flex-wrap:wrap;gap:12px;margin-top:16px}figure{background:#fff;margin:0;padding:10px;border-radius:8px;box-shadow:0 1px 2px #0002;flex:1 1 480px}
        figure.wide{flex-basis:100%}figcaption{font-weight:600;margin-bottom:6px}svg{width:100%;height:auto}
        .bar{fill:#3b6fd8}.worst{fill:#f0b35a}.mean{fill:#b3261e}.dot{fill:#3b6fd8;opacity:.75}.dot.bad{fill:#b3261e}
        .series{fill:none;stroke:#3b6fd8;stroke-width:1.5}.series.alert{stroke:#b3261e;stroke-width:2.5}li.alert{color:#b3261e}
        .zero{stroke:#888}.limit{stroke:#b3261e;stroke-dasharray:5 4}.axis{font-size:11px;fill:#5b6475}.small{font-size:10px}
        table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 2px #0002;font-size:13px}
        th,td{padding:5px 8px;border-bottom:1px solid #e6e8ec;text-align:left;white-space:nowrap}
        th{background:#eef1f6;position:sticky;top:0}th[data-col]{cursor:pointer}td.num{text-align:right;font-variant-numeric:tabular-nums}
        tr.warn td{background:#fff8ec}tr.bad td{background:#fdeeee}.flag{background:#b3261e;color:#fff;border-radius:4px;padding:1px 5px;margin-right:3px;font-size:11px}
        td.wrap{white-space:normal;min-width:240px}.spark{width:90px;height:22px}.spark polyline{fill:none;stroke:#3b6fd8;stroke-width:1.5}
        tr.bad .spark polyline{stroke:#b3261e}.pager{display:flex;gap:8px;align-items:center;margin:8px 0}.pager input{flex:1;max-width:360px;padding:4px 6px}
        .hint{color:#5b6475;font-size:12px}footer{margin-top:24px;color:#8a93a3;font-size:12px}.scroll{overflow-x:auto}
        .scroll.tall{max-height:560px;overflow-y:auto}
        """
}
