import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

/// libavformat, hidden where this machine can (see `HiddenLibrary`).
private let libavformat = HiddenLibrary("libavformat")

/// FFmpeg's libraries are loaded at first use, not linked: a WAV repair never maps them, and a host without them
/// still repairs every file libsndfile reads; a compressed input there fails alone, with one line naming it.
@Suite("Without FFmpeg's libraries: WAV repairs as before, a compressed input is one clear line")
struct WithoutFFmpegTests {
    @Test(
        "a WAV repair with libavformat unloadable: exact, verified, exit 0",
        .enabled(if: libavformat != nil, "needs root"))
    func wavWithoutFFmpeg() throws {
        let folder = TemporaryFolder()
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        let input = try writeRecording(
            TestSignal(channelCount: 2, length: 96_000), to: folder.file("take.wav"), format: format)
        let result = try #require(libavformat).driftfix([
            "process", input, folder.file("out.wav"), "--to-frames", "95987",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == 95_987)
    }

    @Test(
        "an AAC input with libavformat unloadable: exit 1, one line naming the file and the cause, nothing written",
        .enabled(
            if: libavformat != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"),
            "needs root and ffmpeg"))
    func compressedWithoutFFmpeg() throws {
        let folder = TemporaryFolder()
        let input = folder.file("take.m4a")
        _ = try runTool(
            "/usr/bin/ffmpeg",
            ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=f=440:d=2", "-c:a", "aac", input])
        let output = folder.file("out.m4a")
        let result = try #require(libavformat).driftfix(["process", input, output, "--ratio", "1.0001"])
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1, "\(result.stderr)")
        let line = result.errorLines.first ?? ""
        #expect(line.contains("take.m4a") && line.contains("FFmpeg's libraries could not be loaded"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // The same file with the libraries there: the failure above was theirs, not the file's.
        let normal = try driftfix(["process", input, output, "--ratio", "1.0001"])
        #expect(normal.status == 0, "\(normal.stderr)")
    }
}
