import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

private func recording(
    _ folder: TemporaryFolder, _ name: String = "take.wav", frames: Int64 = 48_000,
    rate: Int = 48_000, channels: Int = 2
) throws -> String {
    let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: rate, channelCount: channels)
    return try writeRecording(TestSignal(channelCount: channels, length: frames), to: folder.file(name), format: format)
}

/// A stereo 48 kHz WAV long enough to be cut into chunks on more than one thread, written as `long.wav`, and the
/// length the tests repair it to: 341 frames (-131 ppm) shorter.
private struct LongRecording {
    static let frames: Int64 = 2_600_017
    static let target = frames - 341
    let signal: TestSignal
    let path: String

    init(seed: UInt64, encoding: SampleEncoding, in folder: TemporaryFolder) throws {
        signal = TestSignal(channelCount: 2, length: Self.frames, seed: seed, tonesPerChannel: 4)
        path = try writeRecording(
            signal, to: folder.file("long.wav"),
            format: AudioFormat(container: .wav, encoding: encoding, sampleRate: 48_000, channelCount: 2))
    }
}

/// Whether this CPU runs the kernel's AVX-512 loop.
private let avx512 = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.contains(" avx512f") ?? false

@Suite("driftfix process and verify (the built binary)")
struct ProcessCommandTests {
    @Test("every command has --help", arguments: [[], ["process"], ["verify"]])
    func help(command: [String]) throws {
        let result = try driftfix(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE:"))
    }

    @Test("process --ratio, then verify: exact length, one summary line, exit 0")
    func processAndVerify() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        let result = try driftfix(["process", input, folder.file("out.wav"), "--ratio", "1.000131"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(result.stdout.contains("48000 -> 48006 frames"))
        let verify = try driftfix(["verify", folder.file("out.wav"), "--frames", "48006"])
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("48006 frames found, 48006 expected, difference 0: OK"))
        let mismatch = try driftfix(["verify", folder.file("out.wav"), "--frames", "48000"])
        #expect(mismatch.status == 1)
        #expect(mismatch.stdout.contains("difference 6: MISMATCH"))
    }

    @Test(
        "the kernel's 16-lane loop writes the 8-lane loop's output bit for bit, at every quality (72, 80 and 96 taps and more below 1), mono and stereo",
        .enabled(if: avx512, "this CPU has no AVX-512"))
    func wideRegisters() throws {
        let folder = TemporaryFolder()
        for (channels, quality, target) in [
            (2, "fast", "47994"), (2, "medium", "47994"), (2, "best", "48100"), (1, "medium", "47000"),
            (2, "fast", "47500"),
        ] {
            let name = "in\(channels).wav"
            let input =
                FileManager.default.fileExists(atPath: folder.file(name))
                ? folder.file(name) : try recording(folder, name, channels: channels)
            var outputs: [Data] = []
            for environment in [[:], ["DRIFTFIX_NO_AVX512": "1"]] {
                let output = folder.file("out-\(outputs.count).wav")
                try? FileManager.default.removeItem(atPath: output)
                let result = try driftfix(
                    ["process", input, output, "--to-frames", target, "--engine", "polyphase", "--quality", quality],
                    environment: environment)
                #expect(result.status == 0, "\(result.stderr)")
                outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
            }
            #expect(outputs[0] == outputs[1], "\(channels) ch, \(quality), to \(target) frames")
        }
    }

    @Test("--match takes the reference's duration, converting between sample rates")
    func matchReference() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder, frames: 47_990)
        // The reference: exactly 1 s at 44.1 kHz, so the target is 48,000 frames at the recording's 48 kHz.
        let reference = try recording(folder, "ref.wav", frames: 44_100, rate: 44_100, channels: 1)
        let result = try driftfix(["process", input, folder.file("out.wav"), "--match", reference, "--quality", "best"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == 48_000)
        #expect(try driftfix(["verify", folder.file("out.wav"), "--match", reference]).status == 0)
        #expect(try driftfix(["verify", input, "--match", reference]).status == 1)
    }

