import DriftAudio
import DriftCore
import DriftFixtures
import DriftSync
import Foundation
import Testing

@testable import DriftRepair

/// Clips found in a long recording by their sound, measured there and cut out of it in sync, on files; checked against
/// the ideal: the recorder's microphone on a perfect clock started with the clip, rendered from the scene's numbers.
@Suite struct ClipSyncTests {
    /// One recorder on a slow clock with a dropout, and three clips: inside, across the dropout, and past its end.
    static let shoot = Shoot(
        sound: .speech, seed: 31, sampleRate: 16000,
        recorders: [Shoot.Recorder(start: -4, seconds: 420, driftPPM: -120)],
        clips: [
            Shoot.Clip(start: 40, seconds: 90), Shoot.Clip(start: 170, seconds: 100),
            Shoot.Clip(start: 360, seconds: 80),
        ])

    @Test(
        "each clip found, measured and cut out of the recording: exact length, within a millisecond of the ideal across it, the part the recorder missed silent"
    )
    func clipsCutInSync() throws {
        var shoot = Self.shoot
        let recorder = shoot.recorder(0)
        // A dropout inside the second clip, at a moment with sound so its place can be measured.
        shoot.recorderDropouts = [[(at: recorder.soundingTime(after: (205 + 4) * (1 - 120e-6)), missing: 0.0187)]]
        let folder = TemporaryFolder()
        let recording = folder.file("ZOOM0001.WAV")
        try shoot.writeRecorder(0, to: recording)
        let matcher = SoundMatcher(recordings: [try #require(try ClipSync.print(of: recording))])
        for c in shoot.clips.indices {
            let clipPath = folder.file("C000\(c + 1).wav")
            try shoot.writeClip(c, to: clipPath)
            let clipPrint = try #require(try ClipSync.print(of: clipPath))
            let candidate = try #require(matcher.candidates(for: clipPrint).first, "clip \(c)")
            #expect(candidate.isClear, "clip \(c): clarity \(candidate.clarity), ambiguity \(candidate.ambiguity)")
            let clipFrames = try AudioFileReader(path: clipPath).frameCount
            let placement = try ClipSync.measure(
                recording: recording, clip: clipPath, candidate: candidate,
                clipSeconds: Double(clipFrames) / Double(shoot.sampleRate))
            #expect(placement.isConfirmed(minimumConfidence: 0.5), "clip \(c): \(placement.content.summary)")
            let truth = shoot.start(ofClip: c, inRecorder: 0)
            let start = try #require(placement.recordingStartSeconds)
            #expect(abs(start - truth) < 0.001, "clip \(c) starts at \(start) s in the recording, truth \(truth) s")
            let drift = try #require(placement.content.driftPPM)
            #expect(abs(drift - -120) < 2, "clip \(c): drift \(drift) ppm")

            let output = folder.file("out-\(c).wav")
            let repair = try ClipSync.repair(placement, clipFrames: clipFrames, output: output)
            let written = try readAll(output)
            #expect(written.frames == clipFrames, "clip \(c): \(written.frames) frames, the clip has \(clipFrames)")
            #expect(repair.verification.passed, "clip \(c): \(repair.verification.reason ?? "")")

            // Against the ideal: every second of the part the recorder heard within 1 ms.
            let covered = shoot.coverage(ofClip: c, byRecorder: 0)
            let lags = Self.lagsAgainstIdeal(
                written.samples, shoot: shoot, clip: c, seconds: shoot.clips[c].seconds * covered)
            #expect(lags.count >= 10, "clip \(c): \(lags.count) windows with sound")
            #expect(lags.allSatisfy { abs($0) < 1 }, "clip \(c): lags \(lags) ms")
            if covered < 1 {
                // After the recorder stopped: silence, said as a pad at the end.
                #expect(
                    repair.operations.contains { if case .padEnd = $0 { return true } else { return false } },
                    "\(repair.operations)")
                let silentFrom = Int((shoot.clips[c].seconds * covered + 0.05) * Double(shoot.sampleRate))
                #expect(
                    written.samples[silentFrom...].allSatisfy { $0 == 0 }, "clip \(c): sound after the recorder stopped"
                )
            } else {
                #expect(
                    repair.operations.contains { if case .trimEnd = $0 { return true } else { return false } },
                    "\(repair.operations)")
            }
        }
    }

    @Test("start timecodes: non-drop and drop-frame labels in real seconds; a BWF start time in samples")
    func timecodes() throws {
        // Exact: frames over the frame rate.
        #expect(StartTimecode.parse("10:00:05:12", frameRate: Rational(25, 1)) == Rational(900_137, 25))
        // Drop-frame at 30000/1001: 00:01:00;02 is the 1800th frame (;00 and ;01 do not exist).
        #expect(StartTimecode.parse("00:01:00;02", frameRate: Rational(30000, 1001)) == Rational(1800 * 1001, 30000))
        // Ten minutes of drop-frame labels are 17982 frames: real time to within a frame.
        let tenMinutes = try #require(StartTimecode.parse("00:10:00;00", frameRate: Rational(30000, 1001)))
        #expect(tenMinutes == Rational(17982 * 1001, 30000) && abs(tenMinutes.doubleValue - 600) < 0.034)
        #expect(StartTimecode.parse("25:00:00:00", frameRate: Rational(25, 1)) == nil)
        #expect(StartTimecode.parse("10:00:00:00", frameRate: nil) == nil)
        let folder = TemporaryFolder()
        try TwoMicrophones(sampleRate: 48000, seconds: 2, seed: 1).write(
            .recording, to: folder.file("bwf.wav"), timeReference: 48000 * 36005)
        #expect(StartTimecode.seconds(of: folder.file("bwf.wav")) == 36005)
        try TwoMicrophones(sampleRate: 48000, seconds: 2, seed: 1).write(.recording, to: folder.file("plain.wav"))
        #expect(StartTimecode.seconds(of: folder.file("plain.wav")) == nil)

        // iXML without bext, in bytes made here: SPEED's timestamp at its own rate (a 64-bit count in two halves),
        // else BEXT's copy at the file's rate.
        let signal = TestSignal(channelCount: 1, length: 4800)
        func ixmlFile(_ name: String, _ xml: String, rate: Int = 48000) throws -> String {
            let path = folder.file(name)
            try Data(
                WaveBytes.file(
                    channels: 1, rate: rate, audio: WaveBytes.pcm16(signal),
                    after: WaveBytes.chunk("iXML", Array(xml.utf8)))
            )
            .write(to: URL(fileURLWithPath: path))
            return path
        }
        let day = UInt64(23 * 3600 + 59 * 60 + 58) * 96000 + 48000  // 23:59:58.5 at 96 kHz: past 2^32
        let speed = try ixmlFile(
            "speed.wav",
            "<BWFXML><SPEED><TIMESTAMP_SAMPLE_RATE>96000</TIMESTAMP_SAMPLE_RATE><TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>\(day >> 32)</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI><TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\(day & 0xFFFF_FFFF)</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO></SPEED></BWFXML>"
        )
        #expect(StartTimecode.seconds(of: speed) == 86_398.5)
        let bext = try ixmlFile(
            "bext.wav",
            "<BWFXML><BEXT><BWF_TIME_REFERENCE_HIGH>0</BWF_TIME_REFERENCE_HIGH><BWF_TIME_REFERENCE_LOW>\(44100 * 3600)</BWF_TIME_REFERENCE_LOW></BEXT></BWFXML>",
            rate: 44100)
        #expect(StartTimecode.seconds(of: bext) == 3600)
        let empty = try ixmlFile("empty.wav", "<BWFXML><SPEED><TIMECODE_RATE>25/1</TIMECODE_RATE></SPEED></BWFXML>")
        #expect(StartTimecode.seconds(of: empty) == nil)

        // Containers through FFmpeg: a QuickTime tmcd track, and Matroska's TIMECODE tag (upper case there).
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") {
            for name in ["tc.mov", "tc.mkv"] {
                _ = try runTool(
                    "/usr/bin/ffmpeg",
                    [
                        "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=25",
                        "-f", "lavfi", "-i", "sine=d=1", "-t", "1", "-c:v", "libx264", "-c:a", "aac",
                        "-timecode", "10:00:05:12", folder.file(name),
                    ])
                #expect(StartTimecode.seconds(of: folder.file(name)) == 36005.48, "\(name)")
            }
        }
    }

    /// The lag of `output` against the recorder's microphone on a perfect clock from clip `c`'s start, ms, at windows
    /// over its first `seconds` (where both have sound).
    static func lagsAgainstIdeal(_ output: [Float], shoot: Shoot, clip c: Int, seconds: Double) -> [Double] {
        shoot.lagsAgainstIdeal(output, clip: c, seconds: seconds)
    }
}
