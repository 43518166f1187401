import DriftCore
import DriftSchema
import DriftSupport
import Foundation

public import struct SystemPackage.FilePath

/// Writes a drift report in the formats `driftfix scan` offers.
public enum ReportWriter {
    /// Stable, pretty JSON with sorted keys: `{version, generated, roots, summary, devices, pairs, unpaired, errors,
    /// skipped, history?, disruptions?}`. The fleet's `devices` are filled in from the pairs and the history.
    public static func json(_ report: ScanReport) throws -> Data {
        var data = Data()
        try writeJSON(report) { data.append($0) }
        return data
    }

    /// The JSON of `json(_:)`, handed to `sink` in pieces: one pair is encoded at a time, so a report of 100,000
    /// pairs never exists whole in memory (the same bytes as encoding the whole report).
    public static func writeJSON(_ report: ScanReport, to sink: (Data) throws -> Void) throws {
        var report = report
        report.devices = report.devices ?? report.deviceSummaries()
        var json = PrettyJSON()
        func nested<T: Encodable>(_ value: T, depth: Int) throws -> Data {
            var out: [UInt8] = []
            try json.write(value, depth: depth, into: &out)
            return Data(out)
        }
        // Every member but the pairs is small: encoded whole. nil stands for the pairs, streamed in their place.
        var members: [(key: String, value: Data?)] = [("pairs", nil)]
        func member<T: Encodable>(_ key: String, _ value: T?) throws {
            guard let value else { return }
            members.append((key, try nested(value, depth: 2)))
        }
        try member("version", report.version)
        try member("generated", report.generated)
        try member("roots", report.rootTexts)
        try member("summary", report.summary)
        try member("devices", report.devices)
        try member("unpaired", report.unpaired)
        try member("errors", report.errors)
        try member("skipped", report.skipped)
        try member("history", report.history)
        try member("disruptions", report.disruptions)
        try member("leftForAPerson", report.leftForAPerson)
        try sink(Data("{\n".utf8))
        for (index, entry) in members.sorted(by: { $0.key < $1.key }).enumerated() {
            try sink(Data(((index > 0 ? ",\n" : "") + "  \"\(entry.key)\" : ").utf8))
            if let value = entry.value {
                try sink(value)
                continue
            }
            guard !report.pairs.isEmpty else {
                try sink(Data("[\n\n  ]".utf8))
                continue
            }
            try sink(Data("[\n".utf8))
            try writeRows(report.pairs) { try sink(Data($0)) }
            try sink(Data("  ]".utf8))
        }
        try sink(Data("\n}".utf8))
    }

    /// The rows of `pairs`, as the pairs array of the report shows them, handed to `sink` in blocks of bytes: each
    /// block of rows is written on a core of its own (every row stands alone), a core's worth at a time, so the
    /// bytes in flight stay a few megabytes however many rows there are. Bytes, not Data: appending to Data a piece
    /// at a time cost more than encoding the rows.
    static func writeRows(_ pairs: [PairReport], to sink: ([UInt8]) throws -> Void) throws {
        let rowsPerBlock = 1_024
        let blocks = (pairs.count + rowsPerBlock - 1) / rowsPerBlock
        let inFlight = Cores.available  // this process's cores (taskset, a cgroup's cpuset), not the machine's
        for first in stride(from: 0, to: blocks, by: inFlight) {
            let batch = first..<min(blocks, first + inFlight)
            let written = [Result<[UInt8], any Error>](unsafeUninitializedCapacity: batch.count) { buffer, count in
                guard let base = buffer.baseAddress else { return }
                nonisolated(unsafe) let results = base
                DispatchQueue.concurrentPerform(iterations: batch.count) { offset in
                    let rows =
                        (batch.lowerBound + offset)
                        * rowsPerBlock..<min(pairs.count, (batch.lowerBound + offset + 1) * rowsPerBlock)
                    (results + offset).initialize(to: Result { try block(pairs, rows) })
                }
                count = batch.count
            }
            for result in written { try sink(try result.get()) }
        }
    }

    private static func block(_ pairs: [PairReport], _ rows: Range<Int>) throws -> [UInt8] {
        var json = PrettyJSON()
        var out: [UInt8] = []
        out.reserveCapacity(rows.count * 1_600)
        for index in rows {
            out.append(contentsOf: "    ".utf8)
            try json.write(pairs[index], depth: 4, into: &out)
            out.append(contentsOf: (index == pairs.count - 1 ? "\n" : ",\n").utf8)
        }
        return out
    }

    /// The columns of devices.csv, in order.
    public static let deviceColumns = [
        "device", "recordings", "measured", "audioSeconds", "medianPPM", "worstPPM", "spreadPPM",
        "pastLimit", "refused", "failed", "trend", "alert", "measuredBySound", "medianStartOffsetMs",
    ]