    @Test("--to-seconds and --to-frames")
    func explicitTargets() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        #expect(try driftfix(["process", input, folder.file("a.wav"), "--to-seconds", "1.0005"]).status == 0)
        #expect(try AudioFileReader(path: folder.file("a.wav")).frameCount == 48_024)
        #expect(
            try driftfix(["process", input, folder.file("b.wav"), "--to-frames", "52800", "--quality", "fast"]).status
                == 0)
        #expect(try AudioFileReader(path: folder.file("b.wav")).frameCount == 52_800)
    }

    @Test(
        "usage errors exit 2",
        arguments: [
            ["process", "a.wav", "b.wav"],
            ["process", "a.wav", "b.wav", "--ratio", "1.1", "--to-frames", "10"],
            ["process", "a.wav", "b.wav", "--ratio", "abc"],
            ["process", "a.wav", "b.wav", "--to-seconds", "-3"],
            ["process", "a.wav", "b.wav", "--ratio", "1.1", "--quality", "ultra"],
            ["verify", "a.wav"],
            ["nonsense"],
        ])
    func usageErrors(arguments: [String]) throws {
        let result = try driftfix(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
    }

    @Test("each bad input gives one line naming the file and the cause, exit 1, nothing written")
    func badInputs() throws {
        let folder = TemporaryFolder()
        let good = try recording(folder, "good.wav")
        #expect(FileManager.default.createFile(atPath: folder.file("empty.wav"), contents: Data()))
        #expect(
            FileManager.default.createFile(atPath: folder.file("text.wav"), contents: Data("not audio at all\n".utf8)))
        try FileManager.default.createDirectory(atPath: folder.file("dir.wav"), withIntermediateDirectories: false)
        let truncated = try recording(folder, "truncated.wav")
        let handle = try #require(FileHandle(forUpdatingAtPath: truncated))
        try handle.truncate(atOffset: 20_000)
        try handle.close()
        let header = try recording(folder, "header.wav")
        let headerHandle = try #require(FileHandle(forUpdatingAtPath: header))
        try headerHandle.truncate(atOffset: 20)
        try headerHandle.close()
        // A WAV carrying a codec libsndfile does not decode (WMA, format tag 0x0161).
        var wma = Data("RIFF".utf8)
        let fmt: [UInt8] = [0x61, 0x01, 2, 0, 0x80, 0xBB, 0, 0, 0, 0xEE, 2, 0, 4, 0, 16, 0]
        let body =
            Data("WAVEfmt ".utf8) + Data([16, 0, 0, 0] + fmt) + Data("data".utf8) + Data([0, 16, 0, 0])
            + Data(count: 4096)
        wma += withUnsafeBytes(of: UInt32(body.count).littleEndian) { Data($0) } + body
        #expect(FileManager.default.createFile(atPath: folder.file("wma.wav"), contents: wma))
        let zeroFormat = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
        try AudioFileWriter(path: folder.file("zero.wav"), format: zeroFormat, metadata: AudioMetadata()).close()

        let cases: [(input: String, output: String, cause: String)] = [
            (folder.file("missing.wav"), folder.file("o1.wav"), "no such file"),
            (folder.file("dir.wav"), folder.file("o2.wav"), "is a directory"),
            (folder.file("empty.wav"), folder.file("o3.wav"), "empty file"),
            (folder.file("text.wav"), folder.file("o4.wav"), "not an audio file"),
            (truncated, folder.file("o5.wav"), "truncated"),
            (header, folder.file("o6.wav"), "its 'fmt ' chunk (before the audio) states 16 bytes, but 0 remain"),
            (folder.file("zero.wav"), folder.file("o7.wav"), "no audio frames"),
            (folder.file("wma.wav"), folder.file("o9.wav"), "fmt"),
            (good, folder.file("no/such/dir/o8.wav"), "destination folder does not exist"),
            (good, good, "refusing to write over the input"),
        ]
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let goodPrint = fingerprint(good)
        for item in cases {
            let result = try driftfix(["process", item.input, item.output, "--ratio", "1.001"])
            #expect(result.status == 1, "\(item.input)")
            #expect(result.errorLines.count == 1, "one line: \(result.stderr)")
            let line = result.errorLines.first ?? ""
            #expect(line.contains(item.cause), "\(line)")
            #expect(line.contains(item.input) || line.contains(item.output), "names the file: \(line)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
        #expect(fingerprint(good) == goodPrint)
    }

    @Test(
        "a full disk: one line, exit 1, no partial output",
        .enabled(if: TmpfsMount.available, "needs root to mount a tmpfs"))
    func diskFull() throws {
        let folder = TemporaryFolder()
        let disk = try TmpfsMount(kibibytes: 128)
        let input = try recording(folder, frames: 96_000)
        let result = try driftfix(["process", input, disk.file("out.wav"), "--ratio", "1.0001"])
        #expect(result.status == 1)
        #expect(result.errorLines == ["driftfix: \(disk.file("out.wav")): disk full (no space left on device)"])
        #expect(disk.entries().isEmpty)
    }
}

