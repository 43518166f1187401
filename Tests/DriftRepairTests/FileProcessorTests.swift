import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftRepair

@Suite("One-file repair")
struct FileProcessorTests {
    @Test(
        "a drifted 24-bit BWF is repaired to the reference length, aligned, with its metadata, on either engine",
        arguments: ResampleEngine.allCases)
    func repairBroadcastWave(engine: ResampleEngine) throws {
        let folder = TemporaryFolder()
        let length: Int64 = 240_000  // 5 s at 48 kHz
        let signal = TestSignal(channelCount: 2, length: length, seed: 21)
        let bext = BroadcastInfo(
            description: "take 4", originator: "recorder A", timeReference: 1_728_000_000,
            codingHistory: "A=PCM,F=48000,W=24,M=stereo,T=recorder\r\n")
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        let input = try writeRecording(
            signal, to: folder.file("take4.wav"), format: format,
            metadata: AudioMetadata(tags: [.title: "take 4"], broadcastInfo: bext))
        let before = fingerprint(input)
        // The reference: 5 s of video at 48 kHz plus 131 ppm (the recorder's clock ran slow).
        let target: Int64 = 240_031
        var request = ProcessRequest(
            input: input, output: folder.file("fixed.wav"), target: .frames(target),
            quality: .best)
        request.engine = engine
        let result = try FileProcessor.run(request)

        #expect(result.outputFrames == target)
        #expect(fingerprint(input) == before, "the input is never modified")
        #expect(folder.entries() == ["fixed.wav", "take4.wav"], "no temporary file is left")
        let (samples, found, frames) = try readAll(folder.file("fixed.wav"))
        #expect(frames == target)
        #expect(found == format)
        let ideal = signal.ideal(target: target, start: 0, count: Int(target))
        let snr = SignalMeasure.snr(actual: samples, ideal: ideal)
        // Measured: 119.7 dB through two 24-bit quantisations (141 dB in float), on either engine; the issue asks for 90.
        #expect(snr > 110, "SNR \(snr) dB (24-bit output, \(engine))")
        let window = 4096
        for start in [0, Int(target) - window] {
            let lag = SignalMeasure.lag(
                actual: Array(samples[start * 2..<(start + window) * 2]),
                ideal: Array(ideal[start * 2..<(start + window) * 2]), channels: 2)
            #expect(abs(lag) <= 0.5, "lag \(lag) at frame \(start)")
        }
        let metadata = try AudioFileReader(path: folder.file("fixed.wav")).metadata()
        #expect(metadata.tags[.title] == "take 4")
        #expect(metadata.broadcastInfo?.timeReference == 1_728_000_000, "the first sample's time of day is unchanged")
        #expect(metadata.broadcastInfo?.originator == "recorder A")
        let named = engine == .libsamplerate ? "" : " (\(engine.rawValue))"
        #expect(
            metadata.broadcastInfo?.codingHistory.contains(
                "T=driftfix resample (default), best quality\(named); 240000 to 240031 frames") == true,
            "the coding history names the converter: \(metadata.broadcastInfo?.codingHistory ?? "")")
    }

    @Test(
        "every container and sample format keeps its shape and gets the exact length",
        arguments: [
            (AudioContainer.wav, SampleEncoding.pcm16, 1), (.wav, .float64, 2), (.wavex, .pcm24, 6), (.rf64, .pcm32, 2),
            (.w64, .float32, 2), (.aiff, .pcm24, 2), (.caf, .pcm16, 2), (.flac, .pcm24, 2), (.ogg, .vorbis, 2),
            (.ogg, .opus, 1), (.mpeg, .mp3, 2),
        ])
    func formats(container: AudioContainer, encoding: SampleEncoding, channels: Int) throws {
        let folder = TemporaryFolder()
        let signal = TestSignal(channelCount: channels, length: 48_000, seed: 4, maxCyclesPerSample: 0.2)
        let format = AudioFormat(container: container, encoding: encoding, sampleRate: 48_000, channelCount: channels)
        let input = try writeRecording(signal, to: folder.file("in"), format: format)
        let ratio = Rational(1000, 1001)
        let result = try FileProcessor.run(
            ProcessRequest(input: input, output: folder.file("out"), target: .ratio(ratio)))
        let expected = try #require(ratio.multipliedRounded(by: 48_000))
        #expect(result.outputFrames == expected)
        let reopened = try AudioFileReader(path: folder.file("out"))
        #expect(reopened.frameCount == expected)
        #expect(reopened.format == format)
    }

    @Test("a length that already matches is copied sample for sample")
    func copyWhenInSync() throws {
        let folder = TemporaryFolder()
        let signal = TestSignal(channelCount: 2, length: 10_000, seed: 8)
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 44_100, channelCount: 2)
        let input = try writeRecording(signal, to: folder.file("a.wav"), format: format)
        let result = try FileProcessor.run(
            ProcessRequest(input: input, output: folder.file("b.wav"), target: .frames(10_000)))
        #expect(result.method == "copy")
        #expect(try readAll(input).samples == readAll(folder.file("b.wav")).samples)
    }

    @Test("refuses to write over its input, leaves it intact")
    func refusesInputAsOutput() throws {
        let folder = TemporaryFolder()
        let input = try writeMonoWAV(frames: 4800, to: folder.file("a.wav"))
        let before = fingerprint(input)
        for output in [input, folder.path + "/./a.wav"] {
            #expect(throws: AudioError(path: output, cause: .wouldOverwriteInput)) {
                try FileProcessor.run(ProcessRequest(input: input, output: output, target: .frames(4801)))
            }
        }
        #expect(fingerprint(input) == before)
        #expect(folder.entries() == ["a.wav"])
    }

    @Test("a missing destination folder is refused before any work")
    func missingDestination() throws {
        let folder = TemporaryFolder()
        let input = try writeMonoWAV(frames: 4800, to: folder.file("a.wav"))
        let output = folder.file("nowhere/b.wav")
        #expect(throws: AudioError(path: output, cause: .destinationMissing)) {
            try FileProcessor.run(ProcessRequest(input: input, output: output, target: .frames(4801)))
        }
    }

    @Test(
        "a full disk fails with a clear cause and leaves no partial output",
        .enabled(if: TmpfsMount.available, "needs root to mount a tmpfs"))
    func diskFull() throws {
        let folder = TemporaryFolder()
        let disk = try TmpfsMount(kibibytes: 256)
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        // 2 s of 24-bit stereo is 576 kB: it cannot fit in 256 KiB.
        let input = try writeRecording(
            TestSignal(channelCount: 2, length: 96_000), to: folder.file("a.wav"), format: format)
        let before = fingerprint(input)
        let output = disk.file("b.wav")
        #expect(throws: AudioError(path: output, cause: .diskFull)) {
            try FileProcessor.run(ProcessRequest(input: input, output: output, target: .frames(96_013)))
        }
        #expect(disk.entries().isEmpty, "no partial output and no temporary file")
        #expect(fingerprint(input) == before)
    }

    @Test("a read-only destination is refused", .enabled(if: TmpfsMount.available, "needs root to mount a tmpfs"))
    func readOnlyDestination() throws {
        let folder = TemporaryFolder()
        let disk = try TmpfsMount(kibibytes: 64, readOnly: true)
        let input = try writeMonoWAV(frames: 4800, to: folder.file("a.wav"))
        do {
            _ = try FileProcessor.run(ProcessRequest(input: input, output: disk.file("b.wav"), target: .frames(4801)))
            Issue.record("wrote to a read-only file system")
        } catch let error as AudioError {
            #expect(error.path.pathText == disk.file("b.wav"))
            if case .destinationNotWritable = error.cause {} else { Issue.record("cause: \(error.cause)") }
        }
    }
}
