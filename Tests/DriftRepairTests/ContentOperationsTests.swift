import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftRepair

/// A content repair's operations (start offset, dropouts, rate) through the whole chain, on files.
@Suite struct ContentOperationsTests {
    func recording(_ folder: TemporaryFolder, frames: Int64 = 96000, encoding: SampleEncoding = .pcm24) throws -> String
    {
        let signal = TestSignal(channelCount: 2, length: frames, seed: 11)
        let format = AudioFormat(container: .wav, encoding: encoding, sampleRate: 48000, channelCount: 2)
        return try writeRecording(signal, to: folder.file("in.wav"), format: format)
    }

    func run(_ input: String, _ operations: [RepairOperation], _ folder: TemporaryFolder) throws -> ProcessResult {
        var request = ProcessRequest(input: input, output: folder.file("out.wav"), target: nil)
        request.operations = operations
        return try FileProcessor.run(request)
    }

    @Test("pad, re-insert, and the recorded samples stay bit for bit", arguments: [SampleEncoding.pcm16, .pcm24])
    func padAndInsert(encoding: SampleEncoding) throws {
        let folder = TemporaryFolder()
        let input = try recording(folder, encoding: encoding)
        let result = try run(
            input,
            [.padStart(frames: 4800), .insert(atFrame: 30000, frames: 960), .insert(atFrame: 70000, frames: 17)], folder
        )
        #expect(result.outputFrames == 96000 + 4800 + 960 + 17)
        let original = try readAll(input).samples
        let out = try readAll(folder.file("out.wav")).samples
        #expect(out[0..<(4800 * 2)].allSatisfy { $0 == 0 })
        // Recording frame r lands at r + 4800 before the first gap, + 960 after it, + 17 after the second.
        #expect(Array(out[(4800 * 2)..<((4800 + 30000) * 2)]) == Array(original[0..<(30000 * 2)]))
        #expect(
            Array(out[((4800 + 30000 + 960) * 2)..<((4800 + 70000 + 960) * 2)])
                == Array(original[(30000 * 2)..<(70000 * 2)]))
        #expect(Array(out[((4800 + 70000 + 977) * 2)...]) == Array(original[(70000 * 2)...]))
    }

    @Test("trim the early start; a dropout inside the trimmed part goes with it")
    func trimStart() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        let result = try run(
            input,
            [.trimStart(frames: 12000), .insert(atFrame: 5000, frames: 100), .insert(atFrame: 50000, frames: 48)],
            folder)
        #expect(result.outputFrames == 96000 - 12000 + 48)
        let original = try readAll(input).samples
        let out = try readAll(folder.file("out.wav")).samples
        #expect(Array(out[0..<(38000 * 2)]) == Array(original[(12000 * 2)..<(50000 * 2)]))
        #expect(Array(out[((38000 + 48) * 2)...]) == Array(original[(50000 * 2)...]))
    }

    @Test("re-insert, then resample by the measured rate, to the exact length")
    func insertThenResample() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        let result = try run(input, [.insert(atFrame: 48000, frames: 480), .resample(frames: 96493)], folder)
        #expect(result.outputFrames == 96493)
        #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == 96493)
    }

    @Test(
        "a stretch to exactly twice or half the stream's length (its 96,000 frames and a re-inserted gap) is made, to the frame",
        arguments: [(gap: Int64(0), frames: Int64(192_000)), (0, 48000), (480, 192_960)])
    func stretchEdges(edge: (gap: Int64, frames: Int64)) throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        let (gap, frames) = edge
        let inserted: [RepairOperation] = gap > 0 ? [.insert(atFrame: 48000, frames: gap)] : []
        let result = try run(input, inserted + [.stretch(frames: frames)], folder)
        #expect(result.outputFrames == frames)
        #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == frames)
    }

    @Test(
        "operations out of order or outside the recording are refused before anything is written",
        arguments: [
            [RepairOperation.resample(frames: 96000), .insert(atFrame: 10, frames: 10)] as [RepairOperation],
            [.insert(atFrame: 200_000, frames: 10)],
            [.insert(atFrame: 100, frames: 48000 * 11)],
            [.trimStart(frames: 96000)],
            [.insert(atFrame: 100, frames: 5), .padStart(frames: 10)],
            // Lengths no method makes: a stretch keeps to half...twice its input, a resample to 1/256...256 times.
            [.stretch(frames: 192_001)], [.stretch(frames: 47999)],
            [.insert(atFrame: 100, frames: 2), .stretch(frames: 192_005)],
            [.resample(frames: 24_576_001)], [.resample(frames: 374)],
        ])
    func refused(operations: [RepairOperation]) throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        #expect(throws: ProcessError.self) { try run(input, operations, folder) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.wav")))
        #expect(folder.entries() == ["in.wav"])
    }
}