@Suite("driftfix process: stretch and edits (the built binary)")
struct ProcessEditCommandTests {
    @Test(
        "bad values are refused before any work, naming the option",
        arguments: [
            (["--fade-in", "-1"], "--fade-in", 2),
            (["--fade-out", "x"], "--fade-out", 2),
            (["--tempo", "2.5"], "--tempo", 2),
            (["--tempo", "0.4"], "--tempo", 2),
            (["--rate", "0"], "--rate", 2),
            (["--trim", "5"], "--trim", 2),
            (["--trim", "0.5:9"], "--trim", 1),
            (["--fade-in", "3"], "--fade-in", 1),
            (["--ratio", "3", "--method", "stretch"], "--method stretch", 1),
            (["--tempo", "1.5", "--ratio", "1.1"], "--tempo", 2),
        ])
    func refusals(arguments: [String], option: String, status: Int32) throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        let result = try driftfix(["process", input, folder.file("out.wav")] + arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(option), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.wav")))
        #expect(folder.entries() == ["take.wav"], "no temporary files")
    }

    @Test("stretch, tempo and edits run in one pass and say which method ran and why")
    func stretchAndEdits() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder, frames: 96_000)
        let tempo = try driftfix(["process", input, folder.file("t.wav"), "--tempo", "1.25"])
        #expect(tempo.status == 0, "\(tempo.stderr)")
        #expect(tempo.stdout.contains("stretch (--tempo)"))
        #expect(try AudioFileReader(path: folder.file("t.wav")).frameCount == 76_800)
        let edit = try driftfix([
            "process", input, folder.file("e.wav"), "--ratio", "1001/1000", "--method", "stretch",
            "--trim", "0.25:", "--fade-in", "0.1", "--fade-out", "0.1", "--fade-curve", "equal-power",
            "--rate", "44100", "--reverse",
        ])
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(edit.stdout.contains("stretch (--method)"))
        // 1.75 s used (84,000 frames) × 1.001 at 44.1 kHz = 77,252.175 frames → 77,252.
        #expect(try AudioFileReader(path: folder.file("e.wav")).frameCount == 77_252)
    }

    @Test("a config rule picks stretch for matching paths; a broken config is exit 2 with line and key")
    func configRules() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("recorder-B"), withIntermediateDirectories: true)
        let input = try recording(folder, "recorder-B/take.wav")
        let config = folder.file("driftfix.yaml")
        try "repair:\n  rules:\n    - match: \"**/recorder-B/**\"\n      method: stretch\n      reason: drops buffers\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let result = try driftfix(["process", input, folder.file("out.wav"), "--ratio", "1.01", "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("stretch (config rule \"**/recorder-B/**\": drops buffers)"), "\(result.stdout)")
        let override = try driftfix([
            "process", input, folder.file("out2.wav"), "--ratio", "1.01", "--config", config, "--method", "resample",
        ])
        #expect(override.stdout.contains("resample (--method)"))
        try "repair:\n  metod: stretch\n".write(toFile: config, atomically: true, encoding: .utf8)
        let broken = try driftfix(["process", input, folder.file("out3.wav"), "--ratio", "1.01", "--config", config])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("driftfix.yaml:2: repair.metod: unknown key"), "\(broken.stderr)")
    }
}

