import DriftCore
import DriftFixtures
import DriftJournal
import DriftPlanning
import DriftReports
import DriftSchema
import Foundation
import Testing

import struct SystemPackage.FilePath

@Suite("drift history and metrics")
struct HistoryTests {
    @Test("the alert rule compares the latest value with the median of the earlier ones")
    func trendRule() {
        #expect(
            DriftTrend.alert([2, 3, 2.5, 150], thresholdPPM: 20)?.hasPrefix("started drifting: +150.0 ppm") == true)
        #expect(DriftTrend.alert([-131, -130, -132, -131], thresholdPPM: 20) == nil, "a steady drift is not news")
        #expect(
            DriftTrend.alert([0, 0, 400, 0, 1], thresholdPPM: 20) == nil,
            "one odd night earlier does not move the median")
        #expect(DriftTrend.alert([5, nil, -30], thresholdPPM: 20) != nil)
        #expect(DriftTrend.alert([5, -30, nil], thresholdPPM: 20) == nil, "not measured in the latest run")
        #expect(DriftTrend.alert([90], thresholdPPM: 20) == nil, "nothing to compare with")
        #expect(DriftTrend.median([3, 1, 2]) == 2 && DriftTrend.median([4, 1, 2, 3]) == 2.5)
    }

    @Test("the spread rule: a device whose recordings started to disagree alerts; too few recordings are no spread")
    func spreadRule() {
        #expect(
            DriftTrend.spreadAlert([0.8, 1.0, 0.9, 14], counts: [20, 20, 20, 20], thresholdPPM: 10)?.hasPrefix(
                "erratic: its recordings spread over 14.0 ppm") == true)
        #expect(
            DriftTrend.spreadAlert([0.8, 1.0, 0.9, 14], counts: [20, 20, 20, 3], thresholdPPM: 10) == nil,
            "3 recordings have no spread to speak of")
        #expect(
            DriftTrend.spreadAlert([8, 9, 8.5, 12], counts: [20, 20, 20, 20], thresholdPPM: 10) == nil,
            "an always-loose device is not news")
        let stats = DriftStatistics([1, 2, 3, 4, 100])
        #expect(
            stats.median == 3 && stats.lowerQuartile == 2 && stats.upperQuartile == 4 && stats.spread == 2
                && stats.worst == 100)
        #expect(DriftStatistics([-7, 3]).worst == -7 && DriftStatistics([-7, 3]).median == -2)
    }

    @Test("history from the journal: device medians, spreads and counts per run, file values, alerts first, filters")
    func journalHistory() throws {
        let folder = TemporaryFolder("driftfix-history")
        let journal = try Journal(path: folder.file("journal.sqlite"))
        // Four nights of new recordings (each night's files in their own folder, the older ones measured again each
        // night): dev0 steady near -131 ppm; dev1 at +2..+3, then +240 on the last night; dev2's five recordings
        // agree within 1 ppm, then spread over 30 ppm on the last night (median unchanged).
        func night(_ n: Int, _ dev1: Double, _ dev2: [Double], dev0b: Double? = -129) -> [(String, String, Double)] {
            var rows: [(String, String, Double)] = [
                ("/m/dev0/n\(n)/a.wav", "dev0", -131), ("/m/dev1/n\(n)/c.wav", "dev1", dev1),
            ]
            if let dev0b { rows.append(("/m/dev0/n\(n)/b.wav", "dev0", dev0b)) }
            for (index, ppm) in dev2.enumerated() { rows.append(("/m/dev2/n\(n)/t\(index).wav", "dev2", ppm)) }
            return rows
        }
        let steady = [5, 5.5, 6, 6.5, 7.0]
        let nights = [
            night(0, 2, steady), night(1, 3, steady, dev0b: -133), night(2, 2.5, steady),
            night(3, 240, [-10, -4, 6, 16, 22], dev0b: nil),
        ]
        var tree: [(String, String, Double)] = []
        for (index, rows) in nights.enumerated() {
            tree += rows
            // The night's run measures the whole tree; a replaced file (dev0/n0/b.wav on night 2) measures anew.
            if index == 2, let replaced = tree.firstIndex(where: { $0.0 == "/m/dev0/n0/b.wav" }) {
                tree[replaced].2 = -140
            }
            let run = try journal.beginRun(roots: ["/m"], outputRoot: "/o")
            let pairs = tree.map { recording, device, ppm in
                var pair = PairReport(
                    recording: recording, reference: recording + ".mov",
                    folder: (recording as NSString).deletingLastPathComponent, error: "")
                pair.device = device
                pair.driftPPM = ppm
                pair.cause = .clockDrift
                pair.action = .skip
                return pair
            }
            let report = ScanReport(generated: "", roots: ["/m"], pairs: pairs, unpaired: [], errors: [])
            try journal.storePlan(run: run, plan: RunPlan(report: report, pairs: []), jobs: [])
            try journal.finishRun(run, status: .complete, succeeded: true, report: report)
        }
        let rule = AlertRule(driftPPM: 20, spreadPPM: 10)
        var query = HistoryQuery(runs: 10, rule: rule)
        query.includeFiles = true
        let history = try journal.history(query)
        #expect(history.runs.map(\.id) == [1, 2, 3, 4])
        #expect(history.devices.map(\.name) == ["dev1", "dev2", "dev0"], "alerting first, the larger drift first")
        let dev0 = try #require(history.devices.first { $0.name == "dev0" })
        // Night 2: its two new recordings and the replaced one (-131, -129, -140).
        #expect(dev0.ppm == [-130, -132, -131, -131] && dev0.files == [2, 2, 3, 1] && dev0.alert == nil)
        #expect(
            history.devices[0].alert?.contains("started drifting: +240.0 ppm in the latest run, +2.5 ppm before")
                == true)
        #expect(history.devices[1].ppm == [6, 6, 6, 6] && history.devices[1].spreadPPM?.last == 20)
        #expect(
            history.devices[1].alert?.hasPrefix(
                "erratic: its recordings spread over 20.0 ppm in the latest run, 1.0 ppm before") == true)
        // A file's drift stands in the run that measured it first, and again when it changed.
        #expect(history.files.first { $0.name == "/m/dev0/n0/b.wav" }?.ppm == [-129, nil, -140, nil])
        #expect(history.files.first { $0.name == "/m/dev0/n1/b.wav" }?.ppm == [nil, -133, nil, nil])
        #expect(Set(history.alerts.map(\.name)) == ["dev1", "dev2"], "a file measured once has no past to move from")

        // A path scopes the devices to its recordings (from the samples); the last two runs only.
        var scoped = HistoryQuery(runs: 2, rule: rule)
        scoped.path = "/m/dev0"
        let lastTwo = try journal.history(scoped)
        #expect(lastTwo.runs.map(\.id) == [3, 4] && lastTwo.devices.map(\.name) == ["dev0"] && lastTwo.files.isEmpty)
        #expect(lastTwo.devices[0].ppm == [-131, -131])

        // One device by pattern: its files come with it; a limit keeps the worst; since leaves out older runs.
        var one = HistoryQuery(runs: 10, rule: rule)
        one.devices = ["dev[2]"]
        let dev2 = try journal.history(one)
        #expect(dev2.devices.map(\.name) == ["dev2"] && dev2.files.count == 20 && dev2.devicesTotal == 1)
        var limited = HistoryQuery(runs: 10, rule: rule)
        limited.limit = 1
        let top = try journal.history(limited)
        #expect(top.devices.map(\.name) == ["dev1"] && top.devicesTotal == 3)
        var later = HistoryQuery(runs: 10, rule: rule)
        later.since = Date().addingTimeInterval(3600)
        #expect(try journal.history(later).runs.isEmpty)

        // The HTML report draws it, with the flagged devices listed.
        var report = ScanReport(generated: "", roots: ["/m"], pairs: [], unpaired: [], errors: [])
        report.history = history
        let html = HTMLReport.render(report)
        #expect(html.contains("<svg id=\"trend\""))
        #expect(html.contains("class=\"series alert\" data-device=\"dev1\""))
        #expect(html.contains("<ul id=\"alerts\" data-count=\"2\">"))
    }

    @Test("a device whose takes' clocks wander (measured by their sound) alerts on its own, with how many and how far")
    func wanderingDevice() throws {
        let folder = TemporaryFolder("driftfix-history")
        let journal = try Journal(path: folder.file("journal.sqlite"))
        func clock(from start: Double, to end: Double) -> ClockPath {
            ClockPath(
                lag: [.init(atSeconds: 0, lagMs: 0), .init(atSeconds: 600, lagMs: 1)], drift: [], startPPM: start,
                endPPM: end, fromSeconds: 0, toSeconds: 600, minPPM: min(start, end), maxPPM: max(start, end))
        }
        for night in 0..<2 {
            let run = try journal.beginRun(roots: ["/m"], outputRoot: "/o")
            let pairs = (0..<4).map { take -> PairReport in
                let recording = "/m/rec\(night)/\(take).wav"
                var pair = PairReport(recording: recording, reference: recording + ".mov", folder: "/m", error: "")
                pair.device = "bag-recorder"
                pair.driftPPM = -116 + Double(take)
                pair.cause = .clockDrift
                pair.action = .resample
                // The second night, two of its four takes warmed up in the bag.
                if night == 1 && take < 2 {
                    var measured = ContentMeasurement(
                        offsetMs: 0, driftPPM: -116, driftPPMError: 0.1, model: .wander, confidence: 0.9)
                    measured.clock = clock(from: -131, to: take == 0 ? -101 : -110)
                    pair.content = measured
                }
                return pair
            }
            let report = ScanReport(generated: "", roots: ["/m"], pairs: pairs, unpaired: [], errors: [])
            try journal.storePlan(run: run, plan: RunPlan(report: report, pairs: []), jobs: [])
            try journal.finishRun(run, status: .complete, succeeded: true, report: report)
        }
        let history = try journal.history(HistoryQuery(runs: 10, rule: AlertRule(driftPPM: 20, spreadPPM: 10)))
        let device = try #require(history.devices.first)
        #expect(device.wandering == [0, 2] && device.wanderPPM?.last == 30)
        #expect(
            device.alert == "clock wanders: 2 of 4 recordings in the latest run (up to 30.0 ppm within a take)",
            "\(device.alert ?? "no alert")")
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
        let metrics = RunMetrics(
            report: report, started: Date(timeIntervalSince1970: 1_800_000_000),
            finished: Date(timeIntervalSince1970: 1_800_000_042.5), lastSuccess: earlier)
        let path = folder.file("driftfix.prom")
        try metrics.write(to: FilePath(path))
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
        for line in expected {
            #expect(text.split(separator: "\n").contains(Substring(line)), "missing: \(line)\n\(text)")
        }
        // Every sample has its HELP and TYPE lines; names are valid.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let name = line.prefix { $0 != "{" && $0 != " " }
            #expect(text.contains("# TYPE \(name) gauge"), "\(name)")
            #expect(name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" })
        }
        #expect(folder.entries() == ["driftfix.prom"], "no temporary file left")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o644)

        let good = RunMetrics(
            report: ScanReport(
                generated: "", roots: [String](), pairs: Array(pairs.prefix(3)), unpaired: [], errors: []),
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
            let (plan, jobs, _) = samplePlan(run: run, count: 3)
            var measured = plan.report
            for index in measured.pairs.indices {
                // Measured pairs (refused ones are not drift and leave no samples).
                measured.pairs[index].driftPPM = Double(night)
                measured.pairs[index].action = .resample
            }
            try journal.storePlan(run: run, plan: RunPlan(report: measured, pairs: []), jobs: jobs)
            if night != 1 { try journal.finishRun(run, status: .complete, succeeded: true, report: measured) }
            runs.append(run)
        }
        #expect(try journal.prune(keepRuns: 2) == 2, "runs 1 and 3 (run 2 is unfinished)")
        let kept = try journal.runs(limit: 10).filter(\.planned).map(\.id).sorted()
        #expect(kept == [runs[1], runs[3], runs[4]], "\(kept)")
        #expect(
            try journal.jobStates(run: runs[0]).isEmpty && journal.jobStates(run: runs[2]).isEmpty
                && journal.jobStates(run: runs[3]).count == 3)
        #expect(try journal.unfinishedRun(roots: ["/media-other"], outputRoot: "/out")?.planned == true)
        #expect(
            try journal.history(HistoryQuery(runs: 10, rule: AlertRule(driftPPM: 20, spreadPPM: 10))).runs.count == 5,
            "measurements stay")
        #expect(try journal.prune(keepRuns: 2) == 0, "nothing more to prune")
    }
}

