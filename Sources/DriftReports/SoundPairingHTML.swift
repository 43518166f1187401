import DriftSchema
import Foundation

public import struct SystemPackage.FilePath

extension SoundPairingText {
    /// The report as one page: per group, each recording a lane with the clips it heard as boxes at their places
    /// (coloured by status; the numbers on hover and in a table below), then what matched nothing.
    public static func html(_ report: SoundPairingReport) -> String {
        var page = pageHead()
        for (g, group) in report.groups.enumerated() {
            page += groupSection(group, index: g)
        }
        page += leftSection(report.leftForAPerson)
        return page + "</body></html>\n"
    }

    /// The page's head, its style, and its heading with the colours' key.
    private static func pageHead() -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>driftfix sync: clips and recordings paired by sound</title>
        <style>
        body { font: 14px system-ui, sans-serif; margin: 2em; color: #222; }
        h2 { margin-top: 2em; } table { border-collapse: collapse; margin-top: 1em; }
        td, th { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: left; font-variant-numeric: tabular-nums; }
        svg { background: #fafafa; border: 1px solid #ddd; }
        .lane text { font-size: 12px; } .clip text { font-size: 11px; fill: #fff; }
        .used rect { fill: #2b7a3d; } .alternative rect { fill: #7aa8d8; } .uncertain rect { fill: #d9a441; }
        .failed rect { fill: #c0392b; } .disagrees { color: #c0392b; }
        </style></head><body>
        <h1>Clips and recordings paired by their sound</h1>
        <p>Each recording is a lane; each clip it heard is a box where the clip's sound lies in it (green: used,
        blue: another recording used, amber: not confirmed, red: its repair failed).</p>

        """
    }

    /// One group: its timeline, its table of matches, its files by status and its errors.
    private static func groupSection(_ group: SoundPairingReport.Group, index g: Int) -> String {
        var page =
            "<section id=\"group-\(g)\" data-folder=\"\(HTMLReport.escape(group.folderText))\"><h2>\(HTMLReport.escape(group.title))</h2>\n"
        let base = group.folderText.hasSuffix("/") ? group.folderText : group.folderText + "/"
        func short(_ path: String) -> String {
            HTMLReport.escape(path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path)
        }
        page += timeline(group, short: short)
        page += matchTable(group, short: short)
        for (status, heading) in SoundPairingText.groupHeadings {
            let files = group.files.filter { $0.status == status.status && $0.kind == status.kind }
            guard !files.isEmpty else { continue }
            page +=
                "<p class=\"files \(status.kind.rawValue) \(status.status.rawValue)\">\(heading): "
                + files.map { short($0.pathText) }.joined(separator: ", ") + "</p>\n"
        }
        for error in group.errors {
            page += "<p class=\"error\">\(short(error.pathText)): \(HTMLReport.escape(error.error))</p>\n"
        }
        return page + "</section>\n"
    }

    /// The group's recordings as lanes, each clip a box where its sound lies in the recording.
    private static func timeline(_ group: SoundPairingReport.Group, short: (String) -> String) -> String {
        let recordings = Array(Set(group.matches.map(\.recordingText))).sorted()
        let starts = group.matches.compactMap(\.recordingStartSeconds)
        let ends = group.matches.compactMap(\.recordingEndSeconds)
        let low = min(0, starts.min() ?? 0)
        let high = max(ends.max() ?? 1, low + 1)
        let (width, label, lane) = (960.0, 180.0, 30.0)
        func x(_ t: Double) -> Double { label + (t - low) / (high - low) * (width - label - 10) }
        var page =
            "<svg class=\"timeline\" width=\"\(Int(width))\" height=\"\(Int(Double(recordings.count) * lane + 24))\" viewBox=\"0 0 \(Int(width)) \(Int(Double(recordings.count) * lane + 24))\">\n"
        for (r, recording) in recordings.enumerated() {
            let y = Double(r) * lane + 4
            page +=
                "<g class=\"lane\" data-recording=\"\(HTMLReport.escape(recording))\"><text x=\"4\" y=\"\(y + 18)\">\(short(recording))</text>"
            page += "<line x1=\"\(x(0))\" x2=\"\(x(high))\" y1=\"\(y + 13)\" y2=\"\(y + 13)\" stroke=\"#bbb\"/>\n"
            for m in group.matches where m.recordingText == recording {
                guard let start = m.recordingStartSeconds, let end = m.recordingEndSeconds else { continue }
                let (x0, x1) = (x(start), x(end))
                let drift = m.content?.driftPPM.map { String(format: ", drift %+.2f ppm", $0) } ?? ""
                page +=
                    "<g class=\"clip \(m.status.rawValue)\" data-reference=\"\(HTMLReport.escape(m.referenceText))\" data-status=\"\(m.status.rawValue)\" data-start-seconds=\"\(start)\">"
                page +=
                    "<rect x=\"\(x0)\" y=\"\(y + 2)\" width=\"\(max(2, x1 - x0))\" height=\"22\" rx=\"3\"><title>\(short(m.referenceText)): \(clock(start)) - \(clock(end))\(drift), \(m.status.rawValue)</title></rect>"
                // The clip's file name where the box holds it (about 7 px a character).
                let name = (m.referenceText as NSString).lastPathComponent
                if x1 - x0 > Double(name.count * 7 + 8) {
                    page += "<text x=\"\(x0 + 4)\" y=\"\(y + 17)\">\(HTMLReport.escape(name))</text>"
                }
                page += "</g>\n"
            }
            page += "</g>\n"
        }
        return page + "</svg>\n"
    }

    /// The group's matches as a table: the numbers the timeline shows on hover, and the rest.
    private static func matchTable(_ group: SoundPairingReport.Group, short: (String) -> String) -> String {
        var page =
            "<table><tr><th>clip</th><th>recording</th><th>status</th><th>from</th><th>to</th><th>covers</th><th>drift ppm</th><th>dropouts</th><th>confidence</th><th>residual ms</th><th>timecode</th><th>output</th><th>note</th></tr>\n"
        for m in group.matches.sorted(by: {
            ($0.referenceText, $0.recordingText) < ($1.referenceText, $1.recordingText)
        }) {
            let c = m.content
            let timecode =
                m.timecodeAgrees.map { $0 ? "agrees" : "<span class=\"disagrees\">disagrees</span>" } ?? ""
            let drift: String = c?.driftPPM.map { String(format: "%+.2f", $0) } ?? ""
            let dropouts: String = c.map { String($0.dropouts.count) } ?? ""
            let confidence: String = c.map { String(format: "%.2f", $0.confidence) } ?? ""
            let residual: String = c?.residualMs.map { String(format: "%.3f", $0) } ?? ""
            let output: String = m.outputText.map(short) ?? ""
            var cells: [String] = [short(m.referenceText), short(m.recordingText), m.status.rawValue]
            cells += [
                clock(m.recordingStartSeconds), clock(m.recordingEndSeconds),
                String(format: "%.0f %%", m.coverage * 100),
            ]
            cells += [drift, dropouts, confidence, residual, timecode, output, HTMLReport.escape(m.note ?? "")]
            page += "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>\n"
        }
        return page + "</table>\n"
    }

    /// The clips left for a person: each, why, its places and what would decide (nothing when there are none).
    static func leftSection(_ left: [SoundPairingReport.LeftClip]) -> String {
        guard !left.isEmpty else { return "" }
        var page =
            "<section id=\"left\"><h2>Left for a person</h2><p>Nothing was cut from these clips: each place, and what would decide.</p>\n<table><tr><th>clip</th><th>why</th><th>places</th><th>would decide</th></tr>\n"
        for left in left {
            let places = left.places.map { place in
                var text = "\(HTMLReport.escape(place.recordingText)) at \(clock(place.recordingStartSeconds))"
                text += String(format: ", clarity %.1f", place.clarity)
                if let fit = place.fit { text += String(format: ", fit %.3f", fit) }
                if let agrees = place.timecodeAgrees {
                    text += agrees ? ", timecode agrees" : ", timecode disagrees"
                }
                return text
            }.joined(separator: "<br>")
            page +=
                "<tr class=\"left \(left.why.rawValue)\" data-clip=\"\(HTMLReport.escape(left.clipText))\"><td>\(HTMLReport.escape(left.clipText))</td><td title=\"\(HTMLReport.escape(SoundPairingText.why(left)))\">\(left.why.rawValue)</td><td>\(places)</td><td>\(HTMLReport.escape(left.wouldDecide))</td></tr>\n"
        }
        return page + "</table></section>\n"
    }

    /// Writes report.json, report.csv and report.html into `folder` (created if needed).
    public static func writeFolder(_ report: SoundPairingReport, to path: FilePath) throws {
        let folder = path.pathText
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let url = URL(fileURLWithPath: folder)
        try json(report).write(to: url.appendingPathComponent("report.json"), options: .atomic)
        try Data(csv(report).utf8).write(to: url.appendingPathComponent("report.csv"), options: .atomic)
        try Data(html(report).utf8).write(to: url.appendingPathComponent("report.html"), options: .atomic)
    }
}