@Suite("driftfix process on every core (the built binary)")
struct ParallelProcessTests {
    @Test(
        "a long file at -131 ppm with --threads 2 (cut into chunks, joined as one pass) against --threads 1: the exact length, the same samples within a 24-bit step, and against the ideal"
    )
    func threadsMatchOnePass() throws {
        let folder = TemporaryFolder()
        let long = try LongRecording(seed: 5, encoding: .float32, in: folder)
        let target = LongRecording.target
        for threads in ["1", "2"] {
            let result = try driftfix([
                "process", long.path, folder.file("out-\(threads).wav"), "--to-frames", "\(target)",
                "--threads", threads, "-q",
            ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let one = try readAll(folder.file("out-1.wav"))
        let two = try readAll(folder.file("out-2.wav"))
        #expect(one.frames == target && two.frames == target)
        let worst = zip(one.samples, two.samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-5, "largest difference between the one-pass and the split output: \(worst)")
        let start = 1 << 20 - 4096
        let ideal = long.signal.ideal(target: target, start: Int64(start), count: 8192)
        #expect(SignalMeasure.snr(actual: Array(two.samples[(start * 2)..<((start + 8192) * 2)]), ideal: ideal) > 100)
    }

    @Test(
        "a long compressed input on every core: decoded once, in one pass, exact (split readers would need libsndfile to read AAC)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg to make the AAC"))
    func compressedInputOnEveryCore() throws {
        let folder = TemporaryFolder()
        let frames: Int64 = 1_800_000  // 37.5 s: long enough to be cut into chunks were it a WAV
        let signal = TestSignal(channelCount: 2, length: frames, seed: 7, tonesPerChannel: 3)
        let wav = try writeRecording(
            signal, to: folder.file("long.wav"),
            format: AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 2))
        let encoded = try runChild(
            "/usr/bin/ffmpeg",
            ["-loglevel", "error", "-i", wav, "-c:a", "aac", "-b:a", "192k", folder.file("long.m4a")])
        try #require(encoded.status == 0, "\(encoded.stderr)")
        let target = frames - 236
        let result = try driftfix([
            "process", folder.file("long.m4a"), folder.file("fixed.wav"), "--to-frames", "\(target)",
            "--threads", "2", "-q",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try AudioFileReader(path: folder.file("fixed.wav")).frameCount == target)
    }

    @Test(
        "pinned to one CPU (taskset): the default run makes the same 24-bit output, byte for byte, as a two-core run told to use one thread, exactly the target length and within 100 dB of the ideal",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset"), "needs util-linux's taskset"))
    func oneCore() throws {
        let folder = TemporaryFolder()
        let long = try LongRecording(seed: 6, encoding: .pcm24, in: folder)
        let target = LongRecording.target
        let both = try driftfix([
            "process", long.path, folder.file("both.wav"), "--to-frames", "\(target)", "--threads", "1", "-q",
        ])
        #expect(both.status == 0, "\(both.stderr)")
        let pinned = try runChild(
            "/usr/bin/taskset",
            [
                "-c", "0", driftfixPath(), "process", long.path, folder.file("one.wav"),
                "--to-frames", "\(target)", "-q",
            ])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        let one = try #require(FileManager.default.contents(atPath: folder.file("one.wav")))
        let two = try #require(FileManager.default.contents(atPath: folder.file("both.wav")))
        #expect(one == two, "the pinned run's output differs from the two-core one-pass output")
        #expect(try AudioFileReader(path: folder.file("one.wav")).frameCount == target)
        let samples = try readAll(folder.file("one.wav")).samples
        let ideal = long.signal.ideal(target: target, start: 1_000_000, count: 8192)
        #expect(SignalMeasure.snr(actual: Array(samples[2_000_000..<(2_000_000 + 8192 * 2)]), ideal: ideal) > 100)
    }
}
