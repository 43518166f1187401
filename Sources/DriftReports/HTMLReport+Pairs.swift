import DriftCore
import DriftSchema
import Foundation

import struct SystemPackage.FilePath

extension HTMLReport {
    /// How much attention a pair needs, most first: 0 failed or unfinished, 1 refused or unreadable, 2 past a
    /// lip-sync limit, 3 warned, 4 repaired or to repair, 5 the rest.
    static func concern(_ row: PairReport) -> Int {
        if row.outcome == .failed || row.outcome == .unfinished { return 0 }
        if row.outcome == .refused || row.action == .refuse { return 1 }
        if !row.flags.isEmpty { return 2 }
        if !row.warnings.isEmpty { return 3 }
        if row.outcome == .repaired || row.action.repairs { return 4 }
        return 5
    }

    /// The pairs QA must look at (failed, refused, unreadable, past a limit, warned), worst first, as plain HTML.
    static func problemSection(_ report: ScanReport) -> String {
        let problems = report.pairs.filter { concern($0) <= 3 }
            .sorted { (concern($0), -abs($0.driftPPM ?? 0)) < (concern($1), -abs($1.driftPPM ?? 0)) }
        guard !problems.isEmpty else { return "" }
        let shown = problems.prefix(problemRowLimit)
        var html = "<section id=\"problems-section\"><h2>Problems (\(problems.count))</h2><p class=\"hint\">"
        html +=
            shown.count < problems.count
            ? "The first \(shown.count) of \(problems.count), worst first; all are in the table below, report.json and report.csv.</p>"
            : "Failed, refused, unreadable, past a lip-sync limit or with a warning, worst first.</p>"
        html += "<div class=\"scroll\"><table id=\"problems\" data-total=\"\(problems.count)\"><thead><tr>"
        for title in [
            "Recording", "Reference", "Device", "Take", "Drift ms", "ppm", "Sync", "Flags", "Cause", "By", "Plan",
            "Outcome", "Note",
        ] {
            html += "<th>\(title)</th>"
        }
        html += "</tr></thead><tbody>\n"
        for row in shown {
            html += "<tr class=\"\(concern(row) <= 1 ? "bad" : "warn")\">"
            html += cell(middle(short(row.recordingText), 40), title: row.recordingText)
            html += cell(middle(short(row.referenceText), 40), title: row.referenceText)
            html += cell(middle(row.device, 24), title: row.device)
            html += cell(middle(row.slate?.summary ?? "", 24), title: row.slate?.summary ?? "")
            html += numberCell(row.driftSeconds.map { $0 * 1000 }, "%+.2f")
            html += numberCell(row.driftPPM, "%+.1f")
            html += cell(row.sync ?? "")
            html += "<td>" + flags(row.flags) + "</td>"
            html += cell(row.cause.map { $0.rawValue + (row.causeDetail.map { ": \($0)" } ?? "") } ?? "")
            html += cell(measuredBy(row))
            html += cell(row.action.rawValue + (row.methodReason.map { " (\($0))" } ?? ""))
            html += cell(row.outcome?.rawValue ?? "")
            html += "<td class=\"wrap\">\(escape(note(row)))</td></tr>\n"
        }
        return html + "</tbody></table></div></section>\n"
    }

    /// Which measurement a row's figures come from, in a word: `sound` or `lengths`.
    static func measuredBy(_ row: PairReport) -> String {
        row.cause == nil ? "" : row.measuredBy == .content ? "sound" : "lengths"
    }

    static func flags(_ flags: [SyncFlag]) -> String {
        flags.map { "<span class=\"flag\">\($0 == .ituBT1359 ? "BT.1359" : "EBU R37")</span>" }.joined()
    }

    /// What a row says beyond its numbers: its error, warnings and what the sound said.
    static func note(_ row: PairReport) -> String {
        ([row.error].compactMap { $0 } + row.warnings.map { "⚠ " + $0 }
            + [ReportTable.contentNote(row)].compactMap { $0 })
            .joined(separator: "; ")
    }

