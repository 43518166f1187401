import DriftCore
import DriftJournal
import DriftPlanning
import DriftReports
import DriftSchema
import Foundation
import Testing
import TestSupport

@Suite("drift history and metrics")
struct HistoryTests {
    @Test("the alert rule compares the latest value with the median of the earlier ones")
    func trendRule() {
        #expect(DriftTrend.alert([2, 3, 2.5, 150], thresholdPPM: 20)?.hasPrefix("started drifting: +150.0 ppm") == true)
        #expect(DriftTrend.alert([-131, -130, -132, -131], thresholdPPM: 20) == nil, "a steady drift is not news")
        #expect(DriftTrend.alert([0, 0, 400, 0, 1], thresholdPPM: 20) == nil, "one odd night earlier does not move the median")
        #expect(DriftTrend.alert([5, nil, -30], thresholdPPM: 20) != nil)
        #expect(DriftTrend.alert([5, -30, nil], thresholdPPM: 20) == nil, "not measured in the latest run")
        #expect(DriftTrend.alert([90], thresholdPPM: 20) == nil, "nothing to compare with")
        #expect(DriftTrend.median([3, 1, 2]) == 2 && DriftTrend.median([4, 1, 2, 3]) == 2.5)
    }

    @Test("history from the journal: folder medians per run, file values, alerts, path filter")
    func journalHistory() throws {
        let folder = TemporaryFolder("driftfix-history")
        let journal = try Journal(path: folder.file("journal.sqlite"))
        // Three nights: dev0 steady at -131 ppm; dev1 at +2 then +240 on the third night.
        let nights: [[(String, String, Double)]] = [
            [("/m/dev0/a.wav", "/m/dev0", -131), ("/m/dev0/b.wav", "/m/dev0", -129), ("/m/dev1/c.wav", "/m/dev1", 2)],
            [("/m/dev0/a.wav", "/m/dev0", -131), ("/m/dev0/b.wav", "/m/dev0", -133), ("/m/dev1/c.wav", "/m/dev1", 3)],
            [("/m/dev0/a.wav", "/m/dev0", -130), ("/m/dev1/c.wav", "/m/dev1", 240)],
        ]
        for night in nights {
            let run = try journal.beginRun(roots: ["/m"], outputRoot: "/o")
            let pairs = night.map { recording, device, ppm in
                var pair = PairReport(recording: recording, reference: recording + ".mov", folder: device, error: "")
                pair.driftPPM = ppm
                return pair
            }
            let report = ScanReport(generated: "", roots: ["/m"], pairs: pairs, unpaired: [], errors: [])
            try journal.storePlan(run: run, plan: RunPlan(report: report, pairs: []), jobs: [], prints: [:])
        }
        let history = try journal.history(runs: 10, alertPPM: 20, includeFiles: true)
        #expect(history.runs.map(\.id) == [1, 2, 3])
        #expect(history.folders.map(\.name) == ["/m/dev0", "/m/dev1"])
        #expect(history.folders[0].ppm == [-130, -132, -130] && history.folders[0].files == [2, 2, 1])
        #expect(history.folders[0].alert == nil)
        #expect(history.folders[1].alert?.contains("+240.0 ppm in the latest run, +2.5 ppm before") == true)
        #expect(history.files.first { $0.name == "/m/dev0/b.wav" }?.ppm == [-129, -133, nil])
        #expect(history.alerts.map(\.name) == ["/m/dev1", "/m/dev1/c.wav"])

        let lastTwo = try journal.history(path: "/m/dev0", runs: 2, alertPPM: 20, includeFiles: false)
        #expect(lastTwo.runs.map(\.id) == [2, 3] && lastTwo.folders.map(\.name) == ["/m/dev0"] && lastTwo.files.isEmpty)

        // The HTML report draws it, with the flagged folder listed.
        var report = ScanReport(generated: "", roots: ["/m"], pairs: [], unpaired: [], errors: [])
        report.history = history
        let html = HTMLReport.render(report)
        #expect(html.contains("<svg id=\"trend\""))
        #expect(html.contains("class=\"series alert\" data-folder=\"/m/dev1\""))
        #expect(html.contains("<ul id=\"alerts\" data-count=\"1\">"))
    }

