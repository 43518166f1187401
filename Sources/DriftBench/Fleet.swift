import ArgumentParser
import DriftFixtures
import DriftJournal
import DriftPlanning
import DriftSchema
import Foundation

/// A synthetic fleet for the QA benchmark: `ROOT/devNNN/nightK/takeM.wav` with a `takeM.duration` sidecar as its
/// reference. Each recording is a 60 s mono 16-bit WAV whose header is real and whose samples are a hole in a sparse
/// file (the scan reads headers; the few repairs read silence), so 100,000 pairs take a few hundred MB of disk.
///
/// Each device has its own steady drift (−12…+12 ppm, inside the 1 ms tolerance at 60 s) with ±0.5 ppm between
/// takes. Device 1 starts drifting on the last night (+80 ppm: its recordings need repair and it must alert);
/// device 2 turns erratic on the last night (its spread grows: ±15 ppm; it must alert). A few pairs per night are
/// problems: one refused (8 % short: a wrong pairing), one unreadable, one without its reference.
///
/// With `--late-device N`, device N records real sound beside a camera instead: each take a scene heard by both (the
/// tests' `TwoMicrophones`), its clock 47 ppm slow, started 0.4-0.9 s after its camera and stopped about a second
/// before it, the camera's file an MP4 with its own AAC sound (by ffmpeg). Its lengths differ by more than a clock
/// drifts; its sound says what its clock did.
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one night of a synthetic recorder fleet (sparse WAVs + sidecars).")

    @Argument(help: "The fleet's root.")
    var root: String
    @Option(help: "Devices.") var devices = 500
    @Option(help: "Takes per device per night.") var takes = 40
    @Option(help: "The night to write (0-based).") var night = 0
    @Option(help: "The night the drifting and erratic devices change (default: the fifth).") var changeNight = 4
    @Option(help: "Seconds per recording.") var seconds = 60
    @Option(help: "Drift (ppm) added to every device: enough makes every pair a real repair job (the journal bench).")
    var addPPM = 0.0
    @Option(help: "A device that records real sound beside a camera, started late every take (the demo).")
    var lateDevice: Int?

    /// The late device's clock, ppm.
    static let lateClockPPM = -47.0

    func run() throws {
        let rate = 48_000
        let frames = Int64(seconds * rate)
        var written = 0
        for device in 0..<devices {
            let folder = String(format: "%@/dev%03d/night%d", root, device, night)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            var deviceRandom = SplitMix64(seed: UInt64(device) &* 0x9E37_79B9 &+ 17)
            let steady = (deviceRandom.nextUnit() * 2 - 1) * 12 + addPPM
            var takeRandom = SplitMix64(seed: UInt64(device) &* 1_000_003 &+ UInt64(night) &* 7919 &+ 5)
            if device == lateDevice {
                written += try Self.lateTakes(folder: folder, takes: takes, seconds: seconds, night: night)
                continue
            }
            for take in 0..<takes {
                var ppm = steady + (takeRandom.nextUnit() * 2 - 1) * 0.5
                if night >= changeNight && device == 1 { ppm = steady + 80 }
                if night >= changeNight && device == 2 { ppm = steady + (takeRandom.nextUnit() * 2 - 1) * 15 }
                let base = "\(folder)/take\(take)"
                // The problems of the night, on device 3: a wrong pairing, an unreadable file, a lost reference.
                if device == 3 && take == 0 { ppm = -80_000 }
                if device == 3 && take == 1 {
                    try Data("not audio".utf8).write(to: URL(fileURLWithPath: base + ".wav"))
                    try "\(frames)@\(rate)\n".write(toFile: base + ".duration", atomically: false, encoding: .utf8)
                    continue
                }
                try Self.sparseWave(path: base + ".wav", frames: frames, rate: rate)
                written += 1
                if device == 3 && take == 2 { continue }
                // The reference lasts what the recording would have lasted on a perfect clock.
                let reference = (Double(frames) / (1 + ppm * 1e-6)).rounded()
                try "\(Int64(reference))@\(rate)\n".write(
                    toFile: base + ".duration", atomically: false, encoding: .utf8)
            }
        }
        print("night \(night): \(written) recordings under \(root)")
    }

    /// The late device's takes of one night: `takeM.wav` beside the camera's `takeM.mp4`.
    static func lateTakes(folder: String, takes: Int, seconds: Int, night: Int) throws -> Int {
        var random = SplitMix64(seed: 4242 &+ UInt64(night))
        for take in 0..<takes {
            var scene = TwoMicrophones(
                sampleRate: 48_000, seconds: Double(seconds), offset: 0.4 + 0.5 * random.nextUnit(),
                driftPPM: lateClockPPM, seed: 500 &+ UInt64(night * 100 + take))
            scene.referenceLength = scene.referenceTime(Double(seconds)) + 0.8 + 0.4 * random.nextUnit()
            try scene.writeCameraPair(folder: folder, name: "take\(take)")
        }
        return takes
    }

    /// A mono 16-bit WAV header for `frames`, and a hole where its samples would be.
    static func sparseWave(path: String, frames: Int64, rate: Int) throws {
        let dataBytes = UInt32(frames * 2)
        var header = Array("RIFF".utf8) + WaveBytes.le32(36 + dataBytes) + Array("WAVE".utf8)
        header += WaveBytes.format(channels: 1, bits: 16, rate: rate)
        header += Array("data".utf8) + WaveBytes.le32(dataBytes)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ValidationError("\(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let wrote = header.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard wrote == header.count, ftruncate(descriptor, off_t(header.count) + off_t(dataBytes)) == 0 else {
            throw ValidationError("\(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// Fills a journal with more runs like the newest report (each recording's drift nudged by up to ±0.3 ppm), through
/// the journal's own storePlan/finishRun, so that history queries can be timed at a fleet's size × 30 runs.
struct JournalFill: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal-fill", abstract: "Add runs like a report to a journal.")

    @Option(help: "The journal file.") var journal: String
    @Option(help: "A report.json whose pairs each run repeats.") var report: String
    @Option(help: "Runs to add.") var runs = 25
    @Option(help: "Finished runs whose plans are kept (journal.keep-runs).") var keepRuns = 3

    func run() throws {
        let base = try JSONDecoder().decode(ScanReport.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        let opened = try Journal(path: journal)
        var random = SplitMix64(seed: 42)
        let clock = ContinuousClock()
        var storeSeconds: [Double] = []
        for _ in 0..<runs {
            var copy = base
            for index in copy.pairs.indices {
                copy.pairs[index].driftPPM = copy.pairs[index].driftPPM.map { $0 + (random.nextUnit() - 0.5) * 0.6 }
            }
            let run = try opened.beginRun(roots: base.rootTexts, outputRoot: "/bench/fill")
            let started = clock.now
            try opened.storePlan(run: run, plan: RunPlan(report: copy, pairs: []), jobs: [])
            try opened.finishRun(run, status: .complete, succeeded: true, report: copy)
            try opened.prune(keepRuns: keepRuns)
            storeSeconds.append((clock.now - started).seconds)
        }
        let median = storeSeconds.sorted()[storeSeconds.count / 2]
        print(
            String(
                format: "added %d runs of %d pairs; store + finish + prune per run: median %.2f s", runs,
                base.pairs.count, median))
    }
}
