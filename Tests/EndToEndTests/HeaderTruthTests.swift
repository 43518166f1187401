import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

/// A WAV past 4 GiB as sox and some field recorders write it: its 32-bit RIFF and data sizes wrapped. Sparse: only
/// the header and the last `tailSeconds` (a tone) take disk space.
private func wrappedWAV(_ path: String, tailSeconds: Int) throws -> (
    trueFrames: Int64, statedFrames: Int64, tail: [Int16]
) {
    let rate = 48_000
    let frameBytes = 4  // stereo 16-bit
    let trueFrames = Int64((1 << 32) / frameBytes + rate * tailSeconds)
    let dataBytes = trueFrames * Int64(frameBytes)
    let stated = UInt32(truncatingIfNeeded: dataBytes)
    let format = WaveBytes.format(channels: 2, bits: 16, rate: rate)
    let header =
        Array("RIFF".utf8) + WaveBytes.le32(UInt32(truncatingIfNeeded: 4 + format.count + 8 + Int(dataBytes)))
        + Array("WAVE".utf8) + format + Array("data".utf8) + WaveBytes.le32(stated)
    let tail = (0..<(rate * tailSeconds)).map {
        Int16((sin(2 * Double.pi * 1000 * Double($0) / Double(rate)) * 16_000).rounded())
    }
    #expect(FileManager.default.createFile(atPath: path, contents: nil))
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.write(contentsOf: Data(header))
    try handle.truncate(atOffset: UInt64(header.count) + UInt64(dataBytes))
    try handle.seek(toOffset: UInt64(header.count) + UInt64(dataBytes) - UInt64(tail.count * frameBytes))
    var bytes: [UInt8] = []
    for sample in tail {
        bytes += WaveBytes.le16(UInt16(bitPattern: sample)) + WaveBytes.le16(UInt16(bitPattern: sample))
    }
    try handle.write(contentsOf: Data(bytes))
    try handle.close()
    return (trueFrames, Int64(stated) / Int64(frameBytes), tail)
}

/// Size, modification time, and the bytes of the first 64 KiB and the last MiB of a file: enough to see a change to
/// a sparse 4 GiB file without reading its gigabytes of holes.
private func edges(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0, let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 65_536)) ?? Data()
    try? handle.seek(toOffset: UInt64(max(0, Int64(info.st_size) - 1 << 20)))
    let tail = (try? handle.readToEnd()) ?? Data()
    return "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(head.hashValue) \(tail.hashValue)"
}

@Suite("headers that hide audio (the built binary)")
struct HeaderTruthTests {
    @Test("a WAV past 4 GiB with wrapped sizes: scan, verify and process see its true length and its true end")
    func pastFourGiB() throws {
        let folder = TemporaryFolder()
        let input = folder.file("night.wav")
        let (trueFrames, statedFrames, tail) = try wrappedWAV(input, tailSeconds: 2)
        #expect(statedFrames == 96_000)  // what the wrapped header says: 2 s instead of 6 h 12 min
        let before = edges(input)

        let verify = try driftfix(["verify", input, "--frames", "\(trueFrames)"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        // The scan measures the true duration against a reference of exactly that length: in sync.
        try "\(trueFrames)@48000\n".write(toFile: folder.file("night.duration"), atomically: true, encoding: .utf8)
        let scan = try driftfix(["scan", folder.path, "--format", "json"])
        #expect(scan.status == 0, "\(scan.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any]
        let row = try #require((object?["pairs"] as? [[String: Any]])?.first)
        #expect(
            row["recordingFrames"] as? Int64 == trueFrames
                || (row["recordingFrames"] as? Int).map(Int64.init) == trueFrames, "\(row)")
        #expect(row["action"] as? String == "skip" && row["cause"] as? String == "in-sync")

        // The last two seconds, read from beyond the wrapped size: the tone written there, sample for sample.
        let start = trueFrames - 96_000
        let result = try driftfix(["process", input, folder.file("tail.wav"), "--trim", "\(start)f:"])
        #expect(result.status == 0, "\(result.stderr)")
        let (samples, _, frames) = try readAll(folder.file("tail.wav"))
        #expect(frames == 96_000)
        let expected = tail.flatMap { [Float($0) / 32_768, Float($0) / 32_768] }
        #expect(samples == expected, "the audio at the true end")
        #expect(edges(input) == before, "the input is unchanged")
        #expect(folder.entries() == ["night.duration", "night.wav", "tail.wav"])
    }

    @Test("a data size that is simply too small: refused by process and scan, naming both sizes")
    func tooSmall() throws {
        let folder = TemporaryFolder()
        let input = folder.file("short.wav")
        let audio = WaveBytes.pcm16(TestSignal(channelCount: 2, length: 48_000))
        try Data(WaveBytes.file(channels: 2, audio: audio, statedDataBytes: 144_000)).write(
            to: URL(fileURLWithPath: input))
        let result = try driftfix(["process", input, folder.file("out.wav"), "--ratio", "1.001"])
        #expect(result.status == 1)
        #expect(
            result.errorLines == [
                "driftfix: \(input): the header's data size is too small: it states 144000 bytes (36000 frames, 0.8 s), but 48000 bytes (12000 frames, 0.3 s) more follow that no chunk accounts for (audio the header hides); refused rather than repaired short"
            ],
            "\(result.stderr)")
        try "1.0\n".write(toFile: folder.file("short.duration"), atomically: true, encoding: .utf8)
        let scan = try driftfix(["scan", folder.path, "--format", "json"])
        #expect(scan.status == 1)
        #expect(scan.stdout.contains("the header's data size is too small"))
        #expect(folder.entries() == ["short.duration", "short.wav"])
    }
}