    /// Every pair, in a table the page fills from data it carries gzip-compressed: 100 rows a page, sortable, with a
    /// filter. The data is unpacked after the page is shown, so a fleet of 100,000 pairs opens as fast as a small one.
    static func pairSection(_ report: ScanReport) -> String {
        guard !report.pairs.isEmpty else { return "" }
        let json = PairTableData(report.pairs).json()
        var html = "<section id=\"all-pairs\"><h2>All pairs (\(report.pairs.count))</h2>"
        guard let packed = Gzip.compress(json) else {
            // zlib failed (out of memory): say where the pairs are rather than leave the section out unexplained.
            return html
                + "<p class=\"hint\">The pair table could not be compressed into this page; every pair is in report.json and report.csv.</p></section>\n"
        }
        html +=
            "<div class=\"pager\"><input id=\"pairs-filter\" type=\"search\" placeholder=\"Filter: path, device, cause, note…\">"
        html +=
            "<button id=\"pairs-prev\">‹</button><span id=\"pairs-info\" class=\"hint\">unpacking…</span><button id=\"pairs-next\">›</button></div>"
        html += "<div class=\"scroll\"><table id=\"pairs\" data-total=\"\(report.pairs.count)\"><thead><tr>"
        for (index, title) in PairTableData.titles.enumerated() { html += "<th data-col=\"\(index)\">\(title)</th>" }
        html += "</tr></thead><tbody></tbody></table></div>"
        html +=
            "<script type=\"application/gzip+base64\" id=\"pair-data\">\(Data(packed).base64EncodedString())</script></section>\n"
        return html
    }

