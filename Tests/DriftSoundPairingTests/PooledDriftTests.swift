import DriftCore
import DriftSchema
import Testing

@testable import DriftSoundPairing

@Suite("A recorder's drift from all the clips it heard")
struct PooledDriftTests {
    private func row(
        _ clip: String, _ recording: String, drift: Double, error: Double,
        status: SoundPairingReport.Match.Status = .used
    ) -> SoundPairingReport.Match {
        SoundPairingReport.Match(
            reference: clip, recording: recording, recordingStartSeconds: 0, recordingEndSeconds: 30, coverage: 1,
            clarity: 10,
            content: ContentMeasurement(
                offsetMs: 0, driftPPM: drift, driftPPMError: error, model: .clock, confidence: 0.8),
            status: status)
    }

    @Test(
        "weighted by 1/σ² per recorder and camera; a clip 3 σ off left out and said; one clip alone or uncertain ones pool nothing"
    )
    func pooled() {
        let rows = [
            row("/s/camA/1.mp4", "/s/rec.wav", drift: -131.2, error: 1.0),
            row("/s/camA/2.mp4", "/s/rec.wav", drift: -130.5, error: 1.2, status: .alternative),
            row("/s/camA/3.mp4", "/s/rec.wav", drift: -131.6, error: 0.8),
            row("/s/camA/4.mp4", "/s/rec.wav", drift: -120.0, error: 1.0),  // a varispeed take
            row("/s/camB/1.mp4", "/s/rec.wav", drift: -95.0, error: 1.0),  // another camera's clock: alone
            row("/s/camA/5.mp4", "/s/rec.wav", drift: -50, error: 1.0, status: .uncertain),
            row("/s/camA/1.mp4", "/s/lav.wav", drift: 57.3, error: 2.0),
            row("/s/camA/3.mp4", "/s/lav.wav", drift: 56.9, error: 1.0),
        ]
        let pooled = SoundPairing.pooledDrift(rows) {
            ($0.split(separator: "/").dropLast().last).map(String.init) ?? ""
        }
        // Computed here: Σ(d/σ²)/Σ(1/σ²) over the three that agree, ± 1/√Σ(1/σ²).
        let weights = [1 / 1.0, 1 / 1.44, 1 / 0.64]
        let expected = (-131.2 * weights[0] - 130.5 * weights[1] - 131.6 * weights[2]) / weights.reduce(0, +)
        for i in 0..<3 {
            #expect(abs((pooled[i].recordingDriftPPM ?? 0) - expected) < 1e-9, "\(pooled[i])")
            #expect(abs((pooled[i].recordingDriftPPMError ?? 0) - 1 / weights.reduce(0, +).squareRoot()) < 1e-9)
            #expect(pooled[i].recordingDriftClips == 3)
        }
        #expect(pooled[3].recordingDriftPPM == nil && (pooled[3].note ?? "").contains("disagrees"), "\(pooled[3])")
        #expect(pooled[4].recordingDriftPPM == nil && pooled[4].note == nil)
        #expect(pooled[5].recordingDriftPPM == nil)
        let lavalier = (57.3 / 4 + 56.9) / (1.0 / 4 + 1)
        #expect(
            abs((pooled[6].recordingDriftPPM ?? 0) - lavalier) < 1e-9
                && abs((pooled[7].recordingDriftPPM ?? 0) - lavalier) < 1e-9)
    }

    @Test(
        "a recorder whose clock wandered over the day: its clips disagree, nothing is pooled, each keeps its own rate")
    func wandering() {
        // Warming from -131 to -101 ppm: four clips an hour apart, each measured to a ppm.
        let rows = [-131.0, -121.5, -110.8, -101.2].enumerated().map { index, drift in
            row("/s/camA/\(index).mp4", "/s/rec.wav", drift: drift, error: 1.0)
        }
        let pooled = SoundPairing.pooledDrift(rows) { _ in "camA" }
        for row in pooled {
            #expect(row.recordingDriftPPM == nil, "\(row)")
            #expect((row.note ?? "").contains("the clip's own rate is used"), "\(row)")
        }
    }
}
