import ArgumentParser
import DriftAudio
import DriftFixtures
import Foundation

/// The chaos night of the test suite, measured: an undisturbed night, then the same night under fire for several
/// seeds (workers SIGKILLed about once per interval, the coordinator killed once and resumed, a file that kills every
/// worker that opens it). Prints what each night survived and its wall time beside the undisturbed one.
struct Chaos: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run chaos nights and report kills survived, requeues and wall time.")

    @Option(help: "The driftfix executable.") var driftfix: String
    @Option(help: "Seeds, one chaos night each.") var seeds: [UInt64] = [1, 2, 3]
    @Option(help: "Recordings per night besides the poison.") var files = 60
    @Option(help: "Seconds of 48 kHz stereo audio per recording.") var seconds = 2
    @Option var workers = 3
    @Option(help: "Mean seconds between worker kills.") var interval = 1.0
    @Option(help: "Attempts per job.") var maxAttempts = 8
    @Option(
        name: .customLong("small-volume-mib"),
        help: "MiB of a tmpfs holding one folder's outputs, so that it fills (root only; 0: none).")
    var smallVolumeMiB = 0
    @Flag(help: "Also cut one recording to a third while a worker reads it.") var vanishingInput = false

    func run() throws {
        func settings(seed: UInt64) -> ChaosNight.Settings {
            var settings = ChaosNight.Settings(seed: seed)
            settings.files = files
            settings.frames = Int64(seconds) * 48_000
            settings.workers = workers
            settings.killInterval = interval
            settings.executable = driftfix
            settings.maxAttempts = maxAttempts
            settings.smallVolumeKiB = smallVolumeMiB > 0 ? smallVolumeMiB * 1024 : nil
            settings.vanishingInput = vanishingInput
            settings.timeout = 3600
            return settings
        }
        row(["night", "wall s", "x calm", "killed", "poison", "coord", "lost", "restart", "requeued", "result"])
        let calm = try night(settings(seed: 0).undisturbed, label: "undisturbed", calm: nil)
        for seed in seeds { _ = try night(settings(seed: seed), label: "seed \(seed)", calm: calm) }
        print(
            "killed: workers SIGKILLed by the chaos loop; poison: by the watcher; coord: coordinator kills. lost, restart,"
        )
        print("requeued: as the resumed run counted them (the killed coordinator's own counts die with it).")
    }

    /// Runs one night and prints its line; returns its wall time.
    private func night(_ settings: ChaosNight.Settings, label: String, calm: Double?) throws -> Double {
        let night = try ChaosNight(settings: settings)
        let (last, figures) = try night.run()
        let report = try? night.finalReport()
        // Every output there is exact; the ones missing are the failures the report names (no room, the poison, the
        // cut input).
        var placed = 0
        var wrong = 0
        for entry in night.tree.entries {
            let output = night.tree.output(entry, in: night.out.path)
            guard FileManager.default.fileExists(atPath: output) else { continue }
            if (try? AudioFileReader(path: output).frameCount) == entry.target { placed += 1 } else { wrong += 1 }
        }
        let failed = report?.pairs.filter { $0.outcome == .failed } ?? []
        let noRoom = failed.filter { $0.error?.contains("no space left") == true }.count
        let poison = report?.pairs.first { $0.recordingText == night.poison }?.outcome?.rawValue ?? "?"
        let result =
            "exit \(last.status), \(placed) exact\(wrong > 0 ? ", \(wrong) WRONG" : ""), \(failed.count) failed"
            + " (\(noRoom) no room), poison \(poison)"
            + (settings.vanishingInput
                ? ", cut input \(report?.pairs.first { $0.recordingText == night.vanishing }?.outcome?.rawValue ?? "?")"
                : "")
            + (hiddenTemporaryFiles(night.out.path) > 0 ? ", TEMPORARY FILES LEFT" : "")
        let disruptions = report?.disruptions
        let columns: [String] = [
            label, String(format: "%.1f", figures.wallSeconds),
            calm.map { String(format: "%.2f", figures.wallSeconds / $0) } ?? "1.00",
            "\(figures.workerKills)", "\(figures.poisonKills)", "\(figures.coordinatorKills)",
            "\(disruptions?.workersLost ?? 0)", "\(disruptions?.workersRestarted ?? 0)",
            "\(disruptions?.jobsRequeued ?? 0)", result,
        ]
        row(columns)
        return figures.wallSeconds
    }

    private func hiddenTemporaryFiles(_ root: String) -> Int {
        var count = 0
        func walk(_ folder: String) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name != ".driftfix" {
                var info = stat()
                guard lstat(folder + "/" + name, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    walk(folder + "/" + name)
                } else if name.hasSuffix(".tmp") {
                    count += 1
                }
            }
        }
        walk(root)
        return count
    }

    private func row(_ columns: [String]) {
        let widths = [12, 7, 7, 7, 7, 6, 6, 8, 9, 0]
        print(
            zip(columns, widths).map {
                $1 == 0 ? $0 : $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0)
            }
            .joined(separator: " "))
    }
}
