import DriftCore
import DriftFixtures
import Foundation
import Testing

/// Names that are not text, or not one text: bytes that are not UTF-8, a decomposed name beside its composed twin,
/// emoji, names of 255 bytes, in a folder whose own name is not UTF-8. A night repairs every one at its mirrored name,
/// byte for byte, and the next night finds them unchanged.
@Suite(
    "any file name: a night over names that are not UTF-8, NFC beside NFD, emoji and 255 bytes (the built binary)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sox"), "sox not installed"))
struct AnyFileNameTests {
    /// Creates a file at a path given as bytes (Foundation would take text) holding `data`.
    static func write(_ data: Data, to path: [UInt8]) throws {
        let descriptor = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
            open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        _ = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    static func mkdir(_ path: [UInt8]) {
        _ = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { Glibc.mkdir($0.baseAddress!, 0o755) }
    }

    /// A WAV file's frames by its `data` chunk (16-bit mono), read by bytes without driftfix's code.
    static func frames(at path: [UInt8]) -> Int? {
        let descriptor = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
            open($0.baseAddress!, O_RDONLY | O_CLOEXEC)
        }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 12 else { return nil }
        var at = 12
        while at + 8 <= count {
            let size =
                Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            if bytes[at..<at + 4].elementsEqual("data".utf8) { return size / 2 }
            at += 8 + size + size % 2
        }
        return nil
    }

    @Test("every file repaired at its mirrored byte-identical name, exactly its target; the next night unchanged")
    func night() throws {
        let root = TemporaryFolder()
        let out = TemporaryFolder("driftfix-out")
        let base = root.file("base.wav")
        _ = try runTool(
            "/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", base, "synth", "3", "sine", "440"])
        let audio = try Data(contentsOf: URL(fileURLWithPath: base))
        try FileManager.default.removeItem(atPath: base)
        let folder = Array(root.path.utf8) + Array("/day".utf8) + [0xFF]  // "day\xFF": not UTF-8
        Self.mkdir(folder)
        let stems: [[UInt8]] = [
            Array("take".utf8) + [0xFF], Array("café".utf8), Array("cafe\u{301}".utf8), Array("🎬take".utf8),
            [UInt8](repeating: UInt8(ascii: "L"), count: 246), Array("tab\there".utf8),
        ]
        for stem in stems {
            try Self.write(audio, to: folder + [UInt8(ascii: "/")] + stem + Array(".wav".utf8))
            try Self.write(
                Data("144100@48000\n".utf8), to: folder + [UInt8(ascii: "/")] + stem + Array(".duration".utf8))
        }
        let reports = TemporaryFolder("driftfix-report")
        let night = try driftfix(["repair", root.path, "--out", out.path, "--workers", "2", "--report", reports.path])
        #expect(night.status == 0, "\(night.stderr)")
        let outFolder = Array(out.path.utf8)
        for stem in stems {
            let expected = outFolder + Array("/day".utf8) + [0xFF, UInt8(ascii: "/")] + stem + Array(".wav".utf8)
            let shown = PathText.shown(PathText.text(expected))
            #expect(Self.frames(at: expected) == 144_100, "\(shown)")
        }
        // The report names each output as PathText: its bytes are the file's.
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reports.file("report.json"))))
                as? [String: Any])
        let outputs = (report["pairs"] as? [[String: Any]] ?? []).compactMap { $0["output"] as? String }
        #expect(outputs.count == stems.count)
        for output in outputs { #expect(Self.frames(at: PathText.bytes(of: output)) == 144_100, "\(output)") }
        // People read the names as a file manager shows them: a decomposed name as its own bytes, a byte that is
        // not UTF-8 as \xHH; never the private-use escape.
        let table = try driftfix(["scan", root.path, "--format", "table"])
        #expect(
            table.stdout.contains("take\\xFF.wav") && Self.holds(table.stdout, Array("cafe\u{301}.wav".utf8)),
            "\(table.stdout)")
        #expect(!table.stdout.unicodeScalars.contains { (0xF780...0xF7FF).contains($0.value) }, "\(table.stdout)")
        #expect(!table.stdout.contains("no such file"), "\(table.stdout)")
        // The next night: the journal finds every one unchanged.
        let again = try driftfix(["repair", root.path, "--out", out.path, "--workers", "1"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout.contains("0 repaired, \(stems.count) unchanged"), "\(again.stdout.suffix(300)) \(again.stderr)"
        )
    }

    /// Whether `text`'s bytes hold `bytes` (not by canonical equivalence, which would find a composed twin too).
    static func holds(_ text: String, _ bytes: [UInt8]) -> Bool {
        let all = Array(text.utf8)
        guard all.count >= bytes.count else { return false }
        return (0...(all.count - bytes.count)).contains { all[$0..<$0 + bytes.count].elementsEqual(bytes) }
    }
}