    /// The paged pair table: unpacks the data (`DecompressionStream`), sorts, filters and shows one page at a time.
    static let script = """
        (function () {
          var holder = document.getElementById('pair-data');
          if (!holder) return;
          var table = document.getElementById('pairs'), body = table.tBodies[0], info = document.getElementById('pairs-info');
          var filter = document.getElementById('pairs-filter'), size = 100, page = 0, rows = [], view = [], sortCol = -1, dir = 1;
          var FLAGS = ['BT.1359', 'EBU R37'];
          function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; }); }
          function fix(v, d, sign) { if (v === null || v === undefined) return ''; var t = v.toFixed(d); return sign && v >= 0 ? '+' + t : t; }
          function cut(s, n) { return s.length <= n ? s : s.slice(0, (n - 1) >> 1) + '…' + s.slice(s.length - (n - 1 - ((n - 1) >> 1))); }
          // As PairReport.syncPhrase words it.
          function syncPhrase(cause, start, end) {
            if (cause === 'in-sync' || cause === 'early-stop' || cause === 'late-stop') return 'in sync';
            if (end === null) return cause === 'lengths-differ' ? 'the lengths cannot tell' : '';
            function amount(ms) { return Math.abs(ms).toFixed(Math.abs(ms) >= 10 ? 1 : 2); }
            function way(ms) { return ms < 0 ? 'leads' : 'lags'; }
            if (start === null || Math.abs(start) < 0.05) return 'sound ' + way(end) + ' by ' + amount(end) + ' ms at the end';
            return 'sound ' + way(start) + ' by ' + amount(start) + ' ms at the start, '
              + (way(start) === way(end) ? '' : way(end) + ' by ') + amount(end) + ' ms at the end';
          }
          function decode(d) {
            return d.rows.map(function (r) {
              var folder = d.folders[r[0]], path = folder + '/' + r[1], stem = r[1].replace(/\\.[^.]*$/, '');
              var reference = r[2].charAt(0) === '.' ? folder + '/' + stem + r[2] : r[2];
              var cause = d.causes[r[9]] || '', sync = syncPhrase(cause, r[16], r[7]);
              var flags = []; for (var i = 0; i < FLAGS.length; i++) if (r[8] & (1 << i)) flags.push(FLAGS[i]);
              var by = cause === '' ? '' : r[17] ? 'sound' : 'lengths';
              var shown = [path, d.devices[r[3]], d.takes[r[15]] || '', r[4], r[5], r[6], sync, flags.join(', '), cause, by, d.plans[r[10]], r[11], d.outcomes[r[12]] || '', r[13] || ''];
              return {cells: shown, flags: flags, reference: reference, concern: r[14], text: (path + ' ' + shown[1] + ' ' + shown[2] + ' ' + cause + ' ' + shown[13]).toLowerCase()};
            });
          }
          function show() {
            var pages = Math.max(1, Math.ceil(view.length / size)); page = Math.min(Math.max(page, 0), pages - 1);
            var html = '';
            view.slice(page * size, page * size + size).forEach(function (row) {
              var c = row.cells;
              html += '<tr class="' + (row.concern <= 1 ? 'bad' : row.concern <= 3 ? 'warn' : '') + '">'
                + '<td title="' + esc(c[0] + '\\nreference: ' + row.reference) + '">' + esc(cut(c[0], 48)) + '</td>'
                + '<td title="' + esc(c[1]) + '">' + esc(cut(c[1], 24)) + '</td>'
                + '<td title="' + esc(c[2]) + '">' + esc(cut(c[2], 24)) + '</td>'
                + '<td class="num">' + fix(c[3], 3) + '</td><td class="num">' + fix(c[4], 2, true) + '</td><td class="num">' + fix(c[5], 1, true) + '</td>'
                + '<td>' + esc(c[6]) + '</td><td>' + row.flags.map(function (f) { return '<span class="flag">' + esc(f) + '</span>'; }).join('') + '</td>'
                + '<td>' + esc(c[8]) + '</td><td>' + esc(c[9]) + '</td><td>' + esc(c[10]) + '</td><td class="num">' + (c[11] === null ? '' : c[11]) + '</td>'
                + '<td>' + esc(c[12]) + '</td><td class="wrap">' + esc(c[13]) + '</td></tr>';
            });
            body.innerHTML = html;
            info.textContent = view.length === 0 ? 'no pair matches' : 'pairs ' + (page * size + 1) + '–' + Math.min(view.length, page * size + size)
              + ' of ' + view.length + (view.length < rows.length ? ' (filtered from ' + rows.length + ')' : '') + ', problems first';
          }
          function apply() {
            var q = filter.value.trim().toLowerCase();
            view = q ? rows.filter(function (r) { return r.text.indexOf(q) >= 0; }) : rows.slice();
            if (sortCol >= 0) {
              view.sort(function (a, b) {
                var x = a.cells[sortCol], y = b.cells[sortCol];
                if (x === y) return 0; if (x === null || x === '') return 1; if (y === null || y === '') return -1;
                return (typeof x === 'number' ? x - y : String(x).localeCompare(String(y))) * dir;
              });
            }
            show();
          }
          function load() {
            if (!window.DecompressionStream) { info.textContent = 'this browser cannot unpack the table (no DecompressionStream): open report.csv'; return; }
            var text = atob(holder.textContent.trim()), bytes = new Uint8Array(text.length);
            for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
            new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then(function (json) {
              rows = decode(JSON.parse(json));
              rows.sort(function (a, b) { return a.concern - b.concern || Math.abs(b.cells[5] || 0) - Math.abs(a.cells[5] || 0); });
              apply();
            }, function (error) { info.textContent = 'the table could not be unpacked (' + error + '): open report.csv'; });
          }
          table.querySelectorAll('th[data-col]').forEach(function (th) {
            th.addEventListener('click', function () {
              var col = +th.dataset.col; dir = sortCol === col ? -dir : 1; sortCol = col; page = 0; apply();
            });
          });
          filter.addEventListener('input', function () { page = 0; apply(); });
          document.getElementById('pairs-prev').addEventListener('click', function () { page--; show(); });
          document.getElementById('pairs-next').addEventListener('click', function () { page++; show(); });
          if (document.readyState === 'complete') setTimeout(load, 0); else window.addEventListener('load', function () { setTimeout(load, 0); });
        })();
        """
}

/// The pair table as the page carries it: columns of small values, folders, devices and words stored once.
struct PairTableData {
    static let titles = [
        "Recording", "Device", "Take", "Duration s", "Drift ms", "ppm", "Sync", "Flags", "Cause", "By", "Plan",
        "Target frames", "Outcome", "Note",
    ]
    private var folders: [String] = []
    private var devices: [String] = []
    private var causes: [String] = [""]
    private var plans: [String] = []
    private var outcomes: [String] = [""]
    /// The recorders' slates as one line each ("Sc 12A Tk 3, tape DAY04, tracks BOOM, LAV 1"); 0 is none.
    private var takes: [String] = [""]
    private var rows: [String] = []

