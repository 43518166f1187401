import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftAudio

@Suite("Metadata")
struct MetadataTests {
    static let bext = BroadcastInfo(
        description: "Scene 12 take 3", originator: "SoundDevices 833", originatorReference: "USID0012345678",
        originationDate: "2026-11-21", originationTime: "14:03:27", timeReference: 2_430_000_123,
        version: 2, umid: (0..<64).map { UInt8($0) }, loudnessValue: -2300, loudnessRange: 700,
        maxTruePeakLevel: -100, maxMomentaryLoudness: -1800, maxShortTermLoudness: -2000,
        codingHistory: "A=PCM,F=48000,W=24,M=stereo,T=original\r\n")

    @Test("tags and bext survive a WAV round trip")
    func wavRoundTrip() throws {
        let folder = TemporaryFolder()
        let signal = TestSignal(channelCount: 2, length: 4800)
        let metadata = AudioMetadata(
            tags: [
                .title: "Interview", .artist: "Unit 2", .comment: "boom mic", .date: "2026-11-21",
                .software: "recorder fw 5.1",
            ],
            broadcastInfo: MetadataTests.bext)
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        let path = try writeRecording(signal, to: folder.file("m.wav"), format: format, metadata: metadata)
        let found = try AudioFileReader(path: path).metadata()
        // libsndfile marks the software tag and the coding history with its own name and writes bext version 2;
        // the writer puts back what was there, so everything reads back exactly.
        #expect(found.tags == metadata.tags)
        #expect(found.broadcastInfo == MetadataTests.bext)
        var older = MetadataTests.bext
        older.version = 1
        older.loudnessValue = 0
        older.loudnessRange = 0
        older.maxTruePeakLevel = 0
        older.maxMomentaryLoudness = 0
        older.maxShortTermLoudness = 0
        let v1 = try writeRecording(
            signal, to: folder.file("v1.wav"), format: format, metadata: AudioMetadata(broadcastInfo: older))
        #expect(try AudioFileReader(path: v1).metadata().broadcastInfo == older, "version 1 stays version 1")
    }

    @Test("a long coding history is carried whole")
    func longCodingHistory() throws {
        let folder = TemporaryFolder()
        var bext = MetadataTests.bext
        for i in 0..<20 { bext.appendCodingHistory("A=PCM,F=48000,W=24,M=stereo,T=step \(i) of a long chain") }
        #expect(bext.codingHistory.utf8.count > 256)
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 2)
        let path = try writeRecording(
            TestSignal(channelCount: 2, length: 100), to: folder.file("h.wav"),
            format: format, metadata: AudioMetadata(broadcastInfo: bext))
        let history = try AudioFileReader(path: path).metadata().broadcastInfo?.codingHistory ?? ""
        #expect(history == bext.codingHistory)
    }

    @Test(
        "tags in FLAC, AIFF and Ogg",
        arguments: [
            (AudioContainer.flac, SampleEncoding.pcm16), (.aiff, .pcm16), (.ogg, .vorbis),
        ])
    func tagsInOtherContainers(container: AudioContainer, encoding: SampleEncoding) throws {
        let folder = TemporaryFolder()
        let tags: [AudioTag: String] = [.title: "Take 7", .artist: "Stage B", .comment: "second unit"]
        let format = AudioFormat(container: container, encoding: encoding, sampleRate: 44_100, channelCount: 2)
        let path = try writeRecording(
            TestSignal(channelCount: 2, length: 4410), to: folder.file("t"),
            format: format, metadata: AudioMetadata(tags: tags))
        let found = try AudioFileReader(path: path).metadata().tags
        for (tag, value) in tags { #expect(found[tag] == value, "\(container) \(tag)") }
    }

    @Test("a rate change rescales the bext time reference; a length change does not")
    func adaptation() {
        let metadata = AudioMetadata(broadcastInfo: MetadataTests.bext)
        func retiming(to rate: Int, history: String?) -> ChunkRetiming {
            ChunkRetiming(
                map: .identity(frames: 480_000), inputRate: 48_000, outputRate: rate, start: .recordingPosition(0),
                history: history, sourceName: "m.wav")
        }
        let same = metadata.retimed(retiming(to: 48_000, history: "A=PCM,T=driftfix")).metadata
        #expect(same.broadcastInfo?.timeReference == MetadataTests.bext.timeReference)
        #expect(same.broadcastInfo?.codingHistory.hasSuffix("A=PCM,T=driftfix\r\n") == true)
        let converted = metadata.retimed(retiming(to: 44_100, history: nil)).metadata
        // 2,430,000,123 samples at 48 kHz = 50625.0025625 s = 2,232,562,613.0 samples at 44.1 kHz.
        #expect(converted.broadcastInfo?.timeReference == 2_232_562_613)
    }
}
