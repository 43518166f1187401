import DriftAV
import DriftCore
import DriftFixtures
import Foundation
import Testing

/// What DriftAV promises the rest of driftfix about files FFmpeg reads, checked on files FFmpeg's own command line
/// made (not driftfix): exact frame counts, the sound as it was, video length from its pictures, clear errors.
@Suite("DriftAV: probing and decoding media made by ffmpeg")
struct MediaProbeContractTests {
    static let frames = 48_123
    static let rate = 48_000
    static let tone = 441.0

    /// `name` made by ffmpeg from `arguments`; nil where ffmpeg is not installed.
    static func make(_ name: String, in folder: TemporaryFolder, _ arguments: [String]) -> String? {
        let path = folder.file(name)
        let status = run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments + [path])
        return status == 0 ? path : nil
    }

    @Test("a lossless file: its exact frame count, rate and channels; decoded, the tone ffmpeg wrote")
    func lossless() throws {
        let folder = TemporaryFolder()
        let path = try #require(
            Self.make(
                "tone.flac", in: folder,
                [
                    "-f", "lavfi", "-i",
                    "sine=frequency=\(Self.tone):sample_rate=\(Self.rate),atrim=end_sample=\(Self.frames)",
                    "-c:a", "flac", "-sample_fmt", "s16",
                ]))
        let counted = try MediaProbe.audioFrames(path)
        #expect(counted.frames == Int64(Self.frames))
        #expect(counted.stream.sampleRate == Self.rate && counted.stream.channelCount == 1)
        #expect(try MediaProbe.probe(path).container == .flac)

        let reader = try EncodedAudioReader(path: path)
        var samples = [Float](repeating: 0, count: Self.frames + 4096)
        var total = 0
        while true {
            let got = try samples.withUnsafeMutableBufferPointer { buffer in
                try reader.read(into: buffer.baseAddress! + total, frames: min(4096, buffer.count - total))
            }
            if got == 0 { break }
            total += got
        }
        #expect(total == Self.frames, "decoded to the frame")
        // ffmpeg's sine source: amplitude 1/8; 16-bit quantisation is far below the tolerance.
        var worst: Float = 0
        for n in stride(from: 0, to: Self.frames, by: 97) {
            let ideal = Float(sin(2 * Double.pi * Self.tone * Double(n) / Double(Self.rate)) / 8)
            worst = max(worst, abs(samples[n] - ideal))
        }
        #expect(worst < 1e-3, "the decoded sound is the tone (worst error \(worst))")
    }

    @Test("a video's length from its pictures: 50 frames at 25 fps are 2 s exactly")
    func videoLength() throws {
        let folder = TemporaryFolder()
        let path = try #require(
            Self.make(
                "clip.mp4", in: folder,
                ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-frames:v", "50", "-c:v", "mpeg4"]))
        let video = try MediaProbe.videoDuration(path)
        #expect(video.seconds == Rational(2, 1), "\(video.seconds) by \(video.source)")
        #expect(try MediaProbe.probe(path).videoStreams.count == 1)
    }

    @Test("a file that is not media, and one with no audio, are errors naming the file")
    func refusals() throws {
        let folder = TemporaryFolder()
        let text = folder.file("notes.wav")
        try Data("not a recording".utf8).write(to: URL(fileURLWithPath: text))
        #expect {
            _ = try MediaProbe.audioFrames(text)
        } throws: { error in
            "\(error)".contains(text)
        }
        let silent = try #require(
            Self.make(
                "picture.mp4", in: folder,
                ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-frames:v", "5", "-c:v", "mpeg4"]))
        #expect {
            _ = try MediaProbe.audioFrames(silent)
        } throws: { error in
            "\(error)".contains(silent)
        }
    }
}
