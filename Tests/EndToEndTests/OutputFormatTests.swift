import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

private func recording(
    _ folder: TemporaryFolder, _ name: String, encoding: SampleEncoding = .pcm24, channels: Int = 2,
    metadata: AudioMetadata = AudioMetadata()
) throws -> String {
    let format = AudioFormat(container: .wav, encoding: encoding, sampleRate: 48_000, channelCount: channels)
    return try writeRecording(
        TestSignal(channelCount: channels, length: 48_000, seed: 3), to: folder.file(name),
        format: format, metadata: metadata)
}

/// Runs a tool from the system (ffmpeg, ffprobe) and returns its standard output.
private func tool(_ name: String, _ arguments: [String]) throws -> String { try runTool("/usr/bin/" + name, arguments) }

private let haveFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")

@Suite("driftfix process: the output follows OUT's extension; metadata is carried as it was (the built binary)")
struct OutputFormatTests {
    @Test(
        "OUT's extension chooses the file type, keeping the input's encoding where the type holds it",
        arguments: [
            ("out.flac", AudioContainer.flac, SampleEncoding.pcm24, nil as String?),
            ("out.aiff", .aiff, .pcm24, nil), ("out.caf", .caf, .pcm24, nil), ("out.w64", .w64, .pcm24, nil),
            ("out.rf64", .rf64, .pcm24, nil), ("OUT.WAV", .wav, .pcm24, nil),
            ("out.ogg", .ogg, .vorbis, "a lossy encoding"), ("out.opus", .ogg, .opus, "a lossy encoding"),
            ("out.mp3", .mpeg, .mp3, "a lossy encoding"),
        ])
    func byExtension(name: String, container: AudioContainer, encoding: SampleEncoding, note: String?) throws {
        let folder = TemporaryFolder()
        let input = try recording(folder, "in.wav")
        let result = try driftfix(["process", input, folder.file(name), "--ratio", "1.001"])
        #expect(result.status == 0, "\(result.stderr)")
        let reader = try AudioFileReader(path: folder.file(name))
        #expect(reader.format.container == container && reader.format.encoding == encoding, "\(reader.format)")
        #expect(reader.frameCount == 48_048)
        if let note {
            #expect(result.stderr.contains(note), "\(result.stderr)")
        } else {
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        }
    }

