import ArgumentParser
import DriftAudio
import DriftCoordinator
import DriftCore
import DriftDSP
import DriftFixtures
import DriftJobs
import DriftJournal
import DriftKit
import DriftPlanning
import DriftSchema
import DriftTransport
import Foundation
import Logging
import Synchronization
import SystemPackage

/// `driftfix-bench`: helpers for scripts/bench.sh. Generates long test recordings and measures the converter
/// alone, in memory, so the pipeline's overhead shows as a ratio.
@main
struct DriftBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "driftfix-bench",
        abstract: "Benchmark helpers for driftfix (used by scripts/bench.sh).",
        subcommands: [
            Generate.self, ResampledSNR.self, ContentPair.self, ContentAccuracy.self, Raw.self, Signal.self,
            Distance.self, Stretch.self, Tree.self, Fleet.self, JournalFill.self, Dispatch.self, Chaos.self,
            MediaShares.self, SoundMatchSpeed.self, SoundIndexGrowth.self, ShootFolder.self, PlaybackFolder.self,
            MovieProbeSpeed.self,
            SlateFile.self, ConverterQuality.self,
        ]
    )
}

/// Writes a long multi-tone recording quickly (phasor rotation, exact phase at each block start).
struct Generate: ParsableCommand {
    /// The tones (cycles per sample, amplitude); channel c carries tone t at full amplitude when c and t have the same
    /// parity, at half otherwise.
    static let tones: [(cycles: Double, amplitude: Double)] = [
        (0.0092, 0.2), (0.0257, 0.15), (0.0731, 0.1), (0.2113, 0.05),
    ]

    static let configuration = CommandConfiguration(abstract: "Write a multi-tone test recording.")

    @Argument(help: "Output file (WAV).")
    var output: String
    @Option(help: "Length in seconds.")
    var seconds: Int = 3600
    @Option(help: "Sample rate.")
    var rate: Int = 48_000
    @Option(help: "Channels.")
    var channels: Int = 2

    func run() throws {
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: rate, channelCount: channels)
        let writer = try AudioFileWriter(path: output, format: format, metadata: AudioMetadata())
        let total = Int64(seconds) * Int64(rate)
        let block = 65_536
        let tones = Self.tones
        var buffer = [Float](repeating: 0, count: block * channels)
        var position: Int64 = 0
        while position < total {
            let count = Int(min(Int64(block), total - position))
            buffer.withUnsafeMutableBufferPointer { out in
                for i in 0..<(count * channels) { out[i] = 0 }
                for (c, tone) in tones.enumerated() {
                    let start = tone.cycles * Double(position)
                    let phase = 2 * Double.pi * (start - start.rounded(.down))
                    var (re, im) = (cos(phase), sin(phase))
                    let (stepRe, stepIm) = (cos(2 * Double.pi * tone.cycles), sin(2 * Double.pi * tone.cycles))
                    for i in 0..<count {
                        let value = Float(tone.amplitude * im)
                        for ch in 0..<channels { out[i * channels + ch] += ch % 2 == c % 2 ? value : 0.5 * value }
                        (re, im) = (re * stepRe - im * stepIm, re * stepIm + im * stepRe)
                    }
                }
            }
            try buffer.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: count) }
            position += Int64(count)
        }
        try writer.close()
    }
}

/// Times the converter alone on samples already in memory: no file reads or writes.
struct Raw: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure the converter's in-memory throughput.")

    @Argument(help: "Recording whose first --seconds are loaded into memory.")
    var input: String
    @Option(help: "Seconds of audio to load and convert.")
    var seconds: Int = 300
    @Option(help: "Output length / input length.")
    var ratio: String = "0.999869"
    @Option(help: "Converter quality.")
    var quality: String = "medium"
    @Option(help: "polyphase, soxr or libsamplerate.")
    var engine: String = "libsamplerate"

    func run() throws {
        guard let quality = ResampleQuality(rawValue: quality) else { throw ValidationError("bad quality") }
        guard let engine = ResampleEngine(rawValue: engine) else { throw ValidationError("bad engine") }
        let reader = try AudioFileReader(path: input)
        let frames = Int(min(reader.frameCount, Int64(seconds * reader.format.sampleRate)))
        let channels = reader.channelCount
        var samples = [Float](repeating: 0, count: frames * channels)
        var loaded = 0
        try samples.withUnsafeMutableBufferPointer { all in
            while loaded < frames {
                let n = try reader.read(into: all.baseAddress! + loaded * channels, frames: frames - loaded)
                if n == 0 { break }
                loaded += n
            }
        }
        let source = MemoryAudioSource(samples, channels: channels)
        let target = try Rational(parsing: ratio).multipliedRounded(by: Int64(frames)) ?? Int64(frames)
        let stage = try ExactLengthResampler(upstream: source, targetFrames: target, quality: quality, engine: engine)
        let block = 8192
        let out = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
        defer { out.deallocate() }
        let start = ContinuousClock.now
        var produced = 0
        while true {
            let n = try stage.read(into: out, frames: block)
            if n == 0 { break }
            produced += n
        }
        let elapsed = ContinuousClock.now - start
        let seconds = elapsed.seconds
        let audio = Double(frames) / Double(reader.format.sampleRate)
        print(String(format: "%.1f", audio / seconds))
    }
}

