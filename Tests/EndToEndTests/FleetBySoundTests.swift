import DriftCore
import DriftFixtures
import Foundation
import Testing

/// A fleet as real media are: six recorders, each beside a camera, two nights, every take started 0.2-1.5 s before
/// or after its camera and stopped up to 2 s apart from it. The clocks: a straight one, one warming up, one that
/// starts drifting on the second night, a perfect one, one whose rate steps, one that drops a buffer. Each recording
/// is its scene evaluated on its clock (`TwoMicrophones`: no resampler of driftfix's), so each take's clock, start
/// and worst sync are known; the truths below come from the scene's own timing, never from driftfix.
@Suite("A fleet's report and history by the sound, not the lengths (the built binary)")
struct FleetBySoundTests {
    /// One recorder: its clock on night `n` (start drift, its wander, its dropouts).
    struct Device: Sendable {
        var name: String
        /// Its clock's drift at the start of each night's takes.
        var driftPPM: [Double]
        var wander: ClockWander?
        var dropout: Double?
        var steady: Bool
    }

    static let devices: [Device] = [
        Device(name: "straight", driftPPM: [-131, -131], steady: true),
        Device(name: "warming", driftPPM: [-81, -81], wander: .ramp(endPPM: -131, overSeconds: 90), steady: true),
        Device(name: "drifting", driftPPM: [2, 80], steady: false),
        Device(name: "perfect", driftPPM: [0, 0], steady: true),
        Device(name: "stepping", driftPPM: [-131, -131], wander: .step(atSeconds: 45, toPPM: -31), steady: true),
        Device(name: "dropping", driftPPM: [-60, -60], dropout: 0.025, steady: true),
    ]
    static let takes = 3
    static let seconds = 90.0

    /// One take as written, and its truth.
    struct Take {
        var path: String
        var device: Device
        var night: Int
        var scene: TwoMicrophones

        /// The clock's mean error over the take: its length against the scene time its clock covered.
        var clockPPM: Double { (scene.seconds / scene.clockSeconds(scene.seconds) - 1) * 1e6 }
        /// The sync at recording time t, ms (negative: the sound leads): minus the lag of the scene's own timing.
        func syncMs(_ t: Double) -> Double { -(scene.referenceTime(t) - t) * 1000 }
        /// Whether the sync crosses ITU-R BT.1359 (45 ms early, 125 ms late) anywhere in the take.
        var pastLimit: Bool {
            let syncs = stride(from: 0.0, through: scene.seconds, by: 0.5).map(syncMs)
            return -(syncs.min() ?? 0) > 45 || (syncs.max() ?? 0) > 125
        }
        var cause: DriftCause {
            if dropped { return .dropouts }
            switch device.wander {
            case .ramp?, .cycle?: return .clockWander
            case .step?: return .clockStep
            case nil: break
            }
            if abs(clockPPM) * 1e-6 * scene.seconds * 1000 > 1 { return .clockDrift }
            return scene.offset > 0 ? .lateStart : .earlyStart
        }
        var dropped: Bool { !scene.dropouts.isEmpty }
    }

