import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

private let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// A small fleet laid out `ROOT/devN/nightK/takeM.wav` with sidecar references, over two nights: dev2 starts
/// drifting on the second night (its takes need repair), dev3 turns erratic (its takes scatter, each still in sync).
/// Every clock stays within the 300 ppm a clock can explain: 4 s takes keep 240 ppm within the 1 ms tolerance.
private struct SmallFleet {
    static let frames: Int64 = 192_000
    let root = TemporaryFolder("driftfix-fleet")

    func night(_ night: Int) throws {
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
        for device in 0..<4 {
            let folder = root.file("dev\(device)/night\(night)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for take in 0..<4 {
                var ppm = [-100.0, 50, 10, -200][device]
                if night == 1 && device == 2 { ppm = 290 }
                if night == 1 && device == 3 { ppm = take % 2 == 0 ? -240 : -160 }  // the median stays at -200
                let path = "\(folder)/take\(take).wav"
                try writeRecording(
                    TestSignal(channelCount: 1, length: Self.frames, seed: UInt64(device * 10 + take)), to: path,
                    format: format)
                let reference = (Double(Self.frames) / (1 + ppm * 1e-6)).rounded()
                try "\(Int64(reference))@48000\n".write(
                    toFile: "\(folder)/take\(take).duration", atomically: true, encoding: .utf8)
            }
        }
    }
}

@Suite("fleet QA: devices, the fleet report, history and metrics (the built binary)", .serialized)
struct FleetTests {
    @Test(
        "two nights of a fleet: devices from the path, the alerting ones first in report.json, devices.csv, history and metrics; the HTML device table as Chromium renders it equals the JSON",
        .enabled(if: chromium != nil, "chromium not installed"))
    func twoNights() throws {
        let fleet = SmallFleet()
        let out = TemporaryFolder("driftfix-fleet-out")
        let report = TemporaryFolder("driftfix-fleet-report")
        let metrics = out.file("metrics.prom")
        let config = out.file("fleet.yaml")
        try "scan:\n  device: \"{1}\"\nmetrics:\n  textfile: \(metrics)\n  device-limit: 3\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let arguments = [
            "repair", fleet.root.path, "--out", out.path, "--workers", "1", "--report", report.path, "--config", config,
        ]
        try fleet.night(0)
        let first = try driftfix(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        try fleet.night(1)
        let second = try driftfix(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("4 repaired"), "dev2's four new takes: \(second.stdout)")
        #expect(
            second.stderr.contains("dev2: started drifting") && second.stderr.contains("dev3: erratic"),
            "\(second.stderr)")

