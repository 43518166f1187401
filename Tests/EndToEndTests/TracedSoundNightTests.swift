import DriftFixtures
import Foundation
import Testing

@Suite(
    "a sound night traced like a named one (the built binary, a real OTLP receiver)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg not installed"),
    .enabled(if: OTLPReceiver.available, "scripts/install-deps.sh makes the venv"))
struct TracedSoundNightTests {
    @Test(
        "repair --pair-by sound on local workers: the prints and the clips each a round below the night, every job's worker span its child with its steps"
    )
    func soundNight() throws {
        let root = TemporaryFolder()
        _ = try Shoot.smallNight(in: root.path)
        let receiver = try OTLPReceiver()
        let out = TemporaryFolder("driftfix-out")
        let result = try Background(
            ["repair", root.path, "--out", out.path, "--pair-by", "sound", "--workers", "2"],
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100"]
        ).wait(seconds: 240)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("2 repaired"), "\(result.stdout)")
        // The workers flush their last spans as they leave; the coordinator's come with its end.
        var spans = receiver.spans
        for _ in 0..<100 where !spans.contains(where: { $0["name"] as? String == "driftfix night" }) {
            usleep(50_000)
            spans = receiver.spans
        }
        func named(_ name: String) -> [[String: Any]] { spans.filter { $0["name"] as? String == name } }
        func id(_ span: [String: Any]) -> String { span["span"] as? String ?? "" }
        func parent(_ span: [String: Any]) -> String { span["parent"] as? String ?? "" }
        #expect(Set(spans.map { $0["trace"] as? String ?? "" }).count == 1, "one trace")
        let night = try #require(named("driftfix night").first)
        for round in ["dispatch prints", "dispatch clips"] {
            #expect(named(round).count == 1 && named(round).first.map(parent) == id(night), "\(round)")
        }
        let prints = named("job print")
        let clips = named("job clip")
        #expect(prints.count == 3 && clips.count == 2, "3 files printed, 2 clips synced")
        for (jobs, steps) in [
            (prints, ["wait for a core", "pin", "print"]), (clips, ["wait for a core", "pin", "sync"]),
        ] {
            for job in jobs {
                let workers = spans.filter { parent($0) == id(job) }
                try #require(workers.count == 1, "\(job["attributes"] ?? "")")
                let work = workers[0]
                #expect((work["resource"] as? [String: Any])?["driftfix.role"] as? String == "worker")
                let children = Set(spans.filter { parent($0) == id(work) }.compactMap { $0["name"] as? String })
                #expect(children == Set(steps), "\(children)")
            }
        }
        // A clip's cut is written like any repair: its commit sequence below the clip's sync.
        let syncs = Set(named("sync").map(id))
        let cuts = spans.filter { syncs.contains(parent($0)) }.compactMap { $0["name"] as? String }
        #expect(cuts.filter { $0 == "commit" }.count == 2, "\(cuts)")
    }
}
