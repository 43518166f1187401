import DriftAudio
import DriftFixtures
import DriftRules
import Foundation
import Testing

@testable import DriftMedia

private let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite("Sound groups: which files are searched together when pairing by sound")
struct SoundGroupRulesTests {
    @Test("dates as recorders and containers write them; anything else is no date")
    func isoDays() {
        #expect(SoundGroupRules.isoDay("2026-11-24") == "2026-11-24")
        #expect(SoundGroupRules.isoDay("2026:11:24") == "2026-11-24")
        #expect(SoundGroupRules.isoDay("2026/11/24") == "2026-11-24")
        #expect(SoundGroupRules.isoDay("2026-11-24T23:13:22.000000Z") == "2026-11-24")
        for bad in ["", "2026-13-01", "26-11-24", "20261124", "2026-11-32", "hello world"] {
            #expect(SoundGroupRules.isoDay(bad) == nil, "\(bad)")
        }
    }

    @Test(
        "a file's day: the BWF origination date, the container's creation time, else the modification date; parts joined"
    )
    func days() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("camA"), withIntermediateDirectories: true)
        let signal = TestSignal(channelCount: 1, length: 4800)
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
        try writeRecording(
            signal, to: folder.file("camA/bwf.wav"), format: format,
            metadata: AudioMetadata(broadcastInfo: BroadcastInfo(originationDate: "2026-11-21")))
        try writeRecording(signal, to: folder.file("camA/plain.wav"), format: format)
        // The modification time, at noon here, so the local date is the same whatever the time zone.
        var noon = tm()
        noon.tm_year = 2026 - 1900
        noon.tm_mon = 10
        noon.tm_mday = 22
        noon.tm_hour = 12
        noon.tm_isdst = -1
        let stamp = TimeInterval(mktime(&noon))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: stamp)], ofItemAtPath: folder.file("camA/plain.wav"))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: stamp)], ofItemAtPath: folder.file("camA/bwf.wav"))
        #expect(SoundGroupRules.day(of: folder.file("camA/bwf.wav")) == "2026-11-21")
        #expect(SoundGroupRules.day(of: folder.file("camA/plain.wav")) == "2026-11-22")

        let rules = SoundGroupRules(parts: [.device(.path("{1}")), .day])
        #expect(rules.group(of: folder.file("camA/bwf.wav"), root: folder.path) == "camA · 2026-11-21")
        #expect(SoundGroupRules().group(of: folder.file("camA/bwf.wav"), root: folder.path) == "")

        if let ffmpeg {
            _ = try runTool(
                ffmpeg,
                [
                    "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=d=0.5", "-c:a", "aac",
                    "-metadata", "creation_time=2026-11-23T23:30:00Z", folder.file("camA/clip.mp4"),
                ])
            #expect(SoundGroupRules.day(of: folder.file("camA/clip.mp4")) == "2026-11-23")
        }
    }
}
