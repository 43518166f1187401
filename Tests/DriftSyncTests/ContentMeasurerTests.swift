import DriftCore
import DriftFixtures
import DriftSync
import Foundation
import Testing

/// The measurement against scenes whose timing is known: every expected number comes from the scene's parameters,
/// never from driftfix's output.
@Suite struct ContentMeasurerTests {
    func measure(_ recording: [Float], _ reference: [Float], rate: Int, referenceRate: Int? = nil) throws
        -> ContentMeasurement
    {
        try ContentMeasurer().measure(
            recording: MeasuredInput(path: "recording", sampleRate: rate) { MemoryAudioSource(recording, channels: 1) },
            reference: MeasuredInput(path: "reference", sampleRate: referenceRate ?? rate) {
                MemoryAudioSource(reference, channels: 1)
            })
    }

    func measure(_ scene: TwoMicrophones) throws -> ContentMeasurement {
        try measure(scene.recording(), scene.reference(), rate: scene.sampleRate)
    }

    @Test func clockDriftAndLateStart() throws {
        let scene = TwoMicrophones(seconds: 600, offset: 2.0, driftPPM: -131, seed: 3)
        let m = try measure(scene)
        #expect(m.model == .clock)
        let offset = try #require(m.offsetMs)
        let drift = try #require(m.driftPPM)
        let error = try #require(m.driftPPMError)
        #expect(abs(offset - 2000) < 0.1, "offset \(offset) ms")
        #expect(abs(drift - -131) < 0.2, "drift \(drift) ppm")
        #expect(error < 0.5 && abs(drift - -131) <= max(error, 0.05) * 2, "±\(error) ppm")
        #expect(m.dropouts.isEmpty)
        #expect(m.confidence > 0.5, "confidence \(m.confidence)")
    }

    @Test func recordingStartedBeforeTheReference() throws {
        let scene = TwoMicrophones(seconds: 300, offset: -1.5, driftPPM: 40, seed: 5)
        let m = try measure(scene)
        // The part before the reference began has nothing to match; the rest must.
        let offset = try #require(m.offsetMs)
        let drift = try #require(m.driftPPM)
        #expect(abs(offset - -1500) < 0.1, "offset \(offset) ms")
        #expect(abs(drift - 40) < 1, "drift \(drift) ppm")
    }