/// Writes a test signal with a known envelope (broadband or speech-like) for stretch comparisons.
struct Signal: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write an enveloped test signal (48 kHz float WAV).")

    @Argument var output: String
    @Option(help: "speech (harmonic, formants, f0 120 Hz) or broadband.")
    var kind: String = "speech"
    @Option var seconds: Int = 10
    @Option var channels: Int = 1

    func run() throws {
        let signal = EnvelopeSignal(
            length: Int64(seconds * 48_000), channelCount: channels, seed: 44,
            harmonicBase: kind == "speech" ? 120.0 / 48_000 : nil)
        let format = AudioFormat(container: .wav, encoding: .float32, sampleRate: 48_000, channelCount: channels)
        let writer = try AudioFileWriter(path: output, format: format, metadata: AudioMetadata())
        let samples = signal.recording()
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: Int(signal.length)) }
        try writer.close()
    }
}

/// Log-spectral distance between two files (compared over the shorter length).
struct Distance: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lsd", abstract: "Log-spectral distance in dB.")

    @Argument var first: String
    @Argument var second: String

    func run() throws {
        let (a, format, _) = try readAll(first)
        let (b, _, _) = try readAll(second)
        print(String(format: "%.2f", SpectralMeasure.logSpectralDistance(a, b, channels: format.channelCount)))
    }
}

/// Time-stretches a file with driftfix's WSOLA stage directly (no CLI), for quick experiments.
struct Stretch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stretch a file to a frame count (WSOLA).")

    @Argument var input: String
    @Argument var output: String
    @Option var frames: Int64
    @Option(help: "Window length in ms (default: the stretcher's).") var windowMs: Double?
    @Option(help: "Search tolerance in ms (default: the stretcher's).") var toleranceMs: Double?

    func run() throws {
        let reader = try AudioFileReader(path: input)
        let rate = Double(reader.format.sampleRate)
        var parameters = TimeStretcher.Parameters.default(
            sampleRate: reader.format.sampleRate, ratio: Double(frames) / Double(reader.frameCount))
        if let windowMs { parameters.frameLength = Int(rate * windowMs / 1000) & ~1 }
        if let toleranceMs { parameters.tolerance = Int(rate * toleranceMs / 1000) }
        let stage = try TimeStretcher(upstream: reader, targetFrames: frames, parameters: parameters)
        let writer = try AudioFileWriter(path: output, format: reader.format, metadata: AudioMetadata())
        let samples = try drain(stage)
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: Int(frames)) }
        try writer.close()
    }
}

/// Writes a tree of recording/reference pairs for scan benchmarks: small WAVs and box-built MP4s in device folders.
struct Tree: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a tree of pairs (tiny WAV + MP4) for scan benchmarks.")

    @Argument var root: String
    @Option var pairs: Int = 10_000
    @Option(help: "Pairs per folder.") var perFolder: Int = 100

    func run() throws {
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
        let samples = [Float](repeating: 0, count: 4800)
        var rng = SplitMix64(seed: 1)
        for index in 0..<pairs {
            let folder = root + "/device\(index / perFolder)"
            if index % perFolder == 0 {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            // Recording: 0.1 s at 48 kHz, give or take a few hundred ppm; reference: 0.1 s of 30000/1001 fps video.
            let frames = 4800 + Int(rng.next() % 5) - 2
            let writer = try AudioFileWriter(
                path: folder + "/take\(index).wav", format: format, metadata: AudioMetadata())
            try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: frames) }
            try writer.close()
            let movie =
                Boxes.ftyp().bytes
                + Box(
                    "moov",
                    children: [
                        Boxes.mvhd(timescale: 600, duration: 60),
                        Boxes.track(id: 1, handler: "vide", timescale: 30_000, duration: 3003, edits: [(60, 0)]),
                    ]
                ).bytes + Boxes.mdat(64).bytes
            try Data(movie).write(to: URL(fileURLWithPath: folder + "/take\(index).mp4"))
        }
    }
}

