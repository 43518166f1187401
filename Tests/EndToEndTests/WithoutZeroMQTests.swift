import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

/// libzmq, hidden where this machine can (see `HiddenLibrary`).
private let libzmq = HiddenLibrary("libzmq")

/// libzmq is loaded at first use, not linked: a local repair never maps it (nor its dozen dependencies), and a host
/// without it still repairs files; what needs ZeroMQ fails with one line naming the library.
@Suite("Without libzmq: local repairs as before, ZeroMQ's commands one clear line")
struct WithoutZeroMQTests {
    @Test("a WAV repair with libzmq unloadable: exact, verified, exit 0", .enabled(if: libzmq != nil, "needs root"))
    func repairWithoutZeroMQ() throws {
        let folder = TemporaryFolder()
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        let input = try writeRecording(
            TestSignal(channelCount: 2, length: 96_000), to: folder.file("take.wav"), format: format)
        let result = try #require(libzmq).driftfix(["process", input, folder.file("out.wav"), "--to-frames", "95987"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == 95_987)
    }

    @Test(
        "keygen with libzmq unloadable: exit 1, one line naming libzmq, no key written",
        .enabled(if: libzmq != nil, "needs root"))
    func keygenWithoutZeroMQ() throws {
        let folder = TemporaryFolder()
        let result = try #require(libzmq).driftfix(["keygen", "night", "--out", folder.path])
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1, "\(result.stderr)")
        #expect(result.errorLines.first?.contains("libzmq") == true, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // The same command with the library there: the failure above was its absence.
        let normal = try driftfix(["keygen", "night", "--out", folder.path])
        #expect(normal.status == 0, "\(normal.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.file("night.key")))
    }
}
