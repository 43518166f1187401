import CSndFile
import DriftCore
import DriftFixtures
import Foundation
import Synchronization
import Testing

@testable import DriftAudio

private func openError(_ path: String) -> AudioError.Cause? {
    do {
        _ = try AudioFileReader(path: path)
        return nil
    } catch {
        #expect(error.path.pathText == path, "the error names the file")
        return error.cause
    }
}

/// A 16-bit stereo WAV of `frames` frames, named `name` in `folder`, cut to its first `bytes` bytes.
private func cutWAV(frames: Int64, to bytes: UInt64, _ name: String, in folder: TemporaryFolder) throws -> String {
    let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 2)
    let path = try writeRecording(TestSignal(channelCount: 2, length: frames), to: folder.file(name), format: format)
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.truncate(atOffset: bytes)
    try handle.close()
    return path
}

@Suite("Bad input files")
struct BadInputTests {
    @Test("missing, directory, empty, text, garbage")
    func unreadable() throws {
        let folder = TemporaryFolder()
        #expect(openError(folder.file("missing.wav")) == .notFound)
        #expect(openError(folder.path) == .isDirectory)
        #expect(FileManager.default.createFile(atPath: folder.file("empty.wav"), contents: Data()))
        #expect(openError(folder.file("empty.wav")) == .emptyFile)
        #expect(
            FileManager.default.createFile(atPath: folder.file("notes.wav"), contents: Data("hello, not audio\n".utf8)))
        if case .notAudio = openError(folder.file("notes.wav")) {} else { Issue.record("text file accepted") }
        var rng = SplitMix64(seed: 9)
        let noise = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) })
        #expect(FileManager.default.createFile(atPath: folder.file("noise.wav"), contents: noise))
        #expect(openError(folder.file("noise.wav")) != nil)
    }

    @Test("a header whose data size is larger than the file is refused as truncated")
    func truncated() throws {
        let folder = TemporaryFolder()
        let path = try cutWAV(frames: 48_000, to: 100_000, "t.wav", in: folder)
        guard case .truncated(let claimed, let available) = openError(path) else {
            Issue.record("truncated WAV accepted")
            return
        }
        #expect(claimed == 48_000)
        #expect(available < 25_000)
    }

    @Test("a header cut in the middle is refused as not audio, corrupt or truncated, naming the file, never a crash")
    func cutHeader() throws {
        let folder = TemporaryFolder()
        let path = try cutWAV(frames: 480, to: 30, "h.wav", in: folder)
        switch openError(path) {
        case .notAudio?, .corrupt?, .truncated?: break
        case .malformedChunk(let chunk)?:
            #expect(chunk.id == "fmt " && chunk.description.contains("remain in the file"), "\(chunk)")
        case let other: Issue.record("a cut header read as \(String(describing: other))")
        }
    }

    @Test("a file with a header and no frames")
    func noFrames() throws {
        let folder = TemporaryFolder()
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
        let writer = try AudioFileWriter(path: folder.file("z.wav"), format: format, metadata: AudioMetadata())
        try writer.close()
        #expect(openError(folder.file("z.wav")) == .noFrames)
    }

    @Test(
        "an unreadable file is 'permission denied', naming it: opened here as a user, or as root through a child that runs as nobody (setpriv)"
    )
    func permission() throws {
        let folder = TemporaryFolder()
        let path = try writeMonoWAV(frames: 480, to: folder.file("p.wav"))
        chmod(path, 0)
        guard getuid() == 0 else {
            #expect(openError(path) == .permissionDenied)
            return
        }
        // Root reads any file: the same open, by driftfix, as a user who may not.
        chmod(folder.path, 0o755)
        let child = try driftfixAsNobody(["verify", path, "--frames", "480"])
        #expect(child.status == 1, "\(child.stdout)\n\(child.stderr)")
        #expect(child.stderr.contains(path) && child.stderr.contains("permission denied"), "\(child.stderr)")
    }

    @Test("the writer never replaces an existing file")
    func exclusiveCreate() throws {
        let folder = TemporaryFolder()
        #expect(FileManager.default.createFile(atPath: folder.file("x.wav"), contents: Data("keep".utf8)))
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
        #expect(throws: AudioError.self) {
            _ = try AudioFileWriter(path: folder.file("x.wav"), format: format, metadata: AudioMetadata())
        }
        #expect(FileManager.default.contents(atPath: folder.file("x.wav")) == Data("keep".utf8))
    }
}

@Suite("Open failures named right while other files open on other threads")
struct ConcurrentOpenTests {
    @Test("a text file called .wav is 'not an audio file' every time, whatever other threads open at the same moment")
    func concurrentOpens() throws {
        let folder = TemporaryFolder()
        let good = try writeMonoWAV(frames: 4800, to: folder.file("good.wav"))
        try "not audio".write(toFile: folder.file("text.wav"), atomically: true, encoding: .utf8)
        let causes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            if i % 2 == 0 {
                _ = try? AudioFileReader(path: good)
            } else {
                do {
                    _ = try AudioFileReader(path: folder.file("text.wav"))
                    causes.withLock { $0.append("opened") }
                } catch let error as AudioError {
                    causes.withLock { $0.append("\(error.cause)") }
                } catch {
                    causes.withLock { $0.append("\(error)") }
                }
            }
        }
        let seen = causes.withLock { $0 }
        #expect(seen.count == 200)
        #expect(seen.allSatisfy { $0.hasPrefix("not an audio file") }, "\(Set(seen))")
    }

    @Test("a failed open whose error another open reset says its reason was lost, never 'No Error.'")
    func lostReason() {
        let lost = SndFile.openFailure(
            path: "/x/take.wav", SndFile.OpenError(code: Int32(SF_ERR_NO_ERROR), text: "No Error.", systemErrno: 0))
        #expect(lost.description.contains("/x/take.wav"))
        #expect(lost.description.contains("its reason was lost"), "\(lost)")
        #expect(!lost.description.contains("No Error."))
    }
}
