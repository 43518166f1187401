import DriftAV
import DriftAudio
import DriftCore
import DriftFixtures
import DriftRules
import Foundation
import Testing

@testable import DriftMedia

private let ffmpegAvailable =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")

/// Runs a tool and returns its standard output.
private func output(_ program: String, _ arguments: [String]) throws -> String { try runTool(program, arguments) }

@Suite("MP4/MOV parser against ffprobe", .enabled(if: ffmpegAvailable, "ffmpeg/ffprobe not installed"))
struct FFprobeCrossCheckTests {
    @Test(
        "durations agree with ffprobe on files ffmpeg writes",
        arguments: [
            ("a.mp4", ["-r", "30", "-frames:v", "75"], [String]()),
            ("b.mov", ["-r", "30000/1001", "-frames:v", "100"], []),
            ("c.mp4", ["-r", "25", "-frames:v", "60"], ["-movflags", "frag_keyframe+empty_moov"]),
            ("d.m4v", ["-r", "24000/1001", "-frames:v", "48"], ["-movflags", "+faststart"]),
        ])
    func agree(name: String, rate: [String], flags: [String]) throws {
        let folder = TemporaryFolder()
        let path = folder.file(name)
        let status = run(
            "/usr/bin/ffmpeg",
            ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=100"]
                + rate + ["-c:v", "mpeg4", "-g", "10"] + flags + [path])
        try #require(status == 0, "ffmpeg failed")
        let probe = try output(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=duration:format=duration", "-of", "default=nw=1:nk=1", path,
            ])
        let values = probe.split(separator: "\n").compactMap { Double($0) }
        let expected = try #require(values.first, "ffprobe printed \(probe)")
        let found = try ReferenceProbe.duration(of: path).get()
        #expect(
            abs(found.seconds.doubleValue - expected) < 0.001,
            "\(name): parser \(found.seconds.doubleValue) s (\(found.source)), ffprobe \(expected) s")
    }

    @Test(
        "the own box parser and FFmpeg's libavformat agree on a movie's video duration, to the movie's time scale",
        arguments: [
            ("e.mp4", "30", 75), ("f.mov", "30000/1001", 299), ("g.mp4", "25", 61), ("h.mov", "24000/1001", 47),
        ])
    func ownParserAgreesWithLibavformat(name: String, rate: String, frames: Int) throws {
        let folder = TemporaryFolder()
        let path = folder.file(name)
        let status = run(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=100",
                "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=5",
                "-r", rate, "-frames:v", "\(frames)", "-c:v", "mpeg4", "-c:a", "aac", "-shortest", path,
            ])
        try #require(status == 0, "ffmpeg failed")
        let own = try ReferenceProbe.duration(of: path).get()
        let viaFFmpeg = try MediaProbe.videoDuration(path)
        let movie = try MovieParser.parse(FileBytes(path: path)).movieTimescale
        let step = 1 / Double(max(1, movie))  // ffmpeg writes the edit list in the movie's time scale (1/1000 s)
        #expect(
            abs(own.seconds.doubleValue - viaFFmpeg.seconds.doubleValue) <= step,
            "\(name): own parser \(own.seconds) (\(own.source)), libavformat \(viaFFmpeg.seconds) (\(viaFFmpeg.source))"
        )
    }

    @Test(
        "every movie of the fuzz corpus: the own box parser's duration is ffprobe's, to the millisecond ffmpeg states")
    func corpusAgreesWithFFprobe() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FuzzTests/Corpus")
        let movies = try ["movie", "media"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent(folder).path)
                .filter { ["mp4", "mov", "m4v"].contains(($0 as NSString).pathExtension) }
                .map { corpus.appendingPathComponent(folder).appendingPathComponent($0).path }
        }
        try #require(movies.count >= 4, "\(movies)")
        for path in movies {
            let probe = try output(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of",
                    "default=nw=1:nk=1", path,
                ])
            let expected = try #require(
                Double(probe.split(separator: "\n").first ?? ""), "\(path): ffprobe printed \(probe)")
            let found = try ReferenceProbe.duration(of: path).get()
            #expect(
                abs(found.seconds.doubleValue - expected) <= 0.001,
                "\(path): parser \(found.seconds.doubleValue) s (\(found.source)), ffprobe \(expected) s")
        }
    }

    @Test("a Matroska reference states its end to the millisecond: a finer drift is not claimed, an MP4's is")
    func matroskaResolution() throws {
        let folder = TemporaryFolder()
        for name in ["ref.mkv", "ref.mp4"] {
            let status = run(
                "/usr/bin/ffmpeg",
                [
                    "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25:duration=10",
                    "-c:v", "mpeg4", folder.file(name),
                ])
            try #require(status == 0, "ffmpeg failed")
        }
        // 10 s + 0.5 ms of audio, against a tolerance of 0.1 ms.
        let recording = try writeRecording(
            TestSignal(channelCount: 1, length: 480_024), to: folder.file("take.wav"),
            format: AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1))
        var drift = DriftPolicy()
        drift.tolerance = Rational(1, 10_000)
        let viaMatroska = DriftScanner.measure(
            recording: recording, reference: folder.file("ref.mkv"), rules: PairingRules(),
            drift: drift, repair: RepairPolicy())
        let viaMP4 = DriftScanner.measure(
            recording: recording, reference: folder.file("ref.mp4"), rules: PairingRules(),
            drift: drift, repair: RepairPolicy())
        #expect(viaMatroska.cause == .inSync, "\(viaMatroska.referenceSource ?? "") \(viaMatroska.error ?? "")")
        #expect(viaMatroska.referenceSource == "video timestamps (to 1/1000 s)", "the row states the precision")
        #expect(viaMP4.cause != .inSync && viaMP4.cause != nil, "\(viaMP4.referenceSource ?? "") \(viaMP4.error ?? "")")
    }
}
