import DriftCore
import DriftFixtures
import DriftSync
import Foundation
import Testing

/// Finding clips in long recordings by their prints alone, on shoots whose every place is known from the scene.
@Suite struct SoundMatcherTests {
    static func print(_ samples: [Float], rate: Int) throws -> SoundPrint {
        try SoundPrint.make(MeasuredInput(path: "memory", sampleRate: rate) { MemoryAudioSource(samples, channels: 1) })
    }

    /// Two recorders on different clocks (one started with the scene, one joined later), clips of 20 s to 3 min spread
    /// over the morning, one clip nobody recorded, and a recorder from another room.
    static let shoot = Shoot(
        sound: .speech, seed: 21, sampleRate: 8000,
        recorders: [
            Shoot.Recorder(start: -12, seconds: 1500, driftPPM: -85),
            Shoot.Recorder(start: 410, seconds: 780, driftPPM: 47),
        ],
        clips: [
            Shoot.Clip(start: 15, seconds: 95), Shoot.Clip(start: 180, seconds: 20),
            Shoot.Clip(start: 300, seconds: 150), Shoot.Clip(start: 470, seconds: 60),
            Shoot.Clip(start: 640, seconds: 180), Shoot.Clip(start: 905, seconds: 45),
            Shoot.Clip(start: 1150, seconds: 75), Shoot.Clip(start: 1180, seconds: 40),
            Shoot.Clip(start: 1400, seconds: 130), Shoot.Clip(start: 1560, seconds: 60),
        ])

    @Test("every clip found where the scene put it, in every recorder that heard it, and nowhere else")
    func clipsInRecorders() throws {
        let shoot = Self.shoot
        var recordings = try (0..<shoot.recorders.count).map {
            try Self.print(shoot.recorder($0).recording(), rate: shoot.sampleRate)
        }
        // Another room, another day: matches nothing.
        recordings.append(
            try Self.print(
                unrelatedRecording(sampleRate: shoot.sampleRate, seconds: 900, seed: 99), rate: shoot.sampleRate))
        let matcher = SoundMatcher(recordings: recordings)
        for c in shoot.clips.indices {
            let clip = try Self.print(shoot.clip(c).reference(), rate: shoot.sampleRate)
            let found = matcher.candidates(for: clip)
            for r in shoot.recorders.indices {
                let coverage = shoot.coverage(ofClip: c, byRecorder: r)
                let candidate = found.first { $0.recording == r }
                if coverage >= 0.5 {
                    let place = try #require(candidate, "clip \(c) in recorder \(r): not found")
                    #expect(
                        place.isClear,
                        "clip \(c) in recorder \(r): clarity \(place.clarity), ambiguity \(place.ambiguity)")
                    let truth = shoot.start(ofClip: c, inRecorder: r)
                    #expect(
                        abs(place.startSeconds - truth) < 0.03,
                        "clip \(c) in recorder \(r): \(place.startSeconds) s, truth \(truth) s")
                    #expect(
                        abs(place.coverage - coverage) < 0.02,
                        "clip \(c) in recorder \(r): coverage \(place.coverage), truth \(coverage)")
                } else if coverage == 0 {
                    #expect(
                        candidate.map { !$0.isClear } ?? true,
                        "clip \(c) is not in recorder \(r), found at \(candidate?.startSeconds ?? 0) s, clarity \(candidate?.clarity ?? 0)"
                    )
                }
            }
            let unrelated = found.first { $0.recording == shoot.recorders.count }
            #expect(
                unrelated.map { !$0.isClear } ?? true,
                "clip \(c) matched the unrelated recording: clarity \(unrelated?.clarity ?? 0)")
        }
    }

    @Test("a print survives its stored form, and another version of it (or a truncated one) is refused")
    func storedForm() throws {
        let print = try Self.print(TwoMicrophones(sampleRate: 8000, seconds: 12, seed: 4).recording(), rate: 8000)
        #expect(print.onsets.count == 1200 || print.onsets.count == 1201)
        #expect(print.chroma.count / 6 == 120 || print.chroma.count / 6 == 121, "ten frames of pitch classes a second")
        #expect(abs(print.seconds - 12) < 0.001)
        #expect(SoundPrint(bytes: print.bytes) == print)
        for version: UInt8 in [1, 3] {
            var other = print.bytes
            other[4] = version
            #expect(SoundPrint(bytes: other) == nil, "version \(version)")
        }
        #expect(SoundPrint(bytes: print.bytes.dropLast(1)) == nil, "a print cut short")
        #expect(print.bytes.count == 17 + print.onsets.count + print.chroma.count, "160 bytes per second")
    }
}
