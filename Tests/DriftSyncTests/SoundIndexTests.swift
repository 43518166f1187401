import DriftCore
import DriftFixtures
import DriftSync
import Foundation
import Testing

/// The landmark index: it names the recordings that heard a clip (and no others, bar chance), and the indexed search
/// gives exactly the places the search of every recording gives.
@Suite struct SoundIndexTests {
    static func print(_ samples: [Float], rate: Int) throws -> SoundPrint {
        try SoundMatcherTests.print(samples, rate: rate)
    }

    /// A shoot's recorders' and clips' prints.
    static func prints(_ shoot: Shoot) throws -> (recordings: [SoundPrint], clips: [SoundPrint]) {
        let recordings = try shoot.recorders.indices.map {
            try print(shoot.recorder($0).recording(), rate: shoot.sampleRate)
        }
        let clips = try shoot.clips.indices.map { try print(shoot.clip($0).reference(), rate: shoot.sampleRate) }
        return (recordings, clips)
    }

    /// The places worth measuring, as the search of every recording gives them and as the indexed search does.
    static func expectSameAnswers(
        _ recordings: [SoundPrint], _ clips: [SoundPrint], _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let indexed = SoundMatcher(recordings: recordings)
        let exhaustive = SoundMatcher(recordings: recordings, indexed: false)
        for (c, clip) in clips.enumerated() {
            let a = indexed.candidates(for: clip).filter(\.isWorthMeasuring)
            let b = exhaustive.candidates(for: clip).filter(\.isWorthMeasuring)
            #expect(a == b, "\(label), clip \(c): indexed \(a), every recording \(b)", sourceLocation: sourceLocation)
        }
    }

    @Test("speech on two drifting recorders and a stranger: each clip named in the recorders that heard it")
    func namesTheRecordersThatHeard() throws {
        let shoot = SoundMatcherTests.shoot
        var (recordings, clips) = try Self.prints(shoot)
        recordings.append(
            try Self.print(
                unrelatedRecording(sampleRate: shoot.sampleRate, seconds: 900, seed: 99), rate: shoot.sampleRate))
        let index = SoundIndex(recordings: recordings)
        var chance = 0
        for c in clips.indices {
            let named = try #require(index.nominate(clips[c]), "clip \(c): too few landmarks")
            for r in shoot.recorders.indices where shoot.coverage(ofClip: c, byRecorder: r) >= 0.25 {
                #expect(named.recordings.contains(r), "clip \(c) in recorder \(r): not named (\(named))")
            }
            for r in recordings.indices
            where r == shoot.recorders.count || shoot.coverage(ofClip: c, byRecorder: r) == 0 {
                if named.recordings.contains(r) { chance += 1 }
            }
        }
        // Naming a recording that never heard the clip costs its search, never an answer: here, speech everywhere, a
        // few clips' best chance places pass.
        #expect(chance <= 6, "\(chance) recordings named that never heard the clip")
        Self.expectSameAnswers(recordings, clips, "speech")
    }

    @Test(
        "clocks 0.1 % and 0.5 % off, dropouts, music and a loop: the indexed search gives every recording's answers",
        arguments: [
            (TwoMicrophones.Sound.speech, 1000.0, -1000.0, false),
            (TwoMicrophones.Sound.speech, 5000.0, -5000.0, false),
            (TwoMicrophones.Sound.music, 120.0, -300.0, false),
            (TwoMicrophones.Sound.speech, -40.0, 60.0, true),
            (TwoMicrophones.Sound.loop, 30.0, -30.0, false),
        ])
    func sameAnswers(sound: TwoMicrophones.Sound, firstPPM: Double, secondPPM: Double, dropouts: Bool) throws {
        var shoot = Shoot(
            sound: sound, seed: 33, sampleRate: 8000,
            recorders: [
                Shoot.Recorder(start: -5, seconds: 700, driftPPM: firstPPM),
                Shoot.Recorder(start: 250, seconds: 500, driftPPM: secondPPM),
            ],
            clips: [
                Shoot.Clip(start: 20, seconds: 60), Shoot.Clip(start: 200, seconds: 25),
                Shoot.Clip(start: 330, seconds: 180), Shoot.Clip(start: 600, seconds: 45),
                Shoot.Clip(start: 760, seconds: 30), Shoot.Clip(start: 900, seconds: 40),
            ])
        if dropouts { shoot.recorderDropouts = [[(at: 100, missing: 0.5), (at: 420, missing: 2)], []] }
        let (recordings, clips) = try Self.prints(shoot)
        Self.expectSameAnswers(recordings, clips, "\(sound), \(firstPPM)/\(secondPPM) ppm")
        if sound == .speech, abs(firstPPM) <= 1000 {
            // Heard clearly where recorded: the index, not the fallback, found them (at 0.5 %, a long clip's votes
            // spread over more than two bins: the fallback finds it).
            let index = SoundIndex(recordings: recordings)
            for c in clips.indices where shoot.coverage(ofClip: c, byRecorder: 0) == 1 {
                #expect(index.nominate(clips[c])?.recordings.contains(0) == true, "clip \(c) not named in recorder 0")
            }
        }
    }

    @Test("landmarks: the same onsets wherever a file starts, and a gap moved by two frames still meets its hash")
    func landmarksShiftAndTolerance() {
        var random = SplitMix64(seed: 5)
        let onsets = (0..<6000).map { _ in
            random.next() % 9 == 0 ? UInt8(20 + random.next() % 200) : UInt8(random.next() % 6)
        }
        let whole = SoundLandmarks(SoundPrint(onsets: onsets, seconds: 60))
        let part = SoundLandmarks(SoundPrint(onsets: Array(onsets[1234..<4234]), seconds: 30))
        // Away from the part's edges (a second: the onsets' window and the hashes' span), the same hashes at the same
        // places.
        let inner = Set(
            zip(part.hashes, part.frames).filter { $0.1 > 100 && $0.1 < 2600 }.map { "\($0.0)@\($0.1 + 1234)" })
        let wholeSet = Set(zip(whole.hashes, whole.frames).map { "\($0.0)@\($0.1)" })
        #expect(!inner.isEmpty)
        #expect(inner.isSubset(of: wholeSet), "\(inner.subtracting(wholeSet).count) of \(inner.count) moved")
        // A print 0.4 % slower: most of its onsets land a frame or two away; the index still names it, at the place.
        let slowed = (0..<Int(6000 * 1.004)).map { onsets[min(5999, Int(Double($0) / 1.004))] }
        let index = SoundIndex(recordings: [
            SoundPrint(onsets: slowed, seconds: 60.24), SoundPrint(onsets: onsets.reversed(), seconds: 60),
        ])
        let named = index.nominate(SoundPrint(onsets: Array(onsets[1000..<4000]), seconds: 30))
        #expect(named?.recordings == [0], "\(String(describing: named))")
    }
}
