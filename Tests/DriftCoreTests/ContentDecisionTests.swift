import Testing

@testable import DriftCore

/// The content policy's decisions and the named disagreements, on measurements written down by hand: what the sound
/// would say about a pair whose story is known.
@Suite("Content decisions")
struct ContentDecisionTests {
    /// A clean measurement: offset, drift, dropouts; confident.
    func measured(
        offset: Double = 0, drift: Double = 0, dropouts: [ContentMeasurement.Dropout] = [],
        confidence: Double = 0.8
    ) -> ContentMeasurement {
        var m = ContentMeasurement(
            offsetMs: offset, driftPPM: drift, driftPPMError: 0.05,
            model: !dropouts.isEmpty ? .dropouts : abs(offset) < 1 && abs(drift) < 1 ? .inSync : .clock,
            confidence: confidence, dropouts: dropouts, scatterMs: 0.02, windows: 600, agreeingWindows: 500)
        m.offsetMsError = 0.01
        return m
    }

    func unmeasurable(_ kind: ContentMeasurement.Unmeasurable) -> ContentMeasurement {
        ContentMeasurement(
            offsetMs: nil, driftPPM: nil, driftPPMError: nil, model: .unmeasurable, confidence: 0,
            reason: "because", unmeasurable: kind)
    }

    /// The headers of a 600 s recording whose reference is `referenceSeconds` long, at 48 kHz.
    func headers(recording: Double = 600, reference: Double) -> HeaderPlan {
        let drift = (recording / reference - 1) * 1e6
        let target = Int64((reference * 48000).rounded())
        return HeaderPlan(
            operations: abs(recording - reference) < 0.001 ? [] : [.resample(frames: target)], driftPPM: drift,
            recordingSeconds: recording, referenceSeconds: reference, referenceFrames: target)
    }

    func decide(_ mode: ContentPolicy.Mode, _ measurement: ContentMeasurement?, _ headers: HeaderPlan)
        -> ContentDecision
    {
        var m = measurement
        m?.compare(
            headerDriftPPM: headers.driftPPM, recordingSeconds: headers.recordingSeconds,
            referenceSeconds: headers.referenceSeconds)
        return ContentDecision.decide(
            policy: ContentPolicy(mode: mode), measurement: m, headers: headers,
            recordingFrames: Int64(headers.recordingSeconds * 48000), sampleRate: 48000)
    }

    @Test(
        "names: the story of each pair, as the sound and the headers tell it",
        arguments: [
            // (offset ms, content drift ppm, recording s, reference s, expected name)
            (0.0, -131.0, 600.0, 600.0 * (1 + 131e-6), nil as String?),  // a slow clock both see alike
            (2000.0, 0.0, 598.0, 600.0, "late start"),  // started 2 s late, stopped together
            (2000.0, 0.0, 600.0, 600.0, "late start"),  // started late, ran 2 s past the end
            (-1500.0, 0.0, 601.5, 600.0, "early start"),
            (0.0, 0.0, 590.0, 600.0, "early stop"),  // stopped 10 s before the camera
            (0.0, -131.0, 600.0, 600.0, "late stop"),  // the headers miss a real drift
        ])
    func names(offset: Double, drift: Double, recording: Double, reference: Double, expected: String?) {
        var m = measured(offset: offset, drift: drift)
        m.compare(
            headerDriftPPM: (recording / reference - 1) * 1e6, recordingSeconds: recording, referenceSeconds: reference)
        #expect(m.disagreement == expected)
        #expect(m.headersAgree == (expected == nil))
    }

    @Test("a lying header: the recording ends where the reference's own sound ends, not where its header says")
    func lyingHeader() {
        var m = measured()
        m.referenceSoundSeconds = 600
        m.compare(headerDriftPPM: (600 / 630 - 1) * 1e6, recordingSeconds: 600, referenceSeconds: 630)
        #expect(m.disagreement == "lying header")
    }

