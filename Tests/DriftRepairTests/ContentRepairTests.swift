import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftRepair

/// Pairs measured by their sound and repaired by what was measured, on files, checked against the ideal: the scene
/// as the recorder's microphone would have heard it on a perfect clock started with the reference - rendered
/// independently from the scene's parameters, never derived from driftfix's output.
@Suite struct ContentRepairTests {
    struct Pair {
        let folder = TemporaryFolder()
        let scene: TwoMicrophones
        var recording: String { folder.file("recording.wav") }
        var reference: String

        /// Writes the pair: the recording as 24-bit WAV, the reference as 16-bit WAV or, with `aac`, coded at
        /// 96 kb/s by ffmpeg (the lossy scratch track of a camera).
        init(_ scene: TwoMicrophones, aac: Bool = false) throws {
            self.scene = scene
            reference = folder.file("reference.wav")
            try scene.write(.recording, to: folder.file("recording.wav"))
            try scene.write(.reference, to: reference, encoding: .pcm16)
            if aac {
                _ = try runTool(
                    "/usr/bin/ffmpeg",
                    [
                        "-nostdin", "-loglevel", "error", "-i", reference, "-c:a", "aac", "-b:a", "96k",
                        folder.file("reference.m4a"),
                    ])
                reference = folder.file("reference.m4a")
            }
        }

        var headers: HeaderPlan {
            let recordingSeconds = Double(scene.recordingFrames) / Double(scene.sampleRate)
            let referenceSeconds = Double(scene.referenceFrames) / Double(scene.sampleRate)
            return HeaderPlan(
                operations: [.resample(frames: Int64(scene.referenceFrames))],
                driftPPM: (recordingSeconds / referenceSeconds - 1) * 1e6, recordingSeconds: recordingSeconds,
                referenceSeconds: referenceSeconds, referenceFrames: Int64(scene.referenceFrames))
        }

        func repair(_ mode: ContentPolicy.Mode, start: ContentRepairPlan.Start = .reference) throws
            -> ContentRepair.Outcome
        {
            try ContentRepair.run(
                ContentRepair.Request(
                    recording: recording, reference: reference, output: folder.file("out.wav"),
                    policy: ContentPolicy(mode: mode, start: start), headers: headers))
        }

        /// The output's lag against the ideal at `points` places (where both have sound), in ms.
        func lagsAgainstIdeal(points: Int = 12, skipFirst seconds: Double = 0) throws -> [Double] {
            let out = try readAll(folder.file("out.wav")).samples
            let rate = scene.sampleRate
            var ideal = scene
            ideal.offset = 0
            ideal.driftPPM = 0
            ideal.dropouts = []
            ideal.wander = nil
            ideal.seconds = Double(out.count) / Double(rate)
            let truth = ideal.recording()
            var lags: [Double] = []
            let window = rate / 2
            let first = Int(seconds * Double(rate)) + rate
            for k in 0..<points {
                let at = first + k * (out.count - first - 2 * window) / points
                let (lag, correlation) = SignalMeasure.windowLag(
                    actual: out, ideal: truth, at: at, window: window, maxLag: rate / 100)
                if correlation > 0.6 { lags.append(lag / Double(rate) * 1000) }
            }
            return lags
        }
    }