    @Test func dropoutsAreLocatedAndSized() throws {
        let truth: [(at: Double, missing: Double)] = [(61.3, 0.0213), (187.77, 0.1), (402.05, 0.004)]
        let scene = TwoMicrophones(seconds: 600, offset: 0.25, dropouts: truth, seed: 7)
        let m = try measure(scene)
        #expect(m.model == .dropouts)
        #expect(m.dropouts.count == truth.count, "\(m.dropouts)")
        let recording = scene.recording()
        for (found, expected) in zip(m.dropouts, truth) {
            // Where the gap has sound around it, it is placed within 20 ms; in a pause, anywhere in the pause lines
            // up the same, and the reported uncertainty must cover the truth.
            let i = Int(expected.at * 16000)
            let level = (recording[(i - 160)..<(i + 160)].reduce(Float(0)) { $0 + $1 * $1 } / 320).squareRoot()
            let inSound = level > 0.02
            let allowed = inSound ? 0.02 : found.uncertaintyMs / 1000 + 0.02
            #expect(
                abs(found.atSeconds - expected.at) < allowed,
                "dropout at \(found.atSeconds) s ±\(found.uncertaintyMs) ms, truth \(expected.at) s, in sound: \(inSound)"
            )
            if inSound { #expect(found.uncertaintyMs < 20, "±\(found.uncertaintyMs) ms in sound") }
            #expect(
                abs(found.missingMs - expected.missing * 1000) < 1,
                "\(found.missingMs) ms, truth \(expected.missing * 1000)")
        }
        let drift = try #require(m.driftPPM)
        #expect(abs(drift) < 1, "drift \(drift) ppm")
        #expect(abs(try #require(m.offsetMs) - 250) < 0.1)
    }

    @Test func inSyncPair() throws {
        let m = try measure(TwoMicrophones(seconds: 120, seed: 9))
        #expect(m.model == .inSync, "\(m.model) offset \(m.offsetMs ?? .nan) drift \(m.driftPPM ?? .nan)")
    }

    @Test func recordingCoversOnlyTheMiddleOfTheReference() throws {
        // The recorder ran for 2 minutes from minute 3 of a 6-minute reference.
        var scene = TwoMicrophones(seconds: 120, offset: 180, driftPPM: -60, seed: 13)
        let reference = TwoMicrophones(seconds: 360, seed: 13).reference()
        scene.seconds = 120
        let m = try measure(scene.recording(), reference, rate: 16000)
        let offset = try #require(m.offsetMs)
        let drift = try #require(m.driftPPM)
        #expect(abs(offset - 180_000) < 0.1, "offset \(offset)")
        #expect(abs(drift - -60) < 2, "drift \(drift)")
    }

    @Test func musicWithAStrongBeat() throws {
        let m = try measure(TwoMicrophones(seconds: 240, offset: 0.73, driftPPM: 95, sound: .music, seed: 17))
        let offset = try #require(m.offsetMs)
        let drift = try #require(m.driftPPM)
        #expect(abs(offset - 730) < 0.1, "offset \(offset)")
        #expect(abs(drift - 95) < 1, "drift \(drift)")
    }

    @Test func aWrongPairingIsUnmeasurable() throws {
        for seed in [UInt64(21), 22, 23] {
            let reference = TwoMicrophones(seconds: 180, seed: seed).reference()
            let other = unrelatedRecording(sampleRate: 16000, seconds: 170, seed: seed)
            let m = try measure(other, reference, rate: 16000)
            #expect(
                m.model == .unmeasurable, "seed \(seed): \(m.model) offset \(m.offsetMs ?? .nan) conf \(m.confidence)")
            #expect(m.offsetMs == nil && m.driftPPM == nil)
            #expect(m.reason != nil)
        }
    }

    @Test func aLoopHasNoUniquePlace() throws {
        let m = try measure(TwoMicrophones(seconds: 120, offset: 4, sound: .loop, seed: 27))
        // A bar repeated exactly matches every bar: no confident answer may come out.
        #expect(m.model == .unmeasurable, "\(m.model) offset \(m.offsetMs ?? .nan)")
    }

    @Test func silentReference() throws {
        let recording = TwoMicrophones(seconds: 60, seed: 31).recording()
        let silence = [Float](repeating: 0, count: 61 * 16000)
        let m = try measure(recording, silence, rate: 16000)
        #expect(m.model == .unmeasurable)
        #expect(m.reason == "the reference is silent")
    }

    @Test(
        "drifts the windows cannot follow: NTSC pull-down and 3000 ppm found by themselves, a 44.1 kHz recording labelled 48 kHz through the headers' hint",
        arguments: [(1000.0, false), (-999.0, false), (3000.0, false), (-81250.0, true)])
    func largeDrifts(drift: Double, headerHint: Bool) throws {
        let scene = TwoMicrophones(seconds: 180, offset: 0.3, driftPPM: drift, seed: 41)
        let hints = headerHint ? [(scene.seconds / scene.referenceSeconds - 1) * 1e6] : []
        let m = try ContentMeasurer().measure(
            recording: MeasuredInput(path: "recording", sampleRate: 16000) {
                MemoryAudioSource(scene.recording(), channels: 1)
            },
            reference: MeasuredInput(path: "reference", sampleRate: 16000) {
                MemoryAudioSource(scene.reference(), channels: 1)
            },
            driftHints: hints)
        let found = try #require(m.driftPPM, "\(m.reason ?? "")")
        #expect(abs(found - drift) < 1, "drift \(found), truth \(drift)")
        #expect(abs(try #require(m.offsetMs) - 300) < 0.5)
    }

    @Test func differentRatesOnEachSide() throws {
        // A 48 kHz recording against a 44.1 kHz reference of the same scene.
        let recording = TwoMicrophones(sampleRate: 48000, seconds: 120, offset: 0.5, driftPPM: -200, seed: 37)
        var reference = recording
        reference.sampleRate = 44100
        let m = try measure(recording.recording(), reference.reference(), rate: 48000, referenceRate: 44100)
        let offset = try #require(m.offsetMs)
        let drift = try #require(m.driftPPM)
        #expect(abs(offset - 500) < 0.2, "offset \(offset)")
        #expect(abs(drift - -200) < 2, "drift \(drift)")
    }
}
