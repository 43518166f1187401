import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

/// `process --match` under the configuration's `content.measure`: followed, or refused in one line, never ignored.
@Suite("process follows content.measure (the built binary)")
struct ProcessBySoundTests {
    /// A recording started 0.8 s after its camera, its clock 90 ppm slow; the camera's sound as a WAV beside it.
    static func pair(_ folder: TemporaryFolder) throws -> TwoMicrophones {
        let scene = TwoMicrophones(sampleRate: 48_000, seconds: 60, offset: 0.8, driftPPM: -90, seed: 71)
        try scene.write(.recording, to: folder.file("take.wav"), channels: 1)
        try scene.write(.reference, to: folder.file("take_cam.wav"), encoding: .pcm16)
        return scene
    }

    static func config(_ folder: TemporaryFolder, _ measure: String) throws -> String {
        try "content:\n  measure: \(measure)\n".write(
            toFile: folder.file("\(measure).yaml"), atomically: true, encoding: .utf8)
        return folder.file("\(measure).yaml")
    }

    /// The output against the scene on a perfect clock from the camera's start: each window's lag, ms.
    static func lags(_ path: String, scene: TwoMicrophones) throws -> [Double] {
        let written = try readAll(path)
        var ideal = scene
        ideal.offset = 0
        ideal.driftPPM = 0
        ideal.seconds = Double(written.samples.count) / 48_000
        let truth = ideal.recording()
        return (0..<8).compactMap { k in
            let at = Int((3 + Double(k) * 6.5) * 48_000)
            let (lag, correlation) = SignalMeasure.windowLag(
                actual: written.samples, ideal: truth, at: at, window: 24_000, maxLag: 96)
            return correlation > 0.6 ? lag / 48 : nil
        }
    }

    @Test(
        "content.measure content, and auto (the default) for lengths no clock explains: repaired by the sound, in sync with the ideal",
        arguments: ["content", "auto"])
    func bySound(measure: String) throws {
        let folder = TemporaryFolder()
        let scene = try Self.pair(folder)
        let result = try driftfix([
            "process", folder.file("take.wav"), folder.file("out.wav"), "--match", folder.file("take_cam.wav"),
            "--config", try Self.config(folder, measure),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("by its sound") && result.stdout.contains("pad-start"), "\(result.stdout)")
        let lags = try Self.lags(folder.file("out.wav"), scene: scene)
        #expect(lags.count >= 5 && lags.allSatisfy { abs($0) < 0.25 }, "lags against the ideal, ms: \(lags)")
    }

    @Test("content.measure headers: the lengths, as the options say (the file ends with its reference, out of sync)")
    func byLengths() throws {
        let folder = TemporaryFolder()
        _ = try Self.pair(folder)
        let result = try driftfix([
            "process", folder.file("take.wav"), folder.file("out.wav"), "--match", folder.file("take_cam.wav"),
            "--config", try Self.config(folder, "headers"),
        ])
        #expect(result.status == 0 && !result.stdout.contains("by its sound"), "\(result.stdout)")
        let camera = try AudioFileReader(path: folder.file("take_cam.wav")).frameCount
        #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == camera)
    }

    @Test(
        "content.measure content with what a repair by the sound cannot do: refused in one line naming the key, nothing written",
        arguments: [["--ratio", "1.001"], ["--match", "REF", "--trim", "1:"], ["--to-frames", "480000"]])
    func refused(options: [String]) throws {
        let folder = TemporaryFolder()
        _ = try Self.pair(folder)
        let config = try Self.config(folder, "content")
        let result = try driftfix(
            ["process", folder.file("take.wav"), folder.file("out.wav"), "--config", config]
                + options.map { $0 == "REF" ? folder.file("take_cam.wav") : $0 })
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        let line = result.errorLines.first { $0.contains("content.measure: content") } ?? ""
        #expect(line.contains(config) && line.contains("a repair by the sound"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.wav")))
    }
}