    @Test("a late start and a slow clock: padded to the reference's start, resampled by the measured rate")
    func lateStartAndClock() throws {
        let pair = try Pair(
            TwoMicrophones(sampleRate: 48000, seconds: 180, offset: 1.5, driftPPM: -131, seed: 41), aac: true)
        let outcome = try pair.repair(.content)
        let content = try #require(outcome.content)
        #expect(outcome.decision.measuredBy == .content)
        #expect(content.model == .clock)
        #expect(abs(try #require(content.offsetMs) - 1500) < 0.5, "offset \(content.offsetMs ?? .nan)")
        #expect(abs(try #require(content.driftPPM) - -131) < 1, "drift \(content.driftPPM ?? .nan)")
        guard case .repair(let operations) = outcome.decision.action else {
            Issue.record("not repaired")
            return
        }
        #expect(
            operations.first == .padStart(frames: Int64((1.5 * 48000 / (1 / (1 - 131e-6))).rounded()))
                || {
                    if case .padStart(let n) = operations.first {
                        return abs(Double(n) - 1.5 * 48000 * (1 - 131e-6)) < 30
                    }
                    return false
                }())
        // The proof: residual within 1 ms, and the independent check agrees everywhere past the padding.
        #expect(try #require(content.residualMs) < 1)
        let lags = try pair.lagsAgainstIdeal(skipFirst: 1.5)
        #expect(lags.count >= 8)
        #expect(lags.allSatisfy { abs($0) < 0.25 }, "lags against the ideal: \(lags) ms")
        // The output ends where the recording's last sound lies in the reference (which ran a second longer).
        let end = pair.scene.referenceTime(pair.scene.seconds) * 48000
        let frames = try AudioFileReader(path: pair.folder.file("out.wav")).frameCount
        #expect(abs(Double(frames) - end) < 3, "\(frames) frames, the recording's end at \(end)")
    }

    @Test("dropouts: the lost time re-inserted where it went missing, the recorded sound untouched between")
    func dropouts() throws {
        // Gaps where the scene has sound (in a pause any place lines up the same, and the locator says so).
        var scene = TwoMicrophones(sampleRate: 48000, seconds: 180, seed: 43)
        let truth: [(at: Double, missing: Double)] = [
            (scene.soundingTime(after: 31.27), 0.0213),
            (scene.soundingTime(after: 77.5), 0.1),
            (scene.soundingTime(after: 140.013), 0.004),
        ]
        scene.dropouts = truth
        let pair = try Pair(scene)
        let outcome = try pair.repair(.content)
        let content = try #require(outcome.content)
        #expect(content.model == .dropouts)
        #expect(content.dropouts.count == 3, "\(content.dropouts)")
        for (found, expected) in zip(content.dropouts, truth) {
            // Within 20 ms, or - a gap of about one pitch period inside a steady vowel leaves the sound as continuous
            // as before, and its place is truly ambiguous - within the uncertainty the measurement states.
            let allowed = max(0.02, found.uncertaintyMs / 1000 + 0.005)
            #expect(
                abs(found.atSeconds - expected.at) < allowed,
                "at \(found.atSeconds) ±\(found.uncertaintyMs) ms, truth \(expected.at)")
            #expect(
                abs(found.missingMs - expected.missing * 1000) < 1,
                "\(found.missingMs) ms, truth \(expected.missing * 1000)")
        }
        guard case .repair(let operations) = outcome.decision.action else {
            Issue.record("not repaired")
            return
        }
        #expect(!operations.contains { if case .resample = $0 { return true } else { return false } }, "\(operations)")
        #expect(try #require(content.residualMs) < 1)
        let lags = try pair.lagsAgainstIdeal()
        #expect(lags.allSatisfy { abs($0) < 0.25 }, "lags against the ideal: \(lags) ms")
        // Between the gaps every sample is the recording's own.
        let input = try readAll(pair.recording).samples
        let out = try readAll(pair.folder.file("out.wav")).samples
        var inserted = 0
        var previous = 0
        var differing = 0
        for operation in operations + [.insert(atFrame: Int64(input.count), frames: 0)] {
            guard case .insert(let at, let frames) = operation else { continue }
            for i in previous..<Int(at) where out[i + inserted] != input[i] { differing += 1 }
            previous = Int(at)
            inserted += Int(frames)
        }
        #expect(differing == 0, "\(differing) recorded samples changed")
    }

    @Test("keep the start: only the rate is corrected, and the offset stays as it was")
    func keepTheStart() throws {
        let pair = try Pair(TwoMicrophones(sampleRate: 48000, seconds: 120, offset: 0.75, driftPPM: 80, seed: 45))
        let outcome = try pair.repair(.content, start: .keep)
        guard case .repair(let operations) = outcome.decision.action else {
            Issue.record("not repaired")
            return
        }
        #expect(operations.count == 1)
        let content = try #require(outcome.content)
        #expect(try #require(content.residualMs) < 1)
    }

    @Test("both: a late start the headers took for drift is refused by name, and nothing is written")
    func bothRefusesADisagreement() throws {
        let pair = try Pair(TwoMicrophones(sampleRate: 48000, seconds: 120, offset: 2, seed: 47))
        let outcome = try pair.repair(.both)
        guard case .refuse(let reason) = outcome.decision.action else {
            Issue.record("not refused: \(outcome.decision)")
            return
        }
        #expect(reason.contains("late start"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: pair.folder.file("out.wav")))
    }

    @Test("content: a wrong pairing is refused; headers: the same pair is repaired as today")
    func wrongPairing() throws {
        let pair = try Pair(TwoMicrophones(sampleRate: 48000, seconds: 60, seed: 49))
        let other = try Pair(TwoMicrophones(sampleRate: 48000, seconds: 60, seed: 1049))
        var request = ContentRepair.Request(
            recording: pair.recording, reference: other.reference, output: pair.folder.file("out.wav"),
            policy: ContentPolicy(mode: .content), headers: pair.headers)
        let refused = try ContentRepair.run(request)
        guard case .refuse(let reason) = refused.decision.action else {
            Issue.record("not refused: \(refused.decision)")
            return
        }
        #expect(reason.contains("wrong pairing"))
        #expect(!FileManager.default.fileExists(atPath: pair.folder.file("out.wav")))
        request.policy.mode = .headers
        let repaired = try ContentRepair.run(request)
        #expect(repaired.decision.measuredBy == .headers)
        #expect(repaired.content == nil)
        #expect(repaired.result?.outputFrames == Int64(pair.scene.referenceFrames))
    }
}
