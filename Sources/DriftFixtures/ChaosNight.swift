import DriftAudio
import DriftCore
import DriftSchema
import Foundation
import Synchronization

import struct SystemPackage.FilePath

/// A night under fire, with real processes: `driftfix repair` over a generated tree with local workers, while a chaos
/// loop SIGKILLs a random worker about once per `killInterval` (and per `killEveryOutputs` finished outputs), kills the coordinator itself once (a third of the
/// outputs in) and starts it again to resume, and a watcher SIGKILLs any worker that opens the poison file (how a
/// codec that segfaults on one file looks from outside). Used by the chaos test (assertions) and the benchmark
/// (figures for several seeds beside an undisturbed night).
public final class ChaosNight {
    public struct Settings: Sendable {
        public var seed: UInt64
        /// Drifted recordings besides the poison.
        public var files = 60
        /// Frames per recording (48 kHz stereo).
        public var frames: Int64 = 2 * 48_000
        public var workers = 3
        /// Mean seconds between worker kills (each interval uniform in 0.5...1.5 of it); nil: no worker is killed
        /// except by the poison watcher.
        public var killInterval: Double? = 1
        /// Besides the clock, a worker is killed after about every this many finished outputs (uniform in half to
        /// one and a half times it), so a machine that finishes the night in seconds is struck as often as a slow
        /// one; nil: by the clock only.
        public var killEveryOutputs: Int? = nil
        public var killCoordinator = true
        /// Whether the watcher kills workers that open the poison (false: the poison is just a long recording).
        public var poisonKills = true
        /// KiB of a tmpfs mounted where one folder's outputs go (`device2`): it fills during the night, and the
        /// jobs that find it full fail naming the cause; nil: no such volume (mounting needs root).
        public var smallVolumeKiB: Int? = nil
        /// Whether one more recording (`device1/vanishing.wav`) is cut to a third while a worker reads it, as when
        /// its volume goes away mid-read.
        public var vanishingInput = false
        public var maxAttempts = 5
        /// The whole night, both coordinator runs, at most (seconds).
        public var timeout: Double = 150
        public var executable = driftfixPath()

        public init(seed: UInt64) {
            self.seed = seed
        }

        /// The same night with nobody killing anything.
        public var undisturbed: Settings {
            var copy = self
            copy.killInterval = nil
            copy.killEveryOutputs = nil
            copy.killCoordinator = false
            copy.poisonKills = false
            copy.smallVolumeKiB = nil
            copy.vanishingInput = false
            return copy
        }
    }

    /// What the night went through.
    public struct Figures: Sendable {
        public var workerKills = 0
        public var poisonKills = 0
        /// Whether the vanishing input was cut while a worker had it open.
        public var inputCut = false
        public var coordinatorKills = 0
        public var wallSeconds = 0.0
        /// Every coordinator process that ran (to check that none left a worker behind).
        public var coordinators: [Int32] = []
    }

    public let settings: Settings
    public let tree: RepairTree
    public let out = TemporaryFolder("driftfix-chaos-out")
    public let report = TemporaryFolder("driftfix-chaos-report")
    /// The recording every worker that opens it dies on.
    public let poison: String
    public let poisonTarget: Int64
    /// The recording cut mid-read (with `vanishingInput`).
    public let vanishing: String
    /// The small volume under `out` (with `smallVolumeKiB`), and the folder it holds.
    public private(set) var volume: TmpfsMount?
    public var smallVolumeFolder: String { out.file("device2") }

    public init(settings: Settings) throws {
        self.settings = settings
        tree = try RepairTree(drifted: settings.files, frames: settings.frames, channels: 2, folders: 3, tones: 2)
        // Long enough that the watcher sees it open (the job holds it for its whole run).
        poison = tree.root.file("device0/poison.wav")
        vanishing = tree.root.file("device1/vanishing.wav")
        let longFrames: Int64 = 48_000 * 20
        poisonTarget = longFrames + longFrames * 131 / 1_000_000
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        for (path, seed) in [(poison, 99)] + (settings.vanishingInput ? [(vanishing, 98)] : []) {
            try writeRecording(
                TestSignal(channelCount: 2, length: longFrames, seed: UInt64(seed), tonesPerChannel: 2), to: path,
                format: format)
            try "\(poisonTarget)@48000\n".write(
                toFile: (path as NSString).deletingPathExtension + ".duration", atomically: true, encoding: .utf8)
        }
        volume = try settings.smallVolumeKiB.map { try TmpfsMount(kibibytes: $0, at: out.file("device2")) }
    }

    public var arguments: [String] {
        [
            "repair", tree.root.path, "--out", out.path, "--workers", "\(settings.workers)", "--heartbeat", "0.5",
            "--idle-timeout", "30", "--max-attempts", "\(settings.maxAttempts)", "--report", report.path,
            // The slowest converter keeps each short file's job long enough to be hit now and then.
            "--quality", "best",
        ]
    }

    deinit {
        volume = nil  // unmounted before the output folder is removed
    }