    @Test(
        "what a type cannot hold is converted and said; --format, --encoding and the config override; impossible combinations are refused before any work"
    )
    func overrides() throws {
        let folder = TemporaryFolder()
        let float = try recording(folder, "float.wav", encoding: .float32)
        let flac = try driftfix(["process", float, folder.file("f.flac"), "--ratio", "1.001"])
        #expect(
            flac.status == 0 && flac.stderr.contains("FLAC cannot hold 32-bit float samples: written as 24-bit"),
            "\(flac.stderr)")
        #expect(try AudioFileReader(path: folder.file("f.flac")).format.encoding == .pcm24)
        let named = try driftfix([
            "process", float, folder.file("named.wav"), "--ratio", "1.001", "--format", "flac", "--encoding", "pcm-16",
        ])
        #expect(named.status == 0, "\(named.stderr)")
        let namedFormat = try AudioFileReader(path: folder.file("named.wav")).format
        #expect(namedFormat.container == .flac && namedFormat.encoding == .pcm16)
        try "process:\n  format: caf\n  encoding: double\n".write(
            toFile: folder.file("c.yaml"), atomically: true, encoding: .utf8)
        #expect(
            try driftfix([
                "process", float, folder.file("c.out"), "--ratio", "1.001", "--config", folder.file("c.yaml"),
            ]).status == 0)
        let configured = try AudioFileReader(path: folder.file("c.out")).format
        #expect(configured.container == .caf && configured.encoding == .float64)
        let impossible = try driftfix([
            "process", float, folder.file("x.mp3"), "--ratio", "1.001", "--encoding", "pcm-24",
        ])
        #expect(impossible.status == 1)
        #expect(
            impossible.errorLines == [
                "driftfix: \(folder.file("x.mp3")): unsupported (libsndfile cannot write 24-bit samples in MPEG with 2 channels)"
            ],
            "\(impossible.stderr)")
        let unknown = try driftfix(["process", float, folder.file("x.xyz"), "--ratio", "1.001"])
        #expect(unknown.status == 2 && unknown.stderr.contains("cannot tell the file type from '.xyz'"))
        let badEncoding = try driftfix([
            "process", float, folder.file("y.wav"), "--ratio", "1.001", "--encoding", "pcm-12",
        ])
        #expect(badEncoding.status == 2)
        #expect(
            Set(folder.entries()) == ["c.out", "c.yaml", "f.flac", "float.wav", "named.wav"], "\(folder.entries())")
    }

    @Test("BWF: the coding history keeps one CR LF line per process, nothing glued; the bext version is kept")
    func broadcastHistory() throws {
        let folder = TemporaryFolder()
        // As some recorders write it: version 1, the last line without its CR LF, an inner line ending in LF only.
        let bext = BroadcastInfo(
            description: "scene 4", originator: "recorder", timeReference: 123_456, version: 1,
            codingHistory: "A=PCM,F=48000,W=24,M=stereo,T=field recorder\nA=PCM,F=48000,W=24,M=stereo,T=ingest")
        let input = try recording(folder, "bwf.wav", metadata: AudioMetadata(broadcastInfo: bext))
        let result = try driftfix(["process", input, folder.file("out.wav"), "--ratio", "1.001"])
        #expect(result.status == 0, "\(result.stderr)")
        let carried = try #require(try AudioFileReader(path: folder.file("out.wav")).metadata().broadcastInfo)
        #expect(carried.version == 1, "version \(carried.version)")
        let lines = carried.codingHistory.components(separatedBy: "\r\n")
        #expect(lines.count == 4 && lines[3].isEmpty, "\(carried.codingHistory.debugDescription)")
        #expect(lines[0] == "A=PCM,F=48000,W=24,M=stereo,T=field recorder")
        #expect(lines[1] == "A=PCM,F=48000,W=24,M=stereo,T=ingest")
        #expect(
            lines[2].hasPrefix(
                "A=PCM,F=48000,W=24,M=stereo,T=driftfix resample (default), medium quality (polyphase); 48000 to 48048 frames"
            ))
        #expect(!carried.codingHistory.contains("libsndfile"))
        #expect(carried.description == "scene 4" && carried.timeReference == 123_456)
        // Read from the bytes themselves, not through libsndfile: every line break is CR LF.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.file("out.wav")))
        let history = try #require(bytes.range(of: Data("A=PCM,F=48000,W=24,M=stereo,T=field recorder".utf8)))
        let tail = Array(bytes[history.lowerBound...].prefix { $0 != 0 })
        let breaks = tail.indices.filter { tail[$0] == 0x0A || tail[$0] == 0x0D }
        #expect(
            breaks.count == 6 && breaks.allSatisfy { tail[$0] == 0x0D ? tail[$0 + 1] == 0x0A : tail[$0 - 1] == 0x0D },
            "\(String(decoding: tail, as: UTF8.self).debugDescription)")
    }

    @Test("the WAV software tag is carried without libsndfile's suffix")
    func softwareTag() throws {
        let folder = TemporaryFolder()
        let input = folder.file("in.wav")
        let list = WaveBytes.chunk(
            "LIST", Array("INFOISFT".utf8) + WaveBytes.le32(16) + Array("recorder fw 5.1\0".utf8))
        try Data(
            WaveBytes.file(channels: 2, audio: WaveBytes.pcm16(TestSignal(channelCount: 2, length: 4_800)), after: list)
        )
        .write(to: URL(fileURLWithPath: input))
        #expect(try AudioFileReader(path: input).metadata().tags[.software] == "recorder fw 5.1")
        #expect(try driftfix(["process", input, folder.file("out.wav"), "--ratio", "1.001"]).status == 0)
        #expect(try AudioFileReader(path: folder.file("out.wav")).metadata().tags[.software] == "recorder fw 5.1")
    }

    @Test("MP3 tags: exactly what was there, no empty tags added, the software tag kept", .enabled(if: haveFFmpeg))
    func mp3Tags() throws {
        let folder = TemporaryFolder()
        let input = folder.file("in.mp3")
        _ = try tool(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=2:r=44100", "-ac", "2",
                "-metadata", "title=Take 7 — ünïcode", "-metadata", "artist=Stage B", "-c:a", "libmp3lame", input,
            ])
        let before = try AudioFileReader(path: input).metadata().tags
        #expect(before[.title] == "Take 7 — ünïcode" && before[.software]?.hasPrefix("Lavf") == true, "\(before)")
        let result = try driftfix(["process", input, folder.file("out.mp3"), "--ratio", "1.001"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try AudioFileReader(path: folder.file("out.mp3")).metadata().tags == before)
        let probed = try tool(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "compact", folder.file("out.mp3")])
        #expect(
            probed.contains("tag:title=Take 7 — ünïcode") && probed.contains("tag:artist=Stage B")
                && probed.contains("tag:encoder=Lavf"),
            "\(probed)")
        #expect(
            !probed.contains("tag:comment") && !probed.contains("tag:album") && !probed.contains("tag:date"),
            "\(probed)")
    }

    @Test(
        "WAV speaker masks are carried exactly, even ones libsndfile cannot name; a type that cannot hold one says so",
        .enabled(if: haveFFmpeg, "ffmpeg not installed"))
    func channelMasks() throws {
        let folder = TemporaryFolder()
        let side = folder.file("side.wav")
        _ = try tool(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=1:r=48000", "-af",
                "pan=5.1(side)|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0", "-c:a", "pcm_s24le", side,
            ])
        #expect(try driftfix(["process", side, folder.file("side-out.wav"), "--ratio", "1.001"]).status == 0)
        #expect(
            try tool(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=channel_layout", "-of", "csv=p=0",
                    folder.file("side-out.wav"),
                ])
                == "5.1(side)")
        // Four channels that say only "front left, front right": no libsndfile position list, so the mask is written back.
        let quad = folder.file("quad.wav")
        try Data(WaveBytes.file(channels: 4, audio: [UInt8](repeating: 0, count: 4 * 2 * 4_800), mask: 0x3)).write(
            to: URL(fileURLWithPath: quad))
        #expect(try driftfix(["process", quad, folder.file("quad-out.wav"), "--ratio", "1.001"]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.file("quad-out.wav")))
        let format = try #require(bytes.range(of: Data("fmt ".utf8)))
        let mask = bytes[(format.upperBound + 4 + 20)..<(format.upperBound + 4 + 24)]
        #expect(Array(mask) == [3, 0, 0, 0], "\(Array(mask))")
        let flac = try driftfix(["process", side, folder.file("side.flac"), "--ratio", "1.001"])
        #expect(
            flac.status == 0 && flac.stderr.contains("cannot hold channel layout L R C LFE SL SR (mask 0x60F)"),
            "\(flac.stderr)")
    }
}
