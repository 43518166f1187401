import Benchmark
import DriftCoordinator
import DriftCore
import DriftDSP
import DriftFixtures
import DriftJobs
import DriftMedia
import DriftReports
import DriftRules
import DriftSchema
import DriftSync
import DriftWire
import Foundation

// Counted, not timed: allocations and peak memory for one unit of each hot path. These repeat from run to run on a
// busy machine, where wall-clock times do not; Thresholds/ holds the committed figures and `scripts/bench-counts.sh`
// fails on a regression beyond the tolerance below. (Instruction counts need the CPU's performance counters, which
// the virtual machines here do not expose; wall-clock ratios to ffmpeg and sox stay in scripts/bench.sh.) The names
// are the threshold files' names: kernel = 60 s of 48 kHz stereo through the default engine (polyphase, medium);
// segmented-soxr = 54 s through libsoxr on two threads (chunks of about 8 MiB: its peak holds what is in flight);
// soundprint = the print of 60 s; scan = 200 pairs of WAV headers and sidecars; json-report = 1,000 rows;
// dispatcher = 1,000 jobs handed to two workers of four slots and answered.
let benchmarks: @Sendable () -> Void = {
    // A deviation beyond either of a metric's tolerances fails the check. The counts of the large benchmarks move by
    // a few allocations from run to run (the harness samples memory on a thread of its own), so they have a relative
    // tolerance; the kernel and the print allocate per file, not per block, so theirs is absolute: an allocation in
    // a per-block loop adds hundreds in 60 s of audio.
    let perRow = BenchmarkThresholds(relative: [.p90: 2])
    let perFile = BenchmarkThresholds(absolute: [.p90: 100])
    let memory = BenchmarkThresholds(relative: [.p90: 15])
    func configuration(_ counted: BenchmarkThresholds) -> Benchmark.Configuration {
        .init(
            metrics: [.mallocCountTotal, .peakMemoryResident], warmupIterations: 1, maxDuration: .seconds(2),
            maxIterations: 10, thresholds: [.mallocCountTotal: counted, .peakMemoryResident: memory])
    }

    // The scan's and the report's folders go when the benchmarks end.
    Benchmark.teardown = { try? FileManager.default.removeItem(atPath: Work.scratch) }

    Benchmark("kernel-60s-48k-stereo", configuration: configuration(perFile)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try Work.resample(seconds: 60)) }
    }
    Benchmark("segmented-soxr-54s-48k-stereo", configuration: configuration(perFile)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try Work.segmented()) }
    }
    Benchmark("soundprint-60s-48k-stereo", configuration: configuration(perFile)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try Work.soundPrint(seconds: 60)) }
    }
    Benchmark("scan-200-pairs", configuration: configuration(perRow)) { benchmark, folder in
        for _ in benchmark.scaledIterations { blackHole(Work.scan(folder)) }
    } setup: {
        try Work.makeFolder(pairs: 200)
    }
    Benchmark("json-report-1000-rows", configuration: configuration(perRow)) { benchmark, report in
        for _ in benchmark.scaledIterations { blackHole(try Work.json(report)) }
    } setup: {
        try Work.report(rows: 1_000)
    }
    Benchmark("dispatcher-1000-jobs", configuration: configuration(perRow)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(Work.dispatch(jobs: 1_000)) }
    }
}

/// The unit of work each benchmark repeats.
enum Work {
    static let rate = 48_000
    /// Where the benchmarks write their folders: one per process, removed by the teardown.
    static let scratch = NSTemporaryDirectory() + "driftfix-bench-\(getpid())"

    static func signal(seconds: Int) -> TestSignal {
        TestSignal(channelCount: 2, length: Int64(seconds * rate), seed: 7)
    }