    /// Runs the night to its end; returns the last coordinator's result and the figures.
    public func run() throws -> (last: CommandResult, figures: Figures) {
        var random = SplitMix64(seed: settings.seed)
        let started = Date()
        let deadline = started.addingTimeInterval(settings.timeout)
        var figures = Figures()
        let watch = Watch()
        startWatcher(watch)
        defer { watch.active.store(false, ordering: .relaxed) }

        var coordinator = try Background(arguments, executable: settings.executable)
        watch.coordinator.store(coordinator.pid, ordering: .relaxed)
        figures.coordinators.append(coordinator.pid)
        var coordinatorKilled = !settings.killCoordinator
        var nextKill = Date().addingTimeInterval(
            settings.killInterval.map { $0 * (0.5 + random.nextUnit()) } ?? .infinity)
        func outputsUntilKill() -> Int {
            guard let every = settings.killEveryOutputs else { return .max }
            return max(1, every / 2 + Int(random.next() % UInt64(max(1, every))))
        }
        var nextOutputKill = outputsUntilKill()
        while coordinator.isRunning && Date() < deadline {
            usleep(10_000)
            if !coordinatorKilled && outputsDone() >= settings.files / 3 {
                kill(coordinator.pid, SIGKILL)
                figures.coordinatorKills += 1
                coordinatorKilled = true
                // Its workers notice the parent is gone and stop (they hold its output pipes until then); the
                // resumed run sweeps what they leave.
                let dead = coordinator.pid
                _ = waitUntil(seconds: 20) { localWorkers(of: dead).isEmpty }
                _ = coordinator.wait(seconds: 30)
                coordinator = try Background(arguments, executable: settings.executable)
                watch.coordinator.store(coordinator.pid, ordering: .relaxed)
                figures.coordinators.append(coordinator.pid)
                continue
            }
            let byClock = Date() >= nextKill
            let byProgress = settings.killEveryOutputs != nil && outputsDone() >= nextOutputKill
            if byClock || byProgress {
                let victims = localWorkers(of: coordinator.pid)
                if !victims.isEmpty {
                    kill(victims[Int(random.next() % UInt64(victims.count))], SIGKILL)
                    figures.workerKills += 1
                }
                if byClock, let interval = settings.killInterval {
                    nextKill = Date().addingTimeInterval(interval * (0.5 + random.nextUnit()))
                }
                if byProgress { nextOutputKill = outputsDone() + outputsUntilKill() }
            }
        }
        let last = coordinator.wait(seconds: max(1, deadline.timeIntervalSinceNow))
        figures.wallSeconds = Date().timeIntervalSince(started)
        watch.active.store(false, ordering: .relaxed)
        figures.poisonKills = watch.kills.load(ordering: .relaxed)
        figures.inputCut = watch.inputCut.load(ordering: .relaxed)
        return (last, figures)
    }

    /// Starts the thread that kills each worker that opens the poison file and cuts the vanishing input short once a
    /// worker has it open (as the settings ask), while `watch` is active.
    private func startWatcher(_ watch: Watch) {
        let target = PathText.realPath(poison) ?? poison
        let cut = PathText.realPath(vanishing) ?? vanishing
        let watcher = Thread { [settings] in
            guard settings.poisonKills || settings.vanishingInput else { return }
            var lastRefresh = Date.distantPast
            var pids: [Int32] = []
            var killed: Set<Int32> = []  // a killed process lists its descriptors until it is torn down
            var cutDone = !settings.vanishingInput
            while watch.active.load(ordering: .relaxed) {
                if Date().timeIntervalSince(lastRefresh) > 0.05 {
                    pids = localWorkers(of: watch.coordinator.load(ordering: .relaxed))
                    lastRefresh = Date()
                }
                for pid in pids where settings.poisonKills && !killed.contains(pid) && Self.hasOpen(target, pid: pid) {
                    kill(pid, SIGKILL)
                    killed.insert(pid)
                    watch.kills.add(1, ordering: .relaxed)
                }
                // A third of the file is left, header and all: the reader meets the end early.
                if !cutDone, pids.contains(where: { Self.hasOpen(cut, pid: $0) }) {
                    var info = stat()
                    if stat(cut, &info) == 0, truncate(cut, info.st_size / 3) == 0 {
                        cutDone = true
                        watch.inputCut.store(true, ordering: .relaxed)
                    }
                }
                usleep(1_000)
            }
        }
        watcher.start()
    }

    /// What the poison watcher shares with the chaos loop.
    private final class Watch: Sendable {
        let coordinator = Atomic<Int32>(0)
        let kills = Atomic<Int>(0)
        let inputCut = Atomic<Bool>(false)
        let active = Atomic<Bool>(true)
    }

    /// The report the last run wrote.
    public func finalReport() throws -> ScanReport {
        try JSONDecoder().decode(
            ScanReport.self, from: Data(contentsOf: URL(fileURLWithPath: report.file("report.json"))))
    }

    private func outputsDone() -> Int {
        tree.entries.filter { FileManager.default.fileExists(atPath: tree.output($0, in: out.path)) }.count
    }

    /// Whether process `pid` has `path` open (its descriptors, as /proc shows them).
    static func hasOpen(_ path: String, pid: Int32) -> Bool {
        let folder = "/proc/\(pid)/fd"
        guard let directory = opendir(folder) else { return false }
        defer { closedir(directory) }
        var buffer = [CChar](repeating: 0, count: 4096)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.first?.isNumber == true else { continue }
            let count = readlink(folder + "/" + name, &buffer, buffer.count - 1)
            guard count > 0 else { continue }
            if String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path { return true }
        }
        return false
    }

}
