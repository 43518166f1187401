import DriftAV
import DriftAudio
import DriftCore
import DriftFixtures
import DriftJobs
import DriftJournal
import DriftPlanning
import Foundation
import Testing

@Suite("fingerprints and incremental decisions")
struct IncrementalTests {
    let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)

    @Test("a fingerprint changes with the content anywhere it samples, with the time stamp and with the size")
    func fingerprints() throws {
        let folder = TemporaryFolder("driftfix-print")
        let path = folder.file("a.wav")
        try writeRecording(TestSignal(channelCount: 1, length: 480_000, seed: 3), to: path, format: format)
        let original = try #require(FileFingerprint.of(path: path))
        #expect(FileFingerprint.of(path: path) == original, "stable")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)

        // One byte in the middle block, time stamp restored: still caught by the sampled hash.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(size / 2 + 10))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(size / 2 + 10))
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path)
        #expect(FileFingerprint.of(path: path) != original)

        // touch: same bytes, new time.
        let copy = folder.file("b.wav")
        try writeRecording(TestSignal(channelCount: 1, length: 480_000, seed: 3), to: copy, format: format)
        let before = FileFingerprint.of(path: copy)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: copy)
        #expect(FileFingerprint.of(path: copy) != before)
        #expect(FileFingerprint.of(path: folder.file("missing.wav")) == nil)
        #expect(FileFingerprint.of(path: folder.path) == nil, "a folder is not a media file")
    }

    @Test("an earlier output stands only if inputs, plan and the verified output are all unchanged")
    func verdicts() throws {
        let folder = TemporaryFolder("driftfix-incremental")
        let recording = folder.file("take.wav")
        let reference = folder.file("take.duration")
        let output = folder.file("out/take.wav")
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        try writeRecording(TestSignal(channelCount: 1, length: 47_990, seed: 1), to: recording, format: format)
        try "48000@48000\n".write(toFile: reference, atomically: true, encoding: .utf8)
        // An output of the right length, as a worker would have left it.
        try writeRecording(TestSignal(channelCount: 1, length: 48_000, seed: 2), to: output, format: format)
        let job = PairPlan(
            id: PairID(recording: recording), reference: reference, decision: .repair,
            operations: [.resample(frames: 48_000)], targetFrames: 48_000,
            method: MethodChoice(method: .resample, reason: "default"), output: output, audioSeconds: 1)
        let prints = try #require(JobFingerprints(plan: job, quality: .medium))
        func record(frames: Int64 = 48_000) -> OutputRecord {
            var info = stat()
            stat(output, &info)
            return OutputRecord(
                recording: recording, prints: prints, output: output, outputFrames: frames,
                outputSize: Int64(info.st_size),
                outputModified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                checksum: nil, worker: "w", run: 1)
        }
        let previous = record()
        #expect(
            IncrementalCheck.verdict(for: job, prints: prints, previous: previous, stillHolds: AudioInput.stillHolds)
                == .current(PreviousOutput(output: output, outputFrames: 48_000, checksum: nil, worker: "w")))
        #expect(
            IncrementalCheck.verdict(for: job, prints: prints, previous: nil, stillHolds: AudioInput.stillHolds)
                == .stale("never repaired"))
        #expect(
            IncrementalCheck.verdict(for: job, prints: nil, previous: previous, stillHolds: AudioInput.stillHolds)
                == .stale("inputs could not be fingerprinted"))

        #expect(
            IncrementalCheck.verdict(
                for: job, prints: JobFingerprints(plan: job, quality: .best), previous: previous,
                stillHolds: AudioInput.stillHolds)
                == .stale("the plan changed"))

        try "48001@48000\n".write(toFile: reference, atomically: true, encoding: .utf8)
        #expect(
            IncrementalCheck.verdict(
                for: job, prints: JobFingerprints(plan: job, quality: .medium), previous: previous,
                stillHolds: AudioInput.stillHolds)
                == .stale("the reference changed"))

        // The output replaced by something else of the wrong length (and recorded without stat data).
        try FileManager.default.removeItem(atPath: output)
        try writeRecording(TestSignal(channelCount: 1, length: 47_000, seed: 2), to: output, format: format)
        #expect(
            IncrementalCheck.verdict(for: job, prints: prints, previous: previous, stillHolds: AudioInput.stillHolds)
                == .stale("the output changed since it was verified"))
        var blind = previous
        blind.outputSize = nil
        blind.outputModified = nil
        #expect(
            IncrementalCheck.verdict(for: job, prints: prints, previous: blind, stillHolds: AudioInput.stillHolds)
                == .stale("the output no longer verifies"))
        try FileManager.default.removeItem(atPath: output)
        #expect(
            IncrementalCheck.verdict(for: job, prints: prints, previous: previous, stillHolds: AudioInput.stillHolds)
                == .stale("the output is gone"))
    }
}