@Suite("drift history from the sound")
struct SoundHistoryTests {
    /// A 60 s take that started `late` seconds after its camera (which ran a second longer), its clock `ppm`: by the
    /// lengths no clock (lengths-differ); revised by its sound when `bySound`.
    static func take(_ path: String, ppm: Double, late: Double, bySound: Bool) -> PairReport {
        let analysis = DriftAnalysis(
            recordingFrames: 2_880_000, sampleRate: 48_000, referenceSeconds: Rational(61, 1), recordingPath: path)
        var row = PairReport(
            recording: path, reference: path + ".mov", folder: (path as NSString).deletingLastPathComponent,
            sampleRate: 48_000, channels: 1, format: "WAV", recordingFrames: 2_880_000, referenceSource: "edit list",
            analysis: analysis)
        row.device = "rec"
        guard bySound else { return row }
        let measured = ContentMeasurement(
            offsetMs: late * 1000, driftPPM: ppm, driftPPMError: 0.05, model: .clock, confidence: 0.9)
        row.revise(
            bySound: measured, plan: .repair([.padStart(frames: Int64(late * 48_000))]), drift: DriftPolicy(),
            confidenceFloor: 0.5)
        return row
    }

    @Test("stored when the run finishes, from the sound's figures; stored again, not twice; starts a series apart")
    func fromTheSound() throws {
        let folder = TemporaryFolder("driftfix-history")
        let journal = try Journal(path: folder.file("journal.sqlite"))
        var rule = AlertRule(driftPPM: 20, spreadPPM: 10)
        for night in 0..<2 {
            let run = try journal.beginRun(roots: ["/m"], outputRoot: "/o")
            let paths = (0..<3).map { "/m/rec/n\(night)/t\($0).wav" }
            let planned = ScanReport(
                generated: "", roots: ["/m"], pairs: paths.map { Self.take($0, ppm: 0, late: 0, bySound: false) },
                unpaired: [], errors: [])
            try journal.storePlan(run: run, plan: RunPlan(report: planned, pairs: []), jobs: [])
            // Stopped half way (one take measured), then resumed and finished: the run's history is its last report.
            var partial = planned
            partial.pairs[0] = Self.take(paths[0], ppm: -131, late: 0.8, bySound: true)
            try journal.finishRun(run, status: .stopped, succeeded: false, report: partial)
            let finished = ScanReport(
                generated: "", roots: ["/m"],
                pairs: paths.enumerated().map { Self.take($1, ppm: -131 + Double($0), late: 0.8, bySound: true) },
                unpaired: [], errors: [])
            try journal.finishRun(run, status: .complete, succeeded: true, report: finished)
        }
        let history = try journal.history(HistoryQuery(runs: 10, rule: rule))
        let device = try #require(history.devices.first)
        #expect(device.ppm == [-130, -130] && device.files == [3, 3], "the sound's clocks, each take once")
        #expect(device.measuredBy == ["content", "content"])
        #expect(device.startOffsetMs?.map { $0.map { ($0 * 10).rounded() / 10 } } == [-800, -800])
        #expect(device.alert == nil, "a late start is no clock fault; the start alert is off by default")
        #expect(device.recordings == nil, "points only for alerting devices")
        rule.startMs = 500
        let strict = try #require(try journal.history(HistoryQuery(runs: 10, rule: rule)).devices.first)
        #expect(strict.alert?.hasPrefix("starts late: its sound leads by 800.0 ms") == true, "\(strict.alert ?? "")")
        #expect(strict.recordings?.map(\.count) == [3, 3])

        // The lengths alone (a night with no sound measured): no figure at all for a device whose takes start apart.
        let run = try journal.beginRun(roots: ["/m"], outputRoot: "/o")
        let lengths = ScanReport(
            generated: "", roots: ["/m"], pairs: [Self.take("/m/rec/n2/t0.wav", ppm: 0, late: 0, bySound: false)],
            unpaired: [], errors: [])
        try journal.storePlan(run: run, plan: RunPlan(report: lengths, pairs: []), jobs: [])
        try journal.finishRun(run, status: .complete, succeeded: true, report: lengths)
        let third = try #require(try journal.history(HistoryQuery(runs: 10, rule: rule)).devices.first)
        #expect(third.ppm.count == 3 && third.ppm[2] == nil && third.measuredBy?[2] == nil)
    }
}