        // report.json: every device, the alerting first.
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report.file("report.json"))))
                as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        // Alerting first, then by the size of their median over both nights' rows (dev3 -200, dev2 +150).
        #expect(devices.map { $0["device"] as? String ?? "" } == ["dev3", "dev2", "dev0", "dev1"], "\(devices)")
        #expect(devices.allSatisfy { $0["recordings"] as? Int == 8 })
        #expect((devices[1]["alert"] as? String)?.hasPrefix("started drifting") == true)
        #expect((devices[0]["alert"] as? String)?.hasPrefix("erratic") == true)
        #expect(devices[2]["alert"] == nil || devices[2]["alert"] is NSNull)
        #expect((devices[0]["trend"] as? [Any])?.count == 2)
        let pairs = try #require(object["pairs"] as? [[String: Any]])
        #expect(
            pairs.allSatisfy {
                ($0["device"] as? String)?.hasPrefix("dev") == true && $0["deviceSource"] as? String == "path {1}"
            })
        let csv = try String(contentsOfFile: report.file("devices.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 5 && csv[0].hasPrefix("device,recordings,") && csv[1].hasPrefix("dev3,8,"))

        // The HTML device table, rendered: each row's numbers are the JSON's.
        let browser = try Child(
            try #require(chromium),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                "--dump-dom", "file://" + report.file("report.html"),
            ], stderr: .discard
        ).wait(seconds: 120)
        #expect(browser.status == 0)
        let dom = browser.stdout
        let table = try #require(dom.range(of: "<table id=\"devices\"")).upperBound
        let body = String(dom[table...]).components(separatedBy: "</table>")[0]
        let rows = body.components(separatedBy: "data-device=\"").dropFirst().map { chunk -> (String, [String]) in
            let name = String(chunk.prefix { $0 != "\"" })
            let values = chunk.components(separatedBy: "data-value=\"").dropFirst().map {
                String($0.prefix { $0 != "\"" })
            }
            return (name, values)
        }
        #expect(rows.map(\.0) == devices.map { $0["device"] as? String ?? "" })
        for ((name, values), device) in zip(rows, devices) {
            // recordings, by sound, audio h, median, worst, spread, start ms, past limit, refused, failed, alert
            #expect(values.count == 11, "\(name): \(values)")
            guard values.count == 11 else { continue }
            #expect(Int(values[0]) == device["recordings"] as? Int, "\(name)")
            #expect(Int(values[1]) == device["measuredBySound"] as? Int && values[1] == "0", "\(name): sidecars")
            #expect(abs((Double(values[2]) ?? -1) - (device["audioSeconds"] as? Double ?? 0) / 3600) < 1e-9, "\(name)")
            for (index, key) in [(3, "medianPPM"), (4, "worstPPM"), (5, "spreadPPM")] {
                #expect(
                    abs((Double(values[index]) ?? .nan) - (device[key] as? Double ?? .infinity)) < 1e-9,
                    "\(name) \(key)")
            }
            #expect(values[6] == "", "\(name): no start is known by the lengths")
            #expect(
                Int(values[7]) == device["pastLimit"] as? Int && Int(values[8]) == device["refused"] as? Int
                    && Int(values[9]) == device["failed"] as? Int, "\(name)")
            #expect(values[10] == (device["alert"] as? String ?? ""), "\(name)")
        }
        #expect(dom.contains("pairs 1–32 of 32"), "the paged pair table unpacked every pair")

        // history: devices, alerting first; one device with its files; a limit; a bad --since.
        let history = try driftfix(["history", "--out", out.path, "--config", config])
        #expect(history.status == 0)
        let lines = history.stdout.split(separator: "\n")
        #expect(lines.count > 3 && lines[2].hasPrefix("! dev2") && lines[3].hasPrefix("! dev3"), "\(history.stdout)")
        #expect(history.stdout.contains("devices: 2 alerting of 4"))
        let one = try driftfix(["history", "--out", out.path, "--device", "dev3", "--format", "json"])
        let oneObject = try #require(try JSONSerialization.jsonObject(with: Data(one.stdout.utf8)) as? [String: Any])
        #expect((oneObject["devices"] as? [[String: Any]])?.map { $0["name"] as? String } == ["dev3"])
        #expect((oneObject["files"] as? [Any])?.count == 8)
        let limited = try driftfix(["history", "--out", out.path, "--limit", "1", "--since", "1d"])
        #expect(limited.stdout.contains("… and 3 more devices"), "\(limited.stdout)")
        #expect(try driftfix(["history", "--out", out.path, "--since", "last tuesday"]).status == 2)

        // metrics: per device, capped at three series, the alerting first.
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(
            text.contains("driftfix_device_alert{device=\"dev2\"} 1")
                && text.contains("driftfix_device_alert{device=\"dev3\"} 1"))
        #expect(
            text.contains("driftfix_devices 4") && text.contains("driftfix_devices_alerting 2")
                && text.contains("driftfix_device_series_omitted 1"))
        #expect(text.contains("driftfix_device_drift_ppm{device=\"dev2\",stat=\"median\"}"))
        #expect(!text.contains("device=\"dev1\""), "the fourth device has no series of its own")
    }
}
