import Testing

@testable import DriftCore

/// A clip cut out of a long recording, planned from measurements written down by hand, each frame count worked out
/// here from the clip's place, the recorder's drift and its dropouts.
@Suite("Clip operations")
struct ClipOperationsTests {
    func measurement(
        clipStart seconds: Double, drift: Double, error: Double = 0.05,
        dropouts: [ContentMeasurement.Dropout] = []
    ) -> ContentMeasurement {
        // The offset is the clip time of the recording's first frame: the clip started `seconds` of recording time in.
        var m = ContentMeasurement(
            offsetMs: -seconds / (1 + drift * 1e-6) * 1000, driftPPM: drift, driftPPMError: error,
            model: dropouts.isEmpty ? .clock : .dropouts, confidence: 0.9, dropouts: dropouts)
        m.offsetMsError = 0.01
        return m
    }

    @Test(
        "an hour in, on a drift within its own error: cut where the clip starts (the measured rate undoes the offset), no resample"
    )
    func deepInOnAnInsignificantDrift() throws {
        let ops = try ContentRepairPlan.clipOperations(
            for: measurement(clipStart: 3600, drift: 8, error: 12), frames: 48_000 * 7200, sampleRate: 48_000,
            clipFrames: 48_000 * 60
        ).get()
        // 3600 s of recording before the clip, 60 s of it, the rest after; no length change within the drift's error.
        let after: Int64 = 345_600_000 - 172_800_000 - 2_880_000
        let expected: [RepairOperation] = [.trimStart(frames: 172_800_000), .trimEnd(frames: after)]
        #expect(ops == expected)
    }

    @Test("a slow recorder: the clip's frames at the recorder's clock, then resampled to exactly the clip's length")
    func slowClock() throws {
        let ops = try ContentRepairPlan.clipOperations(
            for: measurement(clipStart: 100, drift: -131), frames: 48_000 * 600, sampleRate: 48_000,
            clipFrames: 2_880_000
        ).get()
        let needed = Int64((2_880_000.0 * (1 - 131e-6)).rounded())  // the clip's 60 s on the recorder's clock
        let after: Int64 = 28_800_000 - 4_800_000 - needed
        let expected: [RepairOperation] = [
            .trimStart(frames: 4_800_000), .trimEnd(frames: after), .resample(frames: 2_880_000),
        ]
        #expect(ops == expected)
    }

    @Test("started after the clip and stopped before its end: silence both sides, a dropout inside re-inserted")
    func partialCoverage() throws {
        let inside = ContentMeasurement.Dropout(atSeconds: 5, missingMs: 20, uncertaintyMs: 1)
        // The recording (10 s) started 2 s into a 20 s clip.
        let ops = try ContentRepairPlan.clipOperations(
            for: measurement(clipStart: -2, drift: 0, dropouts: [inside]), frames: 480_000, sampleRate: 48_000,
            clipFrames: 960_000
        ).get()
        // 2 s of silence, the 10 s with 960 frames re-inserted at 5 s, then silence to the clip's 20 s.
        let tail: Int64 = 960_000 - 96_000 - 960 - 480_000
        let expected: [RepairOperation] = [
            .padStart(frames: 96_000), .padEnd(frames: tail), .insert(atFrame: 240_000, frames: 960),
        ]
        #expect(ops == expected)
    }

    @Test("a dropout in the clip's last frames would push past its end: left out, the length still the clip's")
    func dropoutAtTheEnd() throws {
        let inside = ContentMeasurement.Dropout(atSeconds: 3, missingMs: 20, uncertaintyMs: 1)
        let last = ContentMeasurement.Dropout(atSeconds: 335_030.0 / 48_000, missingMs: 20, uncertaintyMs: 1)
        // A 5 s clip 2 s into a 20 s recording: it ends at frame 336000, 335040 once the first gap is re-inserted.
        let ops = try ContentRepairPlan.clipOperations(
            for: measurement(clipStart: 2, drift: 0, dropouts: [inside, last]), frames: 960_000, sampleRate: 48_000,
            clipFrames: 240_000
        ).get()
        let expected: [RepairOperation] = [
            .trimStart(frames: 96_000), .trimEnd(frames: 960_000 - 335_040), .insert(atFrame: 144_000, frames: 960),
        ]
        #expect(ops == expected)
    }

    @Test("the recording ends before the clip starts, or starts after it ends: refused by name")
    func outside() {
        #expect(throws: ContentRefusal.self) {
            try ContentRepairPlan.clipOperations(
                for: measurement(clipStart: 20, drift: 0), frames: 480_000, sampleRate: 48_000,
                clipFrames: 48_000
            ).get()
        }
        #expect(throws: ContentRefusal.self) {
            try ContentRepairPlan.clipOperations(
                for: measurement(clipStart: -30, drift: 0), frames: 480_000, sampleRate: 48_000,
                clipFrames: 48_000
            ).get()
        }
    }
}
