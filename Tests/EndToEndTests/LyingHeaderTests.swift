import DriftFixtures
import Foundation
import Testing

/// A WAV file written byte by byte, so its header can say anything.
func wav(
    channels: UInt16, rate: UInt32, bits: UInt16 = 16, blockAlign: UInt16? = nil, dataSize: UInt32? = nil,
    payload: Int
) -> Data {
    func le<T: FixedWidthInteger>(_ value: T) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
    let align = blockAlign ?? channels &* (bits / 8)
    var fmt = le(UInt16(1)) + le(channels) + le(rate)
    fmt += le(rate &* UInt32(align)) + le(align) + le(bits)
    let samples = Data((0..<payload).map { UInt8(truncatingIfNeeded: $0 &* 37) })
    var body = Data("WAVE".utf8) + Data("fmt ".utf8) + le(UInt32(fmt.count)) + fmt
    body += Data("data".utf8) + le(dataSize ?? UInt32(payload)) + samples
    return Data("RIFF".utf8) + le(UInt32(body.count)) + body
}

// Not lies, and accepted like other readers do: a zero block align (libsndfile derives it from channels and bits)
// and 13 valid bits in 16-bit containers (legal WAV).
@Suite("headers that lie are refused before any output is written")
struct LyingHeaderTests {
    @Test(
        "absurd channel counts and rates, an empty or oversized data chunk: one line naming the file and the reason, exit 1",
        arguments: [
            ("zero-channels", wav(channels: 0, rate: 48_000, payload: 4800), ["channel"]),
            ("huge-channels", wav(channels: 60_000, rate: 48_000, payload: 480_000), ["channel"]),
            ("zero-rate", wav(channels: 1, rate: 0, payload: 4800), ["sample rate", "rate"]),
            ("absurd-rate", wav(channels: 1, rate: 3_000_000_000, payload: 4800), ["sample rate", "rate"]),
            ("empty-data", wav(channels: 2, rate: 48_000, dataSize: 0, payload: 0), ["no audio frames"]),
            ("data-beyond-file", wav(channels: 2, rate: 48_000, dataSize: 96_000_000, payload: 9600), ["truncated"]),
            ("data-beyond-riff", wav(channels: 2, rate: 48_000, dataSize: 0xFFFF_FF00, payload: 9600), ["truncated"]),
        ])
    func lyingHeaders(name: String, bytes: Data, causes: [String]) throws {
        let folder = TemporaryFolder()
        let input = folder.file("\(name).wav")
        try bytes.write(to: URL(fileURLWithPath: input))
        let output = folder.file("out/\(name).wav")
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let result = try driftfix(["process", input, output, "--ratio", "1.001"])
        #expect(result.status == 1, "\(name): \(result.stderr)")
        #expect(result.errorLines.count == 1, "\(name): one line: \(result.stderr)")
        let line = result.errorLines.first ?? ""
        #expect(line.contains(input), "\(name): names the file: \(line)")
        #expect(causes.contains { line.lowercased().contains($0) }, "\(name): \(line)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.file("out")).isEmpty, "\(name): nothing written")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == bytes, "\(name): input unchanged")
    }
}