    /// Resamples to 131 ppm short, as a slow recorder clock needs, and reads every frame.
    static func resample(seconds: Int) throws -> Int {
        let source = SignalSource(signal(seconds: seconds))
        let target = source.frameCount - source.frameCount * 131 / 1_000_000
        let resampler = try ExactLengthResampler(
            upstream: source, targetFrames: target, quality: .default, engine: .polyphase)
        return try drain(resampler)
    }

    /// Reads every frame.
    static func drain(_ resampler: AudioSource) throws -> Int {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 8_192 * 2)
        defer { buffer.deallocate() }
        var total = 0
        while case let frames = try resampler.read(into: buffer, frames: 8_192), frames > 0 { total += frames }
        return total
    }

    /// 2,600,017 frames to 131 ppm short through libsoxr, cut into three chunks converted on two threads.
    static func segmented() throws -> Int {
        let signal = TestSignal(channelCount: 2, length: 2_600_017, seed: 7)
        guard
            let resampler = SegmentedResampler.make(
                open: { SignalSource(signal) }, range: 0..<signal.length, channelCount: 2,
                targetFrames: signal.length - 341, quality: .default, engine: .soxr, threads: 2)
        else { throw CocoaError(.featureUnsupported) }
        return try drain(resampler)
    }

    static func soundPrint(seconds: Int) throws -> SoundPrint {
        let signal = signal(seconds: seconds)
        return try SoundPrint.make(MeasuredInput(path: "bench", sampleRate: rate) { SignalSource(signal) })
    }

    /// A folder of `pairs` one-second WAVs, each with a duration sidecar 131 ppm longer.
    static func makeFolder(pairs: Int) throws -> String {
        let folder = scratch + "/night\(pairs)/cam1"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let wave = Data(WaveBytes.file(channels: 2, audio: WaveBytes.pcm16(signal(seconds: 1))))
        for index in 0..<pairs {
            try wave.write(to: URL(fileURLWithPath: "\(folder)/take\(index).wav"))
            try Data("48006@48000\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/take\(index).duration"))
        }
        return folder
    }

    static func scan(_ folder: String) -> ScanReport {
        DriftScanner.scan(roots: [folder], rules: PairingRules(), generated: Date(timeIntervalSince1970: 0))
    }

    static func report(rows: Int) throws -> ScanReport {
        let folder = try makeFolder(pairs: 50)
        var report = scan(folder)
        let template = report.pairs
        report.pairs = (0..<rows).map { index in
            var row = template[index % template.count]
            row.recordingText = "/media/night1/cam\(index % 9)/take\(index).wav"
            return row
        }
        return report
    }

    static func json(_ report: ScanReport) throws -> Int {
        var bytes = 0
        try ReportWriter.writeJSON(report) { bytes += $0.count }
        return bytes
    }

    /// Two workers of four slots each take every job and answer each at once.
    static func dispatch(jobs count: Int) -> Int {
        let store = InMemoryJobStore()
        store.add(
            (1...count).map { JobRecord.headerRepair(id: $0, audioSeconds: Double($0 % 300)) })
        let dispatcher = Dispatcher(store: store)
        var pending: [(String, JobSpec)] = []
        for worker in ["a", "b"] {
            let hello = WireMessage.hello(
                WorkerHello(worker: worker, capacity: 4, software: "driftfix", host: "h", pid: 1))
            pending += jobs(dispatcher.received(hello, from: worker, at: 0))
        }
        var done = 0
        var now = 0.0
        while let (worker, spec) = pending.popLast() {
            now += 0.001
            let result = JobResult(
                id: spec.id, attempt: spec.attempt, worker: worker, seconds: 0.1,
                outcome: .repaired(WrittenOutput(frames: 48_000, checksum: "c")))
            pending += jobs(dispatcher.received(.result(result), from: worker, at: now))
            done += 1
        }
        return done
    }

    private static func jobs(_ messages: [(String, WireMessage)]) -> [(String, JobSpec)] {
        messages.compactMap { peer, message in
            if case .job(let spec) = message { return (peer, spec) }
            return nil
        }
    }
}