    @Test("the metrics file: Prometheus text format, every outcome, written atomically and readable by the collector")
    func metricsFile() throws {
        let folder = TemporaryFolder("driftfix-metrics")
        var pairs: [PairReport] = []
        for (index, outcome) in [RepairOutcome.repaired, .repaired, .unchanged, .skipped, .failed].enumerated() {
            var pair = PairReport(recording: "/m/\(index).wav", reference: "/m/\(index).mov", folder: "/m", error: "")
            pair.outcome = outcome
            pair.recordingSeconds = 60
            pairs.append(pair)
        }
        let report = ScanReport(generated: "", roots: ["/m"], pairs: pairs, unpaired: [], errors: [])
        let earlier = Date(timeIntervalSince1970: 1_700_000_000)
        let metrics = RunMetrics(report: report, started: Date(timeIntervalSince1970: 1_800_000_000),
                                 finished: Date(timeIntervalSince1970: 1_800_000_042.5), lastSuccess: earlier)
        let path = folder.file("driftfix.prom")
        try metrics.write(to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let expected = [
            "driftfix_last_success_timestamp_seconds 1700000000",  // this run failed: the earlier success stands
            "driftfix_last_run_timestamp_seconds 1800000042.5",
            "driftfix_last_run_success 0",
            "driftfix_last_run_duration_seconds 42.5",
            "driftfix_last_run_files{outcome=\"repaired\"} 2",
            "driftfix_last_run_files{outcome=\"unchanged\"} 1",
            "driftfix_last_run_files{outcome=\"failed\"} 1",
            "driftfix_last_run_files{outcome=\"unfinished\"} 0",
            "driftfix_last_run_audio_seconds_processed 120",
        ]
        for line in expected { #expect(text.split(separator: "\n").contains(Substring(line)), "missing: \(line)\n\(text)") }
        // Every sample has its HELP and TYPE lines; names are valid.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let name = line.prefix { $0 != "{" && $0 != " " }
            #expect(text.contains("# TYPE \(name) gauge"), "\(name)")
            #expect(name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" })
        }
        #expect(folder.entries() == ["driftfix.prom"], "no temporary file left")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o644)

        let good = RunMetrics(report: ScanReport(generated: "", roots: [], pairs: Array(pairs.prefix(3)), unpaired: [], errors: []),
                              started: Date(timeIntervalSince1970: 10), finished: Date(timeIntervalSince1970: 20), lastSuccess: earlier)
        #expect(good.succeeded && good.lastSuccess == Date(timeIntervalSince1970: 20))
    }
}

@Suite("journal retention")
struct RetentionTests {
    @Test("old finished runs lose their plans and job rows but keep their measurements; unfinished runs are kept")
    func prune() throws {
        let folder = TemporaryFolder("driftfix-prune")
        let journal = try Journal(path: folder.file("journal.sqlite"))
        var runs: [Int64] = []
        for night in 0..<5 {
            let run = try journal.beginRun(roots: ["/media\(night == 1 ? "-other" : "")"], outputRoot: "/out")
            let (plan, jobs, prints) = samplePlan(run: run, count: 3)
            var measured = plan.report
            for index in measured.pairs.indices { measured.pairs[index].driftPPM = Double(night) }
            try journal.storePlan(run: run, plan: RunPlan(report: measured, pairs: []), jobs: jobs, prints: prints)
            if night != 1 { try journal.finishRun(run, status: .complete, succeeded: true, report: measured) }
            runs.append(run)
        }
        #expect(try journal.prune(keepRuns: 2) == 2, "runs 1 and 3 (run 2 is unfinished)")
        let kept = try journal.runs(limit: 10).filter(\.planned).map(\.id).sorted()
        #expect(kept == [runs[1], runs[3], runs[4]], "\(kept)")
        #expect(try journal.jobStates(run: runs[0]).isEmpty && journal.jobStates(run: runs[2]).isEmpty && journal.jobStates(run: runs[3]).count == 3)
        #expect(try journal.unfinishedRun(roots: ["/media-other"], outputRoot: "/out")?.planned == true)
        #expect(try journal.history(runs: 10, alertPPM: 20, includeFiles: false).runs.count == 5, "measurements stay")
        #expect(try journal.prune(keepRuns: 2) == 0, "nothing more to prune")
    }
}