    @Test("dropouts agree with headers that saw the lost time as drift, and content re-inserts them")
    func dropoutsAgree() throws {
        let m = measured(dropouts: [.init(atSeconds: 100, missingMs: 30), .init(atSeconds: 400, missingMs: 12)])
        let h = headers(recording: 600, reference: 600.042)
        let decision = decide(.both, m, h)
        #expect(decision.measuredBy == .content)
        #expect(
            decision.action
                == .repair([.insert(atFrame: 4_800_000, frames: 1440), .insert(atFrame: 19_200_000, frames: 576)]))
    }

    @Test("modes: content repairs a late start, both refuses it by name, headers ignores the sound")
    func modes() {
        let m = measured(offset: 2000, drift: -131)
        let h = headers(recording: 598, reference: 600)
        guard case .repair(let operations) = decide(.content, m, h).action else {
            Issue.record("content did not repair")
            return
        }
        // The late start padded (in recording frames: 2 s at the recorder's slow clock), then the rate corrected.
        #expect(operations.count == 2)
        let expected: Double = 2 * 48000 * (1 - 131e-6)
        if case .padStart(let frames) = operations[0] {
            #expect(abs(Double(frames) - expected) <= 1)
        } else {
            Issue.record("no pad-start: \(operations)")
        }
        guard case .refuse(let reason) = decide(.both, m, h).action else {
            Issue.record("both did not refuse")
            return
        }
        #expect(reason.contains("late start"))
        let byHeaders = decide(.headers, m, h)
        #expect(byHeaders.measuredBy == .headers && byHeaders.action == .repair(h.operations))
    }

    @Test("the length lands on the reference's exactly when the sound cannot tell them apart")
    func snapsToTheReference() {
        let m = measured(drift: -131)
        let h = headers(recording: 600, reference: 600 * (1 + 131e-6))
        #expect(decide(.content, m, h).action == .repair([.resample(frames: h.referenceFrames!)]))
    }

    @Test("unmeasurable pairs: a wrong pairing is refused in both modes; silence falls back to the headers")
    func unmeasurablePairs() {
        let h = headers(reference: 600.05)
        for mode in [ContentPolicy.Mode.content, .both] {
            guard case .refuse(let reason) = decide(mode, unmeasurable(.noCommonSound), h).action else {
                Issue.record("\(mode) did not refuse a wrong pairing")
                continue
            }
            #expect(reason.contains("wrong pairing"))
            let silent = decide(mode, unmeasurable(.silentReference), h)
            #expect(silent.measuredBy == .headers && silent.action == .repair(h.operations))
        }
        // A repeating sound: content refuses (it cannot tell), both lets the headers plan it.
        #expect({ if case .refuse = decide(.content, unmeasurable(.repetitive), h).action { true } else { false } }())
        #expect(decide(.both, unmeasurable(.repetitive), h).measuredBy == .headers)
        // No sound of its own at all.
        #expect(decide(.content, nil, h).measuredBy == .headers)
    }

    @Test("below the confidence floor the sound is not used")
    func confidenceFloor() {
        let h = headers(reference: 600.05)
        let weak = measured(offset: 700, confidence: 0.3)
        #expect(decide(.both, weak, h).measuredBy == .headers)
        guard case .refuse(let reason) = decide(.content, weak, h).action else {
            Issue.record("content did not refuse")
            return
        }
        #expect(reason.contains("confidence 0.30 is below the floor 0.50"))
    }

    @Test("in sync by the sound: nothing to do, whatever the headers say within their precision")
    func inSync() {
        let decision = decide(.both, measured(), headers(reference: 600.03))
        #expect(decision.action == .skip("in sync by its sound") && decision.measuredBy == .content)
    }

    @Test("a repeated stretch of sound cannot be repaired by re-insertion")
    func repeated() {
        let m = measured(dropouts: [.init(atSeconds: 100, missingMs: -20)])
        guard case .refuse(let reason) = decide(.content, m, headers(reference: 599.98)).action else {
            Issue.record("not refused")
            return
        }
        #expect(reason.contains("repeated"))
    }
}
