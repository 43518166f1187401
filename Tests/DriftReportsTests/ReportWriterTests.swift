import DriftCore
import DriftSchema
import Foundation
import Testing

@testable import DriftReports

@Suite("Report writers")
struct ReportWriterTests {
    static let measured = PairReport(
        recording: "/m/cam,1/take \"01\".wav", reference: "/m/cam,1/take 01.mov", folder: "/m/cam,1",
        sampleRate: 48_000,
        channels: 2, format: "WAV 24-bit", recordingFrames: 2_879_623, referenceSource: "edit list",
        analysis: DriftAnalysis(
            recordingFrames: 2_879_623, sampleRate: 48_000, referenceSeconds: Rational(60, 1), recordingPath: "/m/x.wav"
        ))
    static let broken = PairReport(
        recording: "/m/b.wav", reference: "/m/b.mov", folder: "/m", error: "reference: truncated: moov")
    static let report = ScanReport(
        generated: "2026-11-22T00:00:00Z", roots: ["/m"], pairs: [measured, broken],
        unpaired: [UnpairedFile(path: "/m/c.wav", kind: .recording, reason: "no reference")],
        errors: [ScanIssue(path: "/m/locked", error: "unreadable folder: Permission denied")])

    @Test("JSON rows carry every column, null where unknown")
    func json() throws {
        let data = try ReportWriter.json(ReportWriterTests.report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let pairs = try #require(object["pairs"] as? [[String: Any]])
        #expect(pairs.count == 2)
        for row in pairs { #expect(Set(row.keys) == Set(PairReport.columnNames)) }
        #expect(pairs[0]["error"] is NSNull)
        #expect(pairs[0]["action"] as? String == "resample")
        #expect(pairs[0]["targetFrames"] as? Int == 2_880_000)
        #expect(pairs[1]["driftPPM"] is NSNull)
        #expect(pairs[1]["error"] as? String == "reference: truncated: moov")
        #expect((object["unpaired"] as? [Any])?.count == 1)
        #expect((object["errors"] as? [Any])?.count == 1)
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["needRepair"] as? Int == 1 && summary["errors"] as? Int == 2)
    }

    @Test(
        "the JSON streamed pair by pair is byte for byte what encoding the whole report gives",
        arguments: [true, false])
    func streamedJSON(withHistory: Bool) throws {
        var report = ReportWriterTests.report
        if withHistory {
            report.history = DriftHistory(
                runs: [.init(id: 1, started: "2026-11-22T00:00:00Z", status: "complete")],
                rule: AlertRule(driftPPM: 20, spreadPPM: 10),
                devices: [
                    .init(
                        name: "cam,1", ppm: [-130.9], files: [1], spreadPPM: [0], worstPPM: [-130.9],
                        rule: AlertRule(driftPPM: 20, spreadPPM: 10))
                ], files: [])
            report.disruptions = RunDisruptions(workersLost: 1)
        }
        let streamed = try ReportWriter.json(report)
        report.devices = report.deviceSummaries()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let whole = try encoder.encode(report)
        #expect(
            streamed == whole,
            "\(String(decoding: streamed, as: UTF8.self))\n---\n\(String(decoding: whole, as: UTF8.self))")
        var empty = ScanReport(generated: "x", roots: [String](), pairs: [], unpaired: [], errors: [])
        let streamedEmpty = try ReportWriter.json(empty)
        empty.devices = []
        #expect(streamedEmpty == (try encoder.encode(empty)))
    }

    @Test("thousands of rows, written in blocks on every core, come out in order, byte for byte as one encoding")
    func manyRows() throws {
        var report = ReportWriterTests.report
        let template = report.pairs
        report.pairs = (0..<5_000).map { index in
            var pair = template[index % template.count]
            pair.recordingText = "/media/cam\(index % 7)/take\(index).wav"
            pair.driftPPM = pair.driftPPM.map { $0 + Double(index) / 1_000 }
            return pair
        }
        let streamed = try ReportWriter.json(report)
        report.devices = report.deviceSummaries()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        #expect(streamed == (try encoder.encode(report)))
    }

