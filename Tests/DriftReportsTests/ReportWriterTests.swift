import DriftCore
import Foundation
import Testing

@testable import DriftReports

@Suite("Report writers")
struct ReportWriterTests {
    static let measured = PairReport(
        recording: "/m/cam,1/take \"01\".wav", reference: "/m/cam,1/take 01.mov", folder: "/m/cam,1", sampleRate: 48_000,
        channels: 2, format: "WAV 24-bit", recordingFrames: 2_879_623, referenceSource: "edit list",
        analysis: DriftAnalysis(recordingFrames: 2_879_623, sampleRate: 48_000, referenceSeconds: Rational(60, 1), recordingPath: "/m/x.wav"))
    static let broken = PairReport(recording: "/m/b.wav", reference: "/m/b.mov", folder: "/m", error: "reference: truncated: moov")
    static let report = ScanReport(generated: "2026-11-22T00:00:00Z", roots: ["/m"], pairs: [measured, broken],
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

    @Test("CSV quotes commas and quotes, one line per pair")
    func csv() {
        let lines = ReportWriter.csv(ReportWriterTests.report).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)  // header, two rows, final newline
        #expect(lines[0] == Substring(PairReport.columnNames.joined(separator: ",")))
        #expect(lines[1].hasPrefix("\"/m/cam,1/take \"\"01\"\".wav\",\"/m/cam,1/take 01.mov\",\"/m/cam,1\",48000,2,"))
    }
}