    /// One line per device, worst first; `trend` is the median drift per run, oldest first, joined with `;`.
    public static func deviceCSV(_ devices: [DeviceSummary]) -> String {
        var lines = [deviceColumns.joined(separator: ",")]
        for device in devices {
            let values: [String?] = [
                device.device, String(device.recordings), String(device.measured), number(device.audioSeconds),
                device.medianPPM.map(number), device.worstPPM.map(number), device.spreadPPM.map(number),
                String(device.pastLimit), String(device.refused), String(device.failed),
                device.trend.map { $0.map(number) ?? "" }.joined(separator: ";"), device.alert,
                String(device.measuredBySound), device.medianStartOffsetMs.map(number),
            ]
            lines.append(values.map { quote($0 ?? "") }.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The CSV columns, in order: the JSON row keys (the `content` object flattened into `content*` columns, its
    /// curves left to the JSON), the columns added since (so positional readers keep theirs), then `kind`.
    public static let csvColumns =
        PairReport.columnNames.filter {
            $0 != "content" && $0 != "slate" && $0 != "lengths" && !addedColumns.contains($0)
                && !placeColumns.contains($0) && !figureColumns.contains($0)
        } + [
            "contentModel", "contentOffsetMs", "contentOffsetMsError", "contentDriftPPM", "contentDriftPPMError",
            "contentConfidence", "contentDropouts", "contentMissingMs", "headersAgree", "disagreement", "residualMs",
        ] + addedColumns + slateColumns + clockColumns + placeColumns + figureColumns + lengthColumns + [
            "status", "kind",
        ]
    static let addedColumns = ["pairedBy", "recordingStartSeconds", "recordingEndSeconds", "failure"]
    /// The `slate` object flattened (its tracks joined with `;`).
    static let slateColumns = ["project", "scene", "take", "tape", "tracks"]
    /// The sound's clock where it wandered or stepped (`content.clock`): its drift at the first and last measured
    /// moment, its extremes, and each rate step as `seconds:fromPPM>toPPM`, joined with `;`.
    static let clockColumns = ["clockStartPPM", "clockEndPPM", "clockMinPPM", "clockMaxPPM", "rateSteps"]
    /// A sound-paired row's place among its clip's places (`soundPlace`); then `status`: an unpaired file's one
    /// status on a sound night, a skipped path's kind (empty on pair rows).
    static let placeColumns = ["place", "repeats", "fit", "decidedBy"]
    /// Added in report version 3: the sync at the start and at its worst (from the measurement `measuredBy` names),
    /// and the two lengths' difference and ratio (`lengths`; the lengths themselves are `recordingSeconds` and
    /// `referenceSeconds`).
    static let figureColumns = ["startOffsetMs", "worstOffsetMs", "worstAtSeconds"]
    static let lengthColumns = ["lengthDifferenceSeconds", "lengthRatioPPM"]

    /// One header line, then one line per pair (`kind` = `pair`), then one per unpaired file (`unpaired`: its path
    /// in `recording` or `reference` by its kind, the reason in `error`), per scan error (`error`: the path in
    /// `folder`) and per skipped path (`skipped`: the path in `folder`, the reason in `error`), so that a QA team
    /// reading only the CSV sees everything the table and the JSON show. RFC 4180 quoting; lists joined with `;`.
    public static func csv(_ report: ScanReport) -> String {
        var text = ""
        writeCSV(report) { text += $0 }
        return text
    }

    /// The CSV of `csv(_:)`, handed to `sink` a few thousand lines at a time.
    public static func writeCSV(_ report: ScanReport, to sink: (String) throws -> Void) rethrows {
        var lines = [csvColumns.joined(separator: ",")]
        func flush(_ force: Bool = false) throws {
            guard force || lines.count >= 4096 else { return }
            try sink(lines.joined(separator: "\n") + "\n")
            lines.removeAll(keepingCapacity: true)
        }
        for row in report.pairs {
            let clock = row.content?.clock
            let lengths = row.lengths
            let values: [String?] = [
                row.recordingText, row.referenceText, row.folderText, row.sampleRate.map(String.init),
                row.channels.map(String.init),
                row.format, row.recordingFrames.map(String.init), row.recordingSeconds.map(number),
                row.referenceSeconds.map(number), row.referenceDuration, row.referenceSource,
                row.driftSeconds.map(number),
                row.driftPPM.map(number), row.endOffsetMs.map(number), row.sync,
                row.flags.map(\.rawValue).joined(separator: ";"), row.cause?.rawValue, row.causeDetail,
                row.action.rawValue,
                row.method?.rawValue, row.methodReason, row.targetFrames.map(String.init), row.error,
                row.outcome?.rawValue, row.outputText, row.outputFrames.map(String.init), row.checksum,
                row.attempts.map(String.init), row.worker, row.processingSeconds.map(number),
                row.warnings.joined(separator: ";"), row.measuredBy.rawValue,
                row.operations.map(\.description).joined(separator: ";"),
                row.contentNote, row.device, row.deviceSource,
                row.content?.model.rawValue, row.content?.offsetMs.map(number), row.content?.offsetMsError.map(number),
                row.content?.driftPPM.map(number), row.content?.driftPPMError.map(number),
                row.content.map { number($0.confidence) },
                row.content.map { String($0.dropouts.count) },
                row.content.map { number($0.dropouts.reduce(0) { $0 + $1.missingMs }) },
                row.content?.headersAgree.map { $0 ? "true" : "false" }, row.content?.disagreement,
                row.content?.residualMs.map(number),
                row.pairedBy, row.recordingStartSeconds.map(number), row.recordingEndSeconds.map(number),
                row.failure?.rawValue, row.slate?.project, row.slate?.scene, row.slate?.take, row.slate?.tape,
                row.slate.map { $0.tracks.joined(separator: ";") },
                clock.map { number($0.startPPM) }, clock.map { number($0.endPPM) }, clock.map { number($0.minPPM) },
                clock.map { number($0.maxPPM) },
                clock.map {
                    $0.rateSteps.map { "\(number($0.atSeconds)):\(number($0.fromPPM))>\(number($0.toPPM))" }
                        .joined(separator: ";")
                },
                row.soundPlace?.place.rawValue, row.soundPlace?.repeats.map { $0 ? "true" : "false" },
                row.soundPlace?.fit.map(number), row.soundPlace?.decidedBy,
                row.startOffsetMs.map(number), row.worstOffsetMs.map(number), row.worstAtSeconds.map(number),
                lengths.map { number($0.differenceSeconds) }, lengths.map { number($0.ratioPPM) }, nil,
                "pair",
            ]
            lines.append(values.map { quote($0 ?? "") }.joined(separator: ","))
            try flush()
        }
        func line(_ fields: [String: String]) -> String {
            csvColumns.map { quote(fields[$0] ?? "") }.joined(separator: ",")
        }
        for file in report.unpaired {
            let key = file.kind == .recording ? "recording" : "reference"
            lines.append(
                line([
                    key: file.pathText, "folder": (file.pathText as NSString).deletingLastPathComponent,
                    "error": file.reason, "kind": "unpaired", "status": file.status?.rawValue ?? "",
                ]))
        }
        for issue in report.errors {
            lines.append(line(["folder": issue.pathText, "error": issue.error, "kind": "error"]))
        }
        for skipped in report.skipped {
            lines.append(
                line([
                    "folder": skipped.pathText, "error": skipped.reason, "status": skipped.kind.rawValue,
                    "kind": "skipped",
                ]))
        }
        if !lines.isEmpty { try flush(true) }
    }

    /// Writes report.json, report.csv, devices.csv and report.html into `folder` (created if needed), each atomically.
    public static func writeFolder(_ report: ScanReport, to path: FilePath) throws {
        let folder = path.pathText
        var report = report
        report.devices = report.devices ?? report.deviceSummaries()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try ReportFile.write(folder + "/report.json") { file in try writeJSON(report) { try file.write($0) } }
        try ReportFile.write(folder + "/report.csv") { file in try writeCSV(report) { try file.write(Data($0.utf8)) } }
        try Data(deviceCSV(report.devices ?? []).utf8).write(
            to: URL(fileURLWithPath: folder + "/devices.csv"), options: .atomic)
        try Data(HTMLReport.render(report).utf8).write(
            to: URL(fileURLWithPath: folder + "/report.html"), options: .atomic)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// A report file written in pieces to a temporary file beside it, then renamed over it: a reader never sees half a
/// report, and a failure leaves the old one.
final class ReportFile {
    private let handle: FileHandle

    private init(handle: FileHandle) { self.handle = handle }

    func write(_ data: Data) throws { try handle.write(contentsOf: data) }

    static func write(_ path: String, _ body: (ReportFile) throws -> Void) throws {
        let temporary =
            (path as NSString).deletingLastPathComponent + "/." + (path as NSString).lastPathComponent
            + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary)
        else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary])
        }
        do {
            try body(ReportFile(handle: handle))
            try handle.close()
            guard PathText.withCStrings(temporary, path, { rename($0, $1) }) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        } catch {
            try? handle.close()
            _ = PathText.withCString(temporary, { unlink($0) })
            throw error
        }
    }
}