    @Test("CSV quotes commas and quotes, one line per pair, then unpaired files and errors as rows of their own kind")
    func csv() {
        let lines = ReportWriter.csv(ReportWriterTests.report).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 6)  // header, two pairs, one unpaired file, one scan error, final newline
        #expect(lines[0] == Substring(ReportWriter.csvColumns.joined(separator: ",")))
        // Every JSON column but the content, slate and lengths objects, which are flattened.
        #expect(Set(PairReport.columnNames).subtracting(ReportWriter.csvColumns) == ["content", "slate", "lengths"])
        #expect(Set(ReportWriter.csvColumns).subtracting(PairReport.columnNames).contains("status"))
        #expect(
            ReportWriter.csvColumns.suffix(21) == [
                "project", "scene", "take", "tape", "tracks", "clockStartPPM", "clockEndPPM", "clockMinPPM",
                "clockMaxPPM", "rateSteps", "place", "repeats", "fit", "decidedBy", "startOffsetMs", "worstOffsetMs",
                "worstAtSeconds", "lengthDifferenceSeconds", "lengthRatioPPM", "status", "kind",
            ])
        #expect(lines[1].hasPrefix("\"/m/cam,1/take \"\"01\"\".wav\",\"/m/cam,1/take 01.mov\",\"/m/cam,1\",48000,2,"))
        #expect(lines[1].hasSuffix(",pair") && lines[2].hasSuffix(",pair"))
        let width = ReportWriter.csvColumns.count
        for line in lines[1...4] {
            #expect(line.filter { $0 == "," }.count >= width - 1, "every row has every column: \(line)")
        }
        // The unpaired recording: its path under `recording`, the reason under `error`.
        let unpaired = lines[3].split(separator: ",", omittingEmptySubsequences: false)
        #expect(unpaired.count == width && unpaired[0] == "/m/c.wav" && unpaired[2] == "/m")
        #expect(
            unpaired[ReportWriter.csvColumns.firstIndex(of: "error")!] == "no reference" && unpaired.last == "unpaired")
        let error = lines[4].split(separator: ",", omittingEmptySubsequences: false)
        #expect(error.count == width && error[2] == "/m/locked" && error.last == "error")
        #expect(error[ReportWriter.csvColumns.firstIndex(of: "error")!] == "unreadable folder: Permission denied")
    }

    @Test(
        "the table: PLAN says refuse where JSON does, errors are never cut, newlines in names are escaped, wide characters align"
    )
    func table() {
        var odd = ReportWriterTests.measured
        odd.recording = "/m/cam,1/line\nbreak.wav"
        var wide = ReportWriterTests.measured
        wide.recording = "/m/cam,1/録音🎤.wav"
        let long = PairReport(
            recording: "/m/b.wav", reference: "/m/b.mov", folder: "/m",
            error: "reference: " + String(repeating: "a very long explanation ", count: 8) + "ends here")
        let report = ScanReport(
            generated: "", roots: ["/m"], pairs: [odd, wide, long, ReportWriterTests.broken],
            unpaired: [], errors: [], skipped: [SkippedPath(path: "/m/alias", reason: "symbolic link to /m/real")])
        let lines = ReportTable.render(report, relativeTo: "/m").split(separator: "\n").map(String.init)
        // Header, 4 rows, skipped, summary (the blank line is split away).
        #expect(lines.count == 5 + 1 + 1, "\(lines)")
        #expect(lines[1].hasPrefix("cam,1/line\\nbreak.wav"), "\(lines[1])")
        #expect(
            lines[3].hasSuffix("ends here") && lines[3].contains("reference: a very long"), "never cut: \(lines[3])")
        for line in lines[3...4] {
            #expect(line.split(separator: " ", omittingEmptySubsequences: true)[1...6].contains("refuse"), "\(line)")
            #expect(!line.contains(" error "), "PLAN is the action: \(line)")
        }
        // Columns line up by display width: "PPM" starts at the same column on every row.
        func column(of text: String, in line: String) -> Int? {
            guard let range = line.range(of: text) else { return nil }
            return String(line[..<range.lowerBound]).terminalWidth
        }
        let drift = ReportWriterTests.measured.driftSeconds.map { String(format: "%+.1f", $0 * 1000) } ?? ""
        #expect(column(of: drift, in: lines[1]) != nil)
        #expect(column(of: drift, in: lines[1]) == column(of: drift, in: lines[2]), "\(lines[1])\n\(lines[2])")
        #expect("録音🎤.wav".terminalWidth == 10 && "e\u{301}".terminalWidth == 1)
        #expect(lines[5] == "skipped: alias: symbolic link to /m/real")
    }

    @Test("a clock that stepped: its drift at both ends, its extremes and each step in columns of their own")
    func clockColumns() throws {
        var row = ReportWriterTests.measured
        (row.recording, row.reference, row.folder) = ("/m/a.wav", "/m/a.mov", "/m")
        var content = ContentMeasurement(
            offsetMs: 500, driftPPM: -81, driftPPMError: 0.01, model: .steps, confidence: 0.7)
        content.clock = ClockPath(
            lag: [], drift: [], startPPM: -131, endPPM: -31, fromSeconds: 0.4, toSeconds: 1199.2, minPPM: -131,
            maxPPM: -31,
            rateSteps: [.init(atSeconds: 600.01, uncertaintySeconds: 0.03, fromPPM: -131, toPPM: -31)])
        row.content = content
        let report = ScanReport(generated: "", roots: ["/m"], pairs: [row], unpaired: [], errors: [])
        let lines = ReportWriter.csv(report).split(separator: "\n")
        let header = lines[0].split(separator: ",").map(String.init)
        // RFC 4180 fields: a comma inside quotes is part of the field.
        var fields = [""]
        var quoted = false
        for character in lines[1] {
            if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        #expect(fields.count == header.count)
        let values = Dictionary(uniqueKeysWithValues: zip(header, fields))
        #expect(values["contentModel"] == "steps")
        #expect(values["clockStartPPM"] == "-131" && values["clockEndPPM"] == "-31")
        #expect(values["clockMinPPM"] == "-131" && values["clockMaxPPM"] == "-31")
        #expect(values["rateSteps"] == "600.01:-131>-31")
    }
}
