import DriftAudio
import DriftFixtures
import Foundation
import Testing

/// Scrapes a URL every 30 ms until it stops answering (after answering at least once) or the time is up, parsing each
/// answer with prometheus_client's own text-format parser; prints one JSON line per scrape with the chosen samples
/// (a labelled one as `name{label="value",...}`, labels sorted).
private let scraper = """
    import json, sys, time, urllib.request
    from prometheus_client.parser import text_string_to_metric_families
    url, health, deadline, names = sys.argv[1], sys.argv[2], time.time() + float(sys.argv[3]), sys.argv[4].split(',')
    seen = False
    while time.time() < deadline:
        try:
            text = urllib.request.urlopen(url, timeout=2).read().decode()
            status = urllib.request.urlopen(health, timeout=2).status
        except Exception:
            if seen: break
            time.sleep(0.03); continue
        seen = True
        values = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name in names:
                    labels = ",".join('%s="%s"' % item for item in sorted(sample.labels.items()))
                    values[sample.name + ("{%s}" % labels if labels else "")] = sample.value
        print(json.dumps({"values": values, "health": status}), flush=True)
        time.sleep(0.03)
    """

private func port() -> Int { freeTCPPort() }

private func scrapes(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
}

@Suite("live metrics over HTTP", .serialized)
struct LiveMetricsTests {
    @Test(
        "a night scraped while it runs: the coordinator's done counter rises, the worker's reaches every job, both parse as Prometheus text, /healthz answers 200",
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/prometheus_client"),
            "python3-prometheus-client not installed (scripts/install-deps.sh installs it)"))
    func scrapedDuringANight() throws {
        // 10 s takes: long enough that most of the tree's drifts are clock figures (within 300 ppm), so each device
        // has a drift series; the rest (pull-down far off, 350 ppm) are lengths no clock explains.
        let tree = try RepairTree(drifted: 12, frames: 48_000 * 10, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let folder = TemporaryFolder("driftfix-scraper")
        try scraper.write(toFile: folder.file("scrape.py"), atomically: true, encoding: .utf8)
        let endpoint = uniqueEndpoint()
        let (coordinatorPort, workerPort) = (port(), port())
        let worker = try Background([
            "worker", "--connect", endpoint, "--persistent", "--concurrency", "1", "--heartbeat", "0.5",
            "--identity", "persistent-metrics",
            "--metrics-address", "127.0.0.1:\(workerPort)",
        ])
        defer { kill(worker.pid, SIGKILL) }
        let coordinator = try remoteCoordinator(
            tree, out: out, bind: endpoint, ["--quality", "best", "--metrics-address", "\(coordinatorPort)"])
        let watching = try Child(
            "/usr/bin/python3",
            [
                folder.file("scrape.py"), "http://127.0.0.1:\(coordinatorPort)/metrics",
                "http://127.0.0.1:\(coordinatorPort)/healthz", "120",
                "driftfix_run_jobs_done_total,driftfix_run_workers_connected,driftfix_devices,driftfix_device_drift_ppm,driftfix_run_worker_jobs_done_total",
            ])
        let result = coordinator.wait(seconds: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let watched = watching.wait(seconds: 30)
        #expect(watched.status == 0, "\(watched.stderr)")
        let seen = scrapes(watched.stdout)
        let done = seen.compactMap { ($0["values"] as? [String: Double])?["driftfix_run_jobs_done_total"] }
        #expect(done.count >= 3, "scraped during the night: \(watched.stdout.prefix(500))")
        #expect(zip(done, done.dropFirst()).allSatisfy { $0 <= $1 }, "a counter never goes down: \(done)")
        #expect(done.contains { $0 > 0 && $0 < 12 } && (done.last ?? 0) <= 12, "it rose while the night ran: \(done)")
        #expect(seen.allSatisfy { $0["health"] as? Int == 200 })
        // Each worker by its name: the only one here did every job.
        let last = seen.compactMap { $0["values"] as? [String: Double] }.last ?? [:]
        #expect(last["driftfix_run_worker_jobs_done_total{worker=\"persistent-metrics\"}"] == 12, "\(last)")
        // The per-device drift series of the text file, live: each device's worst recording as the tree made it.
        let during =
            seen.compactMap { $0["values"] as? [String: Double] }.last {
                ($0["driftfix_run_jobs_done_total"] ?? 12) < 12
            } ?? [:]
        #expect(during["driftfix_devices"] == 2, "\(during)")
        for device in 0..<2 {
            // The device's worst clock figure: its recordings whose lengths a clock explains (300 ppm at most).
            let made =
                tree.entries.filter { $0.recording.contains("/device\(device)/") }
                .map { abs((Double($0.frames) / Double($0.target) - 1) * 1e6) }.filter { $0 <= 300 }.max() ?? 0
            let worst = during["driftfix_device_drift_ppm{device=\"device\(device)\",stat=\"worst\"}"]
            #expect(
                worst.map { abs(abs($0) - made) < 0.002 * made + 0.1 } == true,
                "device\(device): made \(made) ppm, served \(String(describing: worst))")
        }
        #expect(result.stderr.contains("metrics at http://127.0.0.1:\(coordinatorPort)/metrics"), "\(result.stderr)")
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }

        // The worker stays up between nights: its own counter holds every job of this one.
        let final = try runChild(
            "/usr/bin/python3",
            [
                folder.file("scrape.py"), "http://127.0.0.1:\(workerPort)/metrics",
                "http://127.0.0.1:\(workerPort)/healthz", "0.5",
                "driftfix_worker_jobs_done_total,driftfix_worker_jobs_running,driftfix_worker_coordinator_connected",
            ])
        let values = scrapes(final.stdout).last?["values"] as? [String: Double] ?? [:]
        #expect(values["driftfix_worker_jobs_done_total"] == 12, "\(final.stdout)\(final.stderr)")
        #expect(
            values["driftfix_worker_jobs_running"] == 0 && values["driftfix_worker_coordinator_connected"] == 0,
            "\(values)")
        #expect(scrapes(final.stdout).last?["health"] as? Int == 200)
    }

    @Test(
        "a sound night scraped while it runs: its prints, then its clips, each round counted under its round label; a port another program holds is named",
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/prometheus_client")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"),
            "python3-prometheus-client or ffmpeg not installed (scripts/install-deps.sh installs them)"))
    func soundNightScraped() throws {
        let clips = 6
        let (_, root) = try soundShoot(clips: clips)
        let out = TemporaryFolder("driftfix-out")
        let folder = TemporaryFolder("driftfix-scraper")
        try scraper.write(toFile: folder.file("scrape.py"), atomically: true, encoding: .utf8)
        let metricsPort = port()
        let night = [
            "repair", root.path, "--out", out.path, "--pair-by", "sound", "--workers", "1", "--heartbeat", "0.5",
            "--metrics-address", "\(metricsPort)",
        ]
        let coordinator = try Background(night)
        let watching = try Child(
            "/usr/bin/python3",
            [
                folder.file("scrape.py"), "http://127.0.0.1:\(metricsPort)/metrics",
                "http://127.0.0.1:\(metricsPort)/healthz", "180", "driftfix_run_jobs_done_total",
            ])
        let result = coordinator.wait(seconds: 180)
        #expect(result.status == 0, "\(result.stderr)")
        let watched = watching.wait(seconds: 30)
        let seen = scrapes(watched.stdout).compactMap { $0["values"] as? [String: Double] }
        let prints = seen.compactMap { $0["driftfix_run_jobs_done_total{round=\"prints\"}"] }
        let cuts = seen.compactMap { $0["driftfix_run_jobs_done_total{round=\"clips\"}"] }
        // Every file printed once (the clips and the recorder), then every clip cut, counted as they finished.
        #expect(prints.last == Double(clips + 1), "\(watched.stdout.suffix(600))")
        #expect(cuts.last == Double(clips), "\(watched.stdout.suffix(600))")
        #expect(cuts.contains { $0 > 0 && $0 < Double(clips) }, "scraped while the clips were cut: \(cuts)")
        #expect(zip(cuts, cuts.dropFirst()).allSatisfy { $0 <= $1 }, "a counter never goes down: \(cuts)")
        #expect(
            seen.allSatisfy { $0["driftfix_run_jobs_done_total"] == nil }, "a night in rounds labels every job series")

        // The port already held by another program: the night goes on, and says why it serves nothing.
        let holder = try Child(
            "/usr/bin/python3",
            [
                "-c",
                "import socket, sys, time\ns = socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\ns.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\nprint('ready', flush=True)\ntime.sleep(60)",
                "\(metricsPort)",
            ])
        defer { kill(holder.pid, SIGKILL) }
        #expect(waitUntil(seconds: 10) { holder.outputSoFar.contains("ready") })
        let held = try driftfix(night)
        #expect(held.status == 0, "\(held.stderr)")
        #expect(
            held.stdout.contains("0 repaired, \(clips) unchanged")
                && held.stderr.contains("cannot listen on 127.0.0.1:\(metricsPort) for metrics"), "\(held.stderr)")
    }

    @Test("--metrics-address takes a port (loopback) or HOST:PORT, and refuses anything else")
    func addresses() throws {
        let bad = try runChild(
            driftfixPath(), ["worker", "--connect", uniqueEndpoint(), "--metrics-address", "localhost"])
        #expect(bad.status == 2 && bad.stderr.contains("give PORT (loopback) or HOST:PORT"), "\(bad.stderr)")
        let tooHigh = try runChild(
            driftfixPath(), ["repair", "/nonexistent", "--out", "/tmp/x", "--metrics-address", "70000"])
        #expect(tooHigh.status == 2, "\(tooHigh.stderr)")
    }
}
