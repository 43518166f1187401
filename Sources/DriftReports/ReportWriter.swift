import DriftCore
import DriftSchema
import Foundation

/// Writes a drift report in the formats `driftfix scan` offers.
public enum ReportWriter {
    /// Stable, pretty JSON with sorted keys: `{version, generated, roots, summary, pairs, unpaired, errors}`.
    public static func json(_ report: ScanReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(report)
    }

    /// The CSV columns, in order: the JSON row keys (the `content` object flattened into `content*` columns, its
    /// curves left to the JSON), then `kind`.
    public static let csvColumns = PairReport.columnNames.filter { $0 != "content" } + [
        "contentModel", "contentOffsetMs", "contentOffsetMsError", "contentDriftPPM", "contentDriftPPMError",
        "contentConfidence", "contentDropouts", "contentMissingMs", "headersAgree", "disagreement", "residualMs",
    ] + ["kind"]

    /// One header line, then one line per pair (`kind` = `pair`), then one per unpaired file (`unpaired`: its path
    /// in `recording` or `reference` by its kind, the reason in `error`), per scan error (`error`: the path in
    /// `folder`) and per skipped path (`skipped`: the path in `folder`, the reason in `error`), so that a QA team
    /// reading only the CSV sees everything the table and the JSON show. RFC 4180 quoting; lists joined with `;`.
    public static func csv(_ report: ScanReport) -> String {
        var lines = [csvColumns.joined(separator: ",")]
        for row in report.pairs {
            let values: [String?] = [
                row.recording, row.reference, row.folder, row.device, row.deviceSource, row.sampleRate.map(String.init), row.channels.map(String.init),
                row.format, row.recordingFrames.map(String.init), row.recordingSeconds.map(number),
                row.referenceSeconds.map(number), row.referenceDuration, row.referenceSource, row.driftSeconds.map(number),
                row.driftPPM.map(number), row.endOffsetMs.map(number), row.sync,
                row.flags.map(\.rawValue).joined(separator: ";"), row.cause?.rawValue, row.causeDetail, row.action.rawValue,
                row.method?.rawValue, row.methodReason, row.targetFrames.map(String.init), row.error,
                row.outcome?.rawValue, row.output, row.outputFrames.map(String.init), row.checksum,
                row.attempts.map(String.init), row.worker, row.processingSeconds.map(number),
                row.warnings.joined(separator: ";"), row.measuredBy.rawValue, row.operations.joined(separator: ";"),
                row.contentNote,
                row.content?.model.rawValue, row.content?.offsetMs.map(number), row.content?.offsetMsError.map(number),
                row.content?.driftPPM.map(number), row.content?.driftPPMError.map(number), row.content.map { number($0.confidence) },
                row.content.map { String($0.dropouts.count) },
                row.content.map { number($0.dropouts.reduce(0) { $0 + $1.missingMs }) },
                row.content?.headersAgree.map { $0 ? "true" : "false" }, row.content?.disagreement,
                row.content?.residualMs.map(number), "pair",
            ]
            lines.append(values.map { quote($0 ?? "") }.joined(separator: ","))
        }
        func line(_ fields: [String: String]) -> String {
            csvColumns.map { quote(fields[$0] ?? "") }.joined(separator: ",")
        }
        for file in report.unpaired {
            let key = file.kind == .recording ? "recording" : "reference"
            lines.append(line([key: file.path, "folder": (file.path as NSString).deletingLastPathComponent,
                               "error": file.reason, "kind": "unpaired"]))
        }
        for issue in report.errors { lines.append(line(["folder": issue.path, "error": issue.error, "kind": "error"])) }
        for skipped in report.skipped { lines.append(line(["folder": skipped.path, "error": skipped.reason, "kind": "skipped"])) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes report.json, report.csv and report.html into `folder` (created if needed), each atomically.
    public static func writeFolder(_ report: ScanReport, to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try json(report).write(to: URL(fileURLWithPath: folder + "/report.json"), options: .atomic)
        try Data(csv(report).utf8).write(to: URL(fileURLWithPath: folder + "/report.csv"), options: .atomic)
        try Data(HTMLReport.render(report).utf8).write(to: URL(fileURLWithPath: folder + "/report.html"), options: .atomic)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