/// Dispatch overhead: a coordinator hands out no-op jobs to real worker processes over ZeroMQ and counts jobs/s. It
/// runs through the same `CoordinatorRuntime` as `driftfix repair` (services, ZAP handler, local worker pool).
struct Dispatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure dispatch throughput with no-op jobs.")

    @Option var jobs: Int = 20_000
    @Option var workers: Int = 2
    @Option(help: "Jobs each worker takes at once.") var capacity: Int = 64
    @Option(help: "The driftfix executable that runs the workers.") var driftfix: String
    @Option(help: "Record every transition in a journal at this path (a fresh file), as `driftfix repair` does.")
    var journal: String?
    @Flag(help: "Workers connect over loopback TCP with CURVE (keys made here, admitted by the ZAP handler).")
    var curve = false

    func run() async throws {
        let records = (1...jobs).map {
            JobRecord(
                id: $0, input: "/dev/null/\($0)", work: .noop(frames: 1), outputRoot: nil, inputRoots: nil,
                audioSeconds: 0, run: journal == nil ? nil : 1)
        }
        let store: JobStore
        if let journal {
            for suffix in ["", "-wal", "-shm", ".lock"] { unlink(journal + suffix) }
            let file = try Journal(path: journal)
            let run = try file.beginRun(roots: ["/bench"], outputRoot: "/")
            let report = ScanReport(generated: "", roots: [String](), pairs: [], unpaired: [], errors: [])
            try file.storePlan(run: run, plan: RunPlan(report: report, pairs: []), jobs: records)
            store = JournalJobStore(journal: file, run: run, jobs: records)
        } else {
            let memory = InMemoryJobStore()
            memory.add(records)
            store = memory
        }
        let logger = Logger(label: "bench")
        var settings = CoordinatorRuntime.Settings()
        settings.shutdownSignals = []
        var keyArguments: [String] = []
        let keyFolder = "/tmp/driftfix-bench-keys-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: keyFolder) }
        if curve {
            try FileManager.default.createDirectory(atPath: keyFolder + "/allow", withIntermediateDirectories: true)
            let server = try CurveKeyPair.generate()
            let worker = try CurveKeyPair.generate()
            try CurveKeyFile.write(server, name: "coordinator", folder: FilePath(keyFolder))
            try CurveKeyFile.write(worker, name: "worker", folder: FilePath(keyFolder))
            try FileManager.default.copyItem(atPath: keyFolder + "/worker.pub", toPath: keyFolder + "/allow/worker.pub")
            settings.admission = AdmissionPolicy(allowlist: keyFolder + "/allow")
            settings.transport = try TransportPolicy(
                binding: "tcp://127.0.0.1:\(Int.random(in: 20_000...59_000))",
                curve: (keyFolder + "/coordinator.key", keyFolder + "/allow"))
            keyArguments = [
                "--curve-secret", keyFolder + "/worker.key", "--server-key", keyFolder + "/coordinator.pub",
            ]
        }
        var pool = LocalWorkerPool.Settings(
            count: workers, endpoint: settings.transport?.endpoint ?? "", executable: driftfix,
            extraArguments: keyArguments)
        pool.capacity = capacity
        settings.pool = .local(pool)
        let started = Mutex<ContinuousClock.Instant?>(nil)
        let result = try await CoordinatorRuntime(settings: settings, logger: logger).run(
            store: store,
            onEvent: { event in
                if case .workerJoined = event { started.withLock { $0 = $0 ?? .now } }
            })
        let finished = ContinuousClock.now
        let seconds = (finished - (started.withLock { $0 } ?? finished)).seconds
        let rate = String(format: "%.2f s, %.0f jobs/s", seconds, Double(jobs) / seconds)
        let kind = (journal == nil ? "in-memory store" : "journal") + (curve ? ", CURVE over TCP" : ", ipc")
        print("\(jobs) no-op jobs to \(workers) workers (capacity \(capacity)), \(kind): \(rate) (\(result.outcome))")
    }
}
