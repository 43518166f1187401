import ArgumentParser
import DriftAV
import DriftAudio
import DriftCore
import DriftFixtures
import DriftRepair
import Foundation

/// The content measurement's accuracy table: scenes with known offset, drift and dropouts, the recording a close
/// stereo microphone on a faulty clock, the reference a distant reverberant one coded as AAC 96 kb/s by ffmpeg; each
/// measured and repaired by driftfix (measure, decide, repair, prove in sync), each compared with the truth. Where the
/// file is short enough to render its ideal (the scene on a perfect clock), the repaired output is also checked
/// against it by a direct time-domain correlation that shares no code with driftfix.
struct ContentAccuracy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content-accuracy", abstract: "Measure content measurement and repair against known truths.")

    @Option(help: "Folder for the generated pairs.") var folder: String
    @Option(help: "Include the one-hour pair.") var long = true
    @Option(help: "Only the cases whose name contains this.") var only: String?

    struct Case {
        var name: String
        var scene: TwoMicrophones
        /// A reference of its own (a longer scene, an unrelated take, silence); nil: the scene's reference.
        var reference: Reference = .scene
        /// What must come out: measured, or unmeasurable.
        var measurable = true

        enum Reference {
            case scene
            case longer(seconds: Double)
            case unrelated, silence
        }
    }

    func cases() -> [Case] {
        var list: [Case] = []
        list.append(
            Case(
                name: "clock, late start (speech, 10 min)",
                scene: TwoMicrophones(sampleRate: 48000, seconds: 600, offset: 2.0, driftPPM: -131, seed: 3)))
        list.append(
            Case(
                name: "clock, early start (speech, 30 min)",
                scene: TwoMicrophones(sampleRate: 48000, seconds: 1800, offset: -0.75, driftPPM: 57, seed: 5)))
        var dropouts = TwoMicrophones(sampleRate: 48000, seconds: 600, offset: 0.25, seed: 7)
        dropouts.dropouts = [
            (dropouts.soundingTime(after: 61.3), 0.0213), (dropouts.soundingTime(after: 187.8), 0.1),
            (dropouts.soundingTime(after: 402.1), 0.008), (dropouts.soundingTime(after: 530), 0.046),
        ]
        list.append(Case(name: "dropouts in sound (speech, 10 min)", scene: dropouts))
        list.append(
            Case(
                name: "clock, strong beat (music, 10 min)",
                scene: TwoMicrophones(
                    sampleRate: 48000, seconds: 600, offset: 0.73, driftPPM: 95, sound: .music, seed: 17)))
        list.append(
            Case(
                name: "covers the middle of the reference (5 of 20 min)",
                scene: TwoMicrophones(sampleRate: 48000, seconds: 300, offset: 600, driftPPM: -40, seed: 13),
                reference: .longer(seconds: 1200)))
        list.append(
            Case(
                name: "wrong pairing (another take)", scene: TwoMicrophones(sampleRate: 48000, seconds: 300, seed: 21),
                reference: .unrelated, measurable: false))
        list.append(
            Case(
                name: "silence-only reference", scene: TwoMicrophones(sampleRate: 48000, seconds: 300, seed: 23),
                reference: .silence, measurable: false))
        list.append(
            Case(
                name: "a loop (no unique place)",
                scene: TwoMicrophones(sampleRate: 48000, seconds: 300, offset: 4, sound: .loop, seed: 27),
                measurable: false))
        // Clocks that wander (20 minutes each): warming, a heater cycling, a rate step.
        for (name, drift, wander) in [
            (
                "clock warming, -131 → -101 ppm (speech, 20 min)", -131.0,
                ClockWander.ramp(endPPM: -101, overSeconds: 1200)
            ),
            (
                "clock cycling, -50 ± 15 ppm every 5 min (speech, 20 min)", -50,
                .cycle(amplitudePPM: 15, periodSeconds: 300)
            ),
            ("rate step at 600 s, -131 → -31 ppm (speech, 20 min)", -131, .step(atSeconds: 600, toPPM: -31)),
        ] {
            var scene = TwoMicrophones(sampleRate: 48000, seconds: 1200, offset: 0.5, driftPPM: drift, seed: 7)
            scene.wander = wander
            list.append(Case(name: name, scene: scene))
        }
        if long {
            list.append(
                Case(
                    name: "clock, slight (speech, 60 min)",
                    scene: TwoMicrophones(sampleRate: 48000, seconds: 3600, offset: 0.3, driftPPM: -20, seed: 31)))
        }
        return list.filter { item in only.map { item.name.contains($0) } ?? true }
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        print("| case | truth | measured | error | residual after repair | independent check | measure ×RT |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for (index, item) in cases().enumerated() {
            let (recording, reference) = try writePair(item, index: index)
            let clock = ContinuousClock.now
            let measurement = try ContentProbe.measure(recording: recording, reference: reference)
            let measureSeconds = (ContinuousClock.now - clock).seconds
            let speed = item.scene.seconds / measureSeconds
            guard item.measurable else {
                let verdict = measurement.isMeasured ? "MEASURED (wrong)" : "unmeasurable: \(measurement.reason ?? "")"
                print(
                    "| \(item.name) | unmeasurable | \(verdict) | \(measurement.isMeasured ? "FAIL" : "none") | — | — | \(Int(speed)) |"
                )
                continue
            }
            var row = comparison(item, measurement)
            if !item.scene.dropouts.isEmpty { compareDropouts(item, measurement, into: &row) }
            let repaired = try repair(item, index: index, recording: recording, reference: reference)
            print(
                "| \(item.name) | \(row.truth) | \(row.measured) | \(row.error) | \(repaired.residual) | \(repaired.independent) | \(Int(speed)) |"
            )
        }
    }

    /// Writes a case's recording (WAV) and reference (AAC in M4A) into the folder, clearing what an earlier run left.
    private func writePair(_ item: Case, index: Int) throws -> (recording: String, reference: String) {
        let recording = "\(folder)/case\(index)-recording.wav"
        let referenceWAV = "\(folder)/case\(index)-reference.wav"
        let reference = "\(folder)/case\(index)-reference.m4a"
        for path in [recording, referenceWAV, reference, "\(folder)/case\(index)-out.wav"] { unlink(path) }
        try item.scene.write(.recording, to: recording, channels: 2)
        switch item.reference {
        case .scene: try item.scene.write(.reference, to: referenceWAV, encoding: .pcm16)
        case .longer(let seconds):
            try TwoMicrophones(sampleRate: 48000, seconds: seconds, seed: item.scene.seed).write(
                .reference, to: referenceWAV, encoding: .pcm16)
        case .unrelated:
            try TwoMicrophones(sampleRate: 48000, seconds: item.scene.seconds + 5, seed: item.scene.seed &+ 1000)
                .write(.reference, to: referenceWAV, encoding: .pcm16)
        case .silence:
            try writeSilence(to: referenceWAV, seconds: item.scene.seconds + 1)
        }
        try aac(referenceWAV, to: reference)
        unlink(referenceWAV)
        return (recording, reference)
    }

    /// A measurable case's table cells: the truth, what was measured, and the error.
    private struct Comparison {
        var truth: String
        var measured: String
        var error: String
    }

    /// The offset and drift against the truth; for a wandering clock, its drift at the first and last window.
    private func comparison(_ item: Case, _ measurement: ContentMeasurement) -> Comparison {
        let truthOffset = item.scene.offset * 1000
        var row = Comparison(
            truth: "offset \(fmt(truthOffset, 1)) ms, drift \(fmt(item.scene.driftPPM, 1)) ppm",
            measured:
                "offset \(fmt(measurement.offsetMs, 3)) ms, drift \(fmt(measurement.driftPPM, 3)) ± \(fmt(measurement.driftPPMError, 3)) ppm",
            error:
                "offset \(fmt(measurement.offsetMs.map { $0 - truthOffset }, 3)) ms, drift \(fmt(measurement.driftPPM.map { $0 - item.scene.driftPPM }, 3)) ppm"
        )
        guard item.scene.wander != nil else { return row }
        let (from, to) = (
            measurement.clock?.fromSeconds ?? 0, measurement.clock?.toSeconds ?? item.scene.seconds
        )
        let truth = (item.scene.driftPPM(at: from), item.scene.driftPPM(at: to))
        row.truth =
            "offset \(fmt(truthOffset, 1)) ms, drift \(fmt(truth.0, 2)) → \(fmt(truth.1, 2)) ppm at \(fmt(from, 1)) → \(fmt(to, 1)) s"
        if let clock = measurement.clock {
            row.measured =
                "\(measurement.model.rawValue): offset \(fmt(measurement.offsetMs, 3)) ms, drift \(fmt(clock.startPPM, 2)) → \(fmt(clock.endPPM, 2)) ppm (\(fmt(clock.minPPM, 2))…\(fmt(clock.maxPPM, 2)))"
                + clock.rateSteps.map {
                    "; step at \(fmt($0.atSeconds, 2)) ± \(fmt($0.uncertaintySeconds, 2)) s"
                }.joined()
            row.error =
                "offset \(fmt(measurement.offsetMs.map { $0 - truthOffset }, 3)) ms, drift \(fmt(clock.startPPM - truth.0, 2)) / \(fmt(clock.endPPM - truth.1, 2)) ppm"
        } else {
            row.measured = "\(measurement.model.rawValue) (a straight line: the wander not found)"
            row.error = "FAIL"
        }
        return row
    }

    /// Adds the dropouts, planted and found, to a row's cells.
    private func compareDropouts(_ item: Case, _ measurement: ContentMeasurement, into row: inout Comparison) {
        row.truth +=
            "; dropouts "
            + item.scene.dropouts.map { "\(fmt($0.at, 3)) s/\(fmt($0.missing * 1000, 1)) ms" }.joined(
                separator: ", ")
        row.measured +=
            "; dropouts "
            + measurement.dropouts.map {
                "\(fmt($0.atSeconds, 3)) s ± \(fmt($0.uncertaintyMs, 1)) ms/\(fmt($0.missingMs, 2)) ms"
            }.joined(separator: ", ")
        let pairs = zip(item.scene.dropouts, measurement.dropouts)
        row.error +=
            "; dropouts "
            + pairs.map { truth, found in
                "\(fmt((found.atSeconds - truth.at) * 1000, 1)) ms/\(fmt(found.missingMs - truth.missing * 1000, 2)) ms"
            }.joined(separator: ", ")
        if measurement.dropouts.count != item.scene.dropouts.count {
            row.error += " (\(measurement.dropouts.count) found)"
        }
    }

    /// Repairs a case by content, proved in sync: the residual lag, and the independent check against the ideal where
    /// the scene is short enough to render it.
    private func repair(_ item: Case, index: Int, recording: String, reference: String) throws -> (
        residual: String, independent: String
    ) {
        let output = "\(folder)/case\(index)-out.wav"
        let recordingSeconds = item.scene.seconds
        let referenceSeconds = try AudioInput.length(of: reference)
        let headers = HeaderPlan(
            operations: [], driftPPM: (recordingSeconds / (Double(referenceSeconds.frames) / 48000) - 1) * 1e6,
            recordingSeconds: recordingSeconds, referenceSeconds: Double(referenceSeconds.frames) / 48000,
            referenceFrames: referenceSeconds.frames)
        var residualText = "—"
        var independent = "—"
        do {
            let outcome = try ContentRepair.run(
                ContentRepair.Request(
                    recording: recording, reference: reference, output: output,
                    policy: ContentPolicy(mode: .content),
                    headers: headers))
            residualText =
                outcome.content?.residualMs.map { "\(fmt($0, 3)) ms" }
                ?? "not repaired (\(outcome.decision.action))"
            if outcome.result != nil, item.scene.seconds <= 1200, case .scene = item.reference {
                independent = try idealCheck(output: output, scene: item.scene)
            }
        } catch {
            residualText = "FAILED: \(error)"
        }
        unlink(output)
        return (residualText, independent)
    }

    /// The output's worst lag against the ideal (the scene on a perfect clock from the reference's start), by direct
    /// correlation of half-second windows at 40 places where both carry sound, searched within ±2 ms (a wider search
    /// lets a sustained vowel's pitch period win over its true alignment); a peak at the search's edge counts as a
    /// window off by more than 2 ms.
    func idealCheck(output: String, scene: TwoMicrophones) throws -> String {
        let out = try readAll(output)
        let channels = out.format.channelCount
        let mono = stride(from: 0, to: out.samples.count, by: channels).map { out.samples[$0] }
        var ideal = scene
        ideal.offset = 0
        ideal.driftPPM = 0
        ideal.dropouts = []
        ideal.wander = nil
        ideal.seconds = Double(mono.count) / 48000
        let truth = ideal.recording()
        var worst = 0.0
        var counted = 0
        var beyond = 0
        let window = 24000
        let first = Int(max(0, scene.offset) * 48000) + 48000
        for k in 0..<40 {
            let at = first + k * (mono.count - first - 2 * window) / 40
            let (lag, correlation) = SignalMeasure.windowLag(
                actual: mono, ideal: truth, at: at, window: window, maxLag: 96)
            guard correlation > 0.6 else { continue }
            counted += 1
            if abs(lag) >= 95 { beyond += 1 } else { worst = max(worst, abs(lag) / 48) }
        }
        return "worst \(fmt(worst, 3)) ms at \(counted) places" + (beyond > 0 ? ", \(beyond) beyond 2 ms" : "")
    }

    func aac(_ input: String, to output: String) throws {
        let result = try Child(
            "/usr/bin/ffmpeg",
            ["-nostdin", "-loglevel", "error", "-y", "-i", input, "-c:a", "aac", "-b:a", "96k", output],
            stdout: .discard, stderr: .discard
        ).wait(seconds: 600)
        guard result.status == 0, !result.signaled else { throw ValidationError("ffmpeg could not code \(input)") }
    }

    func writeSilence(to path: String, seconds: Double) throws {
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48000, channelCount: 1)
        let writer = try AudioFileWriter(path: path, format: format, metadata: AudioMetadata())
        let block = [Float](repeating: 0, count: 48000)
        for _ in 0..<Int(seconds.rounded(.up)) {
            try block.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: 48000) }
        }
        try writer.close()
    }

    func fmt(_ value: Double?, _ decimals: Int) -> String { value.map { String($0, decimals: decimals) } ?? "—" }
}