    init(_ pairs: [PairReport]) {
        var folderIndex: [String: Int] = [:]
        var deviceIndex: [String: Int] = [:]
        var causeIndex: [String: Int] = ["": 0]
        var planIndex: [String: Int] = [:]
        var outcomeIndex: [String: Int] = ["": 0]
        var takeIndex: [String: Int] = ["": 0]
        func index(_ value: String, _ table: inout [String: Int], _ list: inout [String]) -> Int {
            if let found = table[value] { return found }
            table[value] = list.count
            list.append(value)
            return list.count - 1
        }
        for pair in pairs {
            let folder = (pair.recordingText as NSString).deletingLastPathComponent
            let name = (pair.recordingText as NSString).lastPathComponent
            let stem = (name as NSString).deletingPathExtension
            // A reference beside the recording with the same stem is stored as its extension alone.
            let referenceExtension = "." + (FilePath(pair.referenceText).extension ?? "")
            let reference =
                pair.referenceText == folder + "/" + stem + referenceExtension && referenceExtension != "."
                ? referenceExtension : pair.referenceText
            var mask = 0
            if pair.flags.contains(.ituBT1359) { mask |= 1 }
            if pair.flags.contains(.ebuR37) { mask |= 2 }
            let plan =
                pair.action.rawValue
                + (pair.method.map { $0.rawValue == pair.action.rawValue ? "" : " (\($0.rawValue))" } ?? "")
            let values: [String] = [
                "\(index(folder, &folderIndex, &folders))", Self.quote(name), Self.quote(reference),
                "\(index(pair.device, &deviceIndex, &devices))", Self.number(pair.recordingSeconds, 3),
                Self.number(pair.driftSeconds.map { $0 * 1000 }, 2), Self.number(pair.driftPPM, 1),
                Self.number(pair.endOffsetMs, 2),
                "\(mask)", "\(index(pair.cause?.rawValue ?? "", &causeIndex, &causes))",
                "\(index(plan, &planIndex, &plans))",
                pair.targetFrames.map(String.init) ?? "null",
                "\(index(pair.outcome?.rawValue ?? "", &outcomeIndex, &outcomes))",
                {
                    let text = HTMLReport.note(pair)
                    return text.isEmpty ? "0" : Self.quote(text)
                }(),
                "\(HTMLReport.concern(pair))",
                "\(index(pair.slate?.summary ?? "", &takeIndex, &takes))",
                Self.number(pair.startOffsetMs, 2), pair.measuredBy == .content ? "1" : "0",
            ]
            rows.append("[" + values.joined(separator: ",") + "]")
        }
    }

    /// `{"folders":[...],"devices":[...],"causes":[...],"plans":[...],"outcomes":[...],"takes":[...],"rows":[[...],...]}`.
    func json() -> [UInt8] {
        func list(_ values: [String]) -> String { "[" + values.map(Self.quote).joined(separator: ",") + "]" }
        let text =
            "{\"folders\":\(list(folders)),\"devices\":\(list(devices)),\"causes\":\(list(causes)),\"plans\":\(list(plans)),"
            + "\"outcomes\":\(list(outcomes)),\"takes\":\(list(takes)),\"rows\":[\(rows.joined(separator: ",\n"))]}"
        return Array(text.utf8)
    }

    static func number(_ value: Double?, _ decimals: Int) -> String {
        guard let value, value.isFinite else { return "null" }
        let text = String(format: "%.\(decimals)f", value)
        // "-0.00" and "12.30" are valid JSON, but shorter without the trailing zeros.
        guard text.contains(".") else { return text }
        var trimmed = Substring(text)
        while trimmed.hasSuffix("0") { trimmed = trimmed.dropLast() }
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        return trimmed == "-0" ? "0" : String(trimmed)
    }

    /// A JSON string literal.
    static func quote(_ text: String) -> String { TextEscaping.jsonString(text) }
}