    /// Writes night `night` of the fleet under `root`: ROOT/DEVICE/nightN/takeK.wav beside takeK_cam.wav.
    static func writeNight(_ night: Int, root: String) throws -> [Take] {
        var random = SplitMix64(seed: 64 + UInt64(night))
        var written: [Take] = []
        for (index, device) in devices.enumerated() {
            let folder = "\(root)/\(device.name)/night\(night)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for take in 0..<takes {
                let late = 0.2 + 1.3 * random.nextUnit()
                let offset = random.nextUnit() < 0.5 ? late : -late
                var scene = TwoMicrophones(
                    sampleRate: 48_000, seconds: seconds, offset: offset, driftPPM: device.driftPPM[night],
                    seed: UInt64(1000 + night * 100 + index * 10 + take))
                scene.wander = device.wander
                if let lost = device.dropout { scene.dropouts = [(scene.soundingTime(after: 40), lost)] }
                // The camera stopped up to 2 s before or after the recorder.
                scene.referenceLength = max(10, scene.referenceTime(seconds) + (random.nextUnit() * 4 - 2))
                let path = "\(folder)/take\(take).wav"
                try scene.write(.recording, to: path, channels: 2)
                try scene.write(.reference, to: "\(folder)/take\(take)_cam.wav", encoding: .pcm16)
                written.append(Take(path: path, device: device, night: night, scene: scene))
            }
        }
        return written
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func config(_ folder: String, measure: String) throws -> String {
        let path = "\(folder)/fleet-\(measure).yaml"
        try """
        scan:
          patterns:
            - recording: "{stem}.wav"
              reference: "{stem}_cam.wav"
        content:
          measure: \(measure)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(
        "two nights by the sound: each row's clock within 1 ppm and its cause right, the summary's worst and lip-sync count, each device's median, and only the drifting device alerts; by the lengths alone, no start is drift"
    )
    func fleet() throws {
        let root = TemporaryFolder("driftfix-fleet")
        let work = TemporaryFolder()
        let bySound = try Self.config(work.path, measure: "content")
        let byLengths = try Self.config(work.path, measure: "headers")
        var truth: [String: Take] = [:]
        var lastReports: (sound: [String: Any], lengths: [String: Any]) = ([:], [:])
        for night in 0..<2 {
            for take in try Self.writeNight(night, root: root.path) { truth[take.path] = take }
            for (config, out) in [(bySound, "sound"), (byLengths, "lengths")] {
                let result = try driftfix(
                    [
                        "repair", root.path, "--out", work.file("out-\(out)"), "--config", config, "--workers", "2",
                        "--report", work.file("report-\(out)"),
                    ], seconds: 900)
                #expect(result.status <= 1, "\(result.stdout)\n\(result.stderr)")
                let report = try Self.json(work.file("report-\(out)/report.json"))
                if out == "sound" { lastReports.sound = report } else { lastReports.lengths = report }
            }
        }
        // By the sound: the rows of both nights (the first night's outputs stand, their rows shown again).
        #expect(lastReports.sound["version"] as? Int == 3)
        try Self.checkRows(lastReports.sound, truth: truth)
        try Self.checkHistory(lastReports.sound, truth: truth)
        try Self.checkChart(work.file("report-sound/report.html"), report: lastReports.sound)
        Self.checkLengthsAlone(lastReports.lengths)
    }

    /// The page draws each alerting device's clock night by night with the JSON's own numbers, in a real browser.
    static func checkChart(_ page: String, report: [String: Any]) throws {
        guard
            let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return }
        let browser = try Child(
            chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page],
            stderr: .discard
        ).wait(seconds: 120)
        #expect(browser.status == 0)
        let devices = ((report["history"] as? [String: Any])?["devices"] as? [[String: Any]]) ?? []
        for device in devices where device["alert"] is String {
            let name = device["name"] as? String ?? ""
            let range = try #require(
                browser.stdout.range(of: "class=\"clock-chart\" data-device=\"\(name)\""), "no clock chart for \(name)")
            let end = browser.stdout[range.upperBound...].range(of: "</svg>")?.lowerBound ?? browser.stdout.endIndex
            let chart = String(browser.stdout[range.upperBound..<end])
            // Each drawn value, read back: (class, run, ppm). Foundation's JSON reader may round a last digit, so the
            // values are compared to within a part in 10¹².
            func drawn(_ kind: String) -> [(run: Int, ppm: Double)] {
                chart.components(separatedBy: "class=\"\(kind)\" data-run=\"").dropFirst().compactMap { piece in
                    let fields = piece.components(separatedBy: "\"")
                    guard fields.count > 2, let run = Int(fields[0]), let ppm = Double(fields[2]) else { return nil }
                    return (run, ppm)
                }
            }
            func same(_ a: [(run: Int, ppm: Double)], _ b: [(run: Int, ppm: Double)]) -> Bool {
                let x = a.sorted { ($0.run, $0.ppm) < ($1.run, $1.ppm) }
                let y = b.sorted { ($0.run, $0.ppm) < ($1.run, $1.ppm) }
                return x.count == y.count
                    && zip(x, y).allSatisfy { $0.run == $1.run && abs($0.ppm - $1.ppm) <= 1e-12 * max(1, abs($0.ppm)) }
            }
            let points = (device["recordings"] as? [[Double]] ?? []).enumerated().flatMap { run, values in
                values.map { (run: run, ppm: $0) }
            }
            #expect(!points.isEmpty && same(drawn("dot recording"), points), "\(name): \(drawn("dot recording"))")
            let medians = (device["ppm"] as? [Any] ?? []).enumerated().compactMap { run, value in
                (value as? Double).map { (run: run, ppm: $0) }
            }
            #expect(same(drawn("median"), medians), "\(name): \(drawn("median")) against \(medians)")
        }
    }

    /// Each row against its take's truth, and the summary against the truths of all.
    static func checkRows(_ report: [String: Any], truth: [String: Take]) throws {
        let pairs = try #require(report["pairs"] as? [[String: Any]])
        #expect(pairs.count == truth.count)
        for row in pairs {
            let path = try #require(row["recording"] as? String)
            let take = try #require(truth[path], "\(path)")
            guard row["measuredBy"] as? String == "content", let ppm = row["driftPPM"] as? Double else {
                Issue.record("\(path): not measured by its sound: \(row["contentNote"] ?? "") \(row["error"] ?? "")")
                continue
            }
            #expect(abs(ppm - take.clockPPM) < 1, "\(path): \(ppm) ppm, truth \(take.clockPPM)")
            #expect(row["cause"] as? String == take.cause.rawValue, "\(path): \(row["causeDetail"] ?? "")")
            let start = row["startOffsetMs"] as? Double ?? .nan
            #expect(abs(start - take.syncMs(0)) < 1, "\(path): start \(start) ms, truth \(take.syncMs(0))")
            let end = row["endOffsetMs"] as? Double ?? .nan
            #expect(abs(end - take.syncMs(seconds)) < 1, "\(path): end \(end), truth \(take.syncMs(seconds))")
            #expect(((row["flags"] as? [String]) ?? []).contains("itu-r-bt1359") == take.pastLimit, "\(path)")
            let ratio = (row["lengths"] as? [String: Any])?["ratioPPM"] as? Double ?? .nan
            #expect(abs(ratio - (seconds / take.scene.referenceSeconds - 1) * 1e6) < 1, "\(path): the lengths kept")
            // Plan and outcome agree: a refused plan is a refused outcome, a skipped one skipped.
            let action = row["action"] as? String
            let outcome = row["outcome"] as? String
            #expect(
                (action == "refuse") == (outcome == "refused") && (action == "skip") == (outcome == "skipped"),
                "\(path): plan \(action ?? "-"), outcome \(outcome ?? "-")")
        }
        let worstTruth = truth.values.map(\.clockPPM).max { abs($0) < abs($1) } ?? 0
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(abs((summary["worstDriftPPM"] as? Double ?? 0) - worstTruth) < 1, "\(summary)")
        #expect(summary["flagged"] as? Int == truth.values.filter(\.pastLimit).count, "\(summary)")
        let outcomes = summary["outcomes"] as? [String: Int] ?? [:]
        #expect((summary["refused"] as? Int ?? -1) == (outcomes["refused"] ?? 0), "counted once: \(summary)")
    }

    /// Per device and night, the median of its clocks; only the device that started drifting alerts.
    static func checkHistory(_ report: [String: Any], truth: [String: Take]) throws {
        let history = try #require(report["history"] as? [String: Any])
        let devices = try #require(history["devices"] as? [[String: Any]])
        for device in Self.devices {
            let series = try #require(devices.first { $0["name"] as? String == device.name }, "\(device.name)")
            let medians = series["ppm"] as? [Any] ?? []
            #expect(medians.count == 2)
            for night in 0..<min(2, medians.count) {
                let clocks = truth.values.filter { $0.device.name == device.name && $0.night == night }.map(\.clockPPM)
                    .sorted()
                let expected = clocks[clocks.count / 2]  // an odd number of takes
                let got = medians[night] as? Double ?? .nan
                #expect(abs(got - expected) < 1, "\(device.name) night \(night): \(got), truth \(expected)")
            }
            #expect((series["measuredBy"] as? [String])?.allSatisfy { $0 == "content" } == true, "\(device.name)")
            let alert = series["alert"] as? String
            #expect((alert != nil) == !device.steady, "\(device.name): \(alert ?? "no alert")")
        }
        // The drifting device's clock is drawn night by night with its recordings as points: the JSON's numbers.
        let drifting = try #require(devices.first { $0["name"] as? String == "drifting" })
        #expect((drifting["alert"] as? String)?.hasPrefix("started drifting") == true)
        #expect((drifting["recordings"] as? [[Double]])?.map(\.count) == [takes, takes])
    }

    /// The same files by their lengths alone: no length difference beyond a clock's range is drift, and no device
    /// alerts because of when someone pressed record.
    static func checkLengthsAlone(_ report: [String: Any]) {
        for row in report["pairs"] as? [[String: Any]] ?? [] {
            let ratio = ((row["lengths"] as? [String: Any])?["ratioPPM"] as? Double) ?? 0
            guard abs(ratio) > 300 else { continue }
            #expect(
                row["driftPPM"] is NSNull && row["cause"] as? String == "lengths-differ", "\(row["recording"] ?? "")")
        }
        let devices = ((report["history"] as? [String: Any])?["devices"] as? [[String: Any]]) ?? []
        let alerting = devices.filter { $0["alert"] is String }
        #expect(alerting.isEmpty, "\(alerting.map { "\($0["name"] ?? ""): \($0["alert"] ?? "")" })")
    }
}
