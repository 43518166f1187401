import DriftFixtures
import DriftKit
import Foundation
import Logging
import Testing

import struct SystemPackage.FilePath

// Written as a caller of the library: `import DriftKit` and nothing of the engine (this target builds with
// MemberImportVisibility, as the command line does), plus the fixtures that generate media with known truths.

private let rate: Int64 = 48_000

/// A generated recording of `frames` frames, and the ideal it should become at any length.
private func recording(
    frames: Int64, in folder: TemporaryFolder, name: String = "take.wav", tonesPerChannel: Int = 6
) throws -> (path: String, signal: TestSignal) {
    let signal = TestSignal(
        channelCount: 2, length: frames, seed: 7, tonesPerChannel: tonesPerChannel, maxCyclesPerSample: 0.2)
    let path = folder.file(name)
    try writeWAV(signal, to: path, sampleRate: Int(rate))
    return (path, signal)
}

@Suite("DriftKit as a library: one-file repair, measurement by the sound, a night's events")
struct LibraryCallerTests {
    @Test("a recording repaired to its reference's length: exact to the frame, the ideal signal, the input untouched")
    func repairToReference() async throws {
        let folder = TemporaryFolder()
        let (input, signal) = try recording(frames: 96_000, in: folder)
        let before = fingerprint(input)
        // The reference: a sound file 131 ppm longer (a slow recorder clock), its frames the truth.
        let target: Int64 = 96_000 + 96_000 * 131 / 1_000_000 + 1
        _ = try recording(frames: target, in: folder, name: "reference.wav")
        let output = folder.file("out/take.wav")
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let repair = RecordingRepair(
            recording: FilePath(input), output: FilePath(output),
            length: .matching(FilePath(folder.file("reference.wav"))))
        let summary = try await repair.run()
        #expect(summary.outputFrames == target && summary.inputFrames == 96_000)
        let (samples, sampleRate, channels, frames) = try readSound(output)
        #expect(frames == target && sampleRate == Int(rate) && channels == 2)
        let snr = SignalMeasure.snr(actual: samples, ideal: signal.ideal(target: target, start: 0, count: Int(target)))
        #expect(snr > 100, "SNR \(snr) dB against the ideal resampled signal")
        #expect(fingerprint(input) == before, "the input is never modified")
        #expect(summary.outputDuration == Rational(target, rate))
    }

    @Test("a length given as a Duration is exact: 2.5 s at 48 kHz is 120,000 frames, a third of a second 16,000")
    func durationIsExact() async throws {
        let folder = TemporaryFolder()
        let (input, _) = try recording(frames: 100_000, in: folder)
        for (duration, frames) in [(Duration.milliseconds(2500), Int64(120_000)), (.seconds(1) / 3, Int64(16_000))] {
            let output = folder.file("out-\(frames).wav")
            let summary = try await RecordingRepair(
                recording: FilePath(input), output: FilePath(output), length: .duration(duration)
            ).run()
            #expect(summary.outputFrames == frames)
            #expect(try readSound(output).frames == frames, "read back from the file")
        }
    }

    @Test("progress as an AsyncSequence: monotonic, ending at the output's length, then the result")
    func progressStream() async throws {
        let folder = TemporaryFolder()
        let (input, _) = try recording(frames: 480_000, in: folder)
        var repair = RecordingRepair(
            recording: FilePath(input), output: FilePath(folder.file("out.wav")), length: .frames(480_048))
        repair.method = .stretch
        let task = repair.start()
        var steps: [RepairProgress] = []
        for await step in task.progress { steps.append(step) }
        let summary = try await task.result()
        #expect(summary.outputFrames == 480_048)
        #expect(!steps.isEmpty)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.framesWritten <= $1.framesWritten })
        #expect(steps.allSatisfy { $0.framesInAll == 480_048 && $0.framesWritten <= 480_048 })
    }

    @Test("a cancelled repair places nothing and leaves no temporary file; the error names the recording")
    func cancellation() async throws {
        let folder = TemporaryFolder()
        // Ten minutes at the best quality (seconds of work on a quiet machine, tens on a loaded one): the cancel
        // comes long before the end. It comes at once, not at the first progress step: a loaded run's caller may not
        // be scheduled again until the repair is done (it was, once, after 25 s), and cancelling then proves nothing.
        // One tone a channel: what is heard does not matter here, and making six cost more than the test.
        let (input, _) = try recording(frames: 48_000 * 600, in: folder, tonesPerChannel: 1)
        var repair = RecordingRepair(
            recording: FilePath(input), output: FilePath(folder.file("out/take.wav")), length: .frames(48_000 * 601))
        repair.quality = .best
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let task = repair.start()
        task.cancel()
        await #expect(throws: RecordingError(file: FilePath(input), cause: .cancelled)) { try await task.result() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("out")).isEmpty)
    }

    @Test("an existing output is refused unless overwrite is asked for, and is left as it was")
    func existingOutput() async throws {
        let folder = TemporaryFolder()
        let (input, _) = try recording(frames: 24_000, in: folder)
        let output = folder.file("exists.wav")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: output))
        var repair = RecordingRepair(recording: FilePath(input), output: FilePath(output), length: .frames(24_010))
        await #expect(throws: RecordingError(file: FilePath(output), cause: .outputExists)) { try await repair.run() }
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "keep me")
        repair.overwrite = true
        #expect(try await repair.run().outputFrames == 24_010)
    }

    @Test("an unreadable recording is one error naming it, not a crash")
    func unreadable() async throws {
        let folder = TemporaryFolder()
        let bad = folder.file("bad.wav")
        try Data("RIFF....WAVEnot audio".utf8).write(to: URL(fileURLWithPath: bad))
        do {
            _ = try await RecordingRepair(
                recording: FilePath(bad), output: FilePath(folder.file("o.wav")), length: .frames(10)
            ).run()
            Issue.record("a broken file repaired")
        } catch {
            #expect(error.file == FilePath(bad))
            guard case .unreadable = error.cause else { return #expect(Bool(false), "\(error.cause)") }
        }
    }

    @Test("drift measured by the sound: a recorder started 1.25 s late on a clock 131 ppm slow")
    func measureBySound() async throws {
        let folder = TemporaryFolder()
        let scene = TwoMicrophones(sampleRate: 48_000, seconds: 120, offset: 1.25, driftPPM: -131, seed: 11)
        try scene.write(.recording, to: folder.file("rec.wav"))
        try scene.write(.reference, to: folder.file("ref.wav"))
        let measured = try await SoundMeasure.drift(
            of: FilePath(folder.file("rec.wav")), against: FilePath(folder.file("ref.wav")))
        #expect(measured.isMeasured)
        let drift = try #require(measured.driftPPM)
        let offset = try #require(measured.offset)
        #expect(abs(drift - -131) < 1, "drift \(drift) ppm")
        #expect(abs((offset - .milliseconds(1250)) / .milliseconds(1)) < 1, "offset \(offset)")
    }

    @Test("a night on this process's threads, watched as an AsyncSequence of events that ends with the run")
    func nightEvents() async throws {
        let tree = try RepairTree(drifted: 3, inSync: 1)
        let out = TemporaryFolder("driftfix-out")
        var repair = Run.Repair(roots: [FilePath(tree.root.path)], outputRoot: FilePath(out.path))
        repair.work = .threads(2)
        let stream = RunEventStream()
        let collected = Task {
            var events: [RunEvent] = []
            for await event in stream.events { events.append(event) }
            return events
        }
        let outcome = try await Run(repair, logger: Logger(label: "test.api"), observer: stream).run()
        let events = await collected.value
        #expect(outcome.succeeded)
        guard case .planned(.repairs, let jobs)? = events.first else {
            Issue.record("the first event plans the round: \(events.first.map { "\($0)" } ?? "none")")
            return
        }
        #expect(jobs.count == 3, "one job per drifted pair")
        #expect(events.last == .finished)
        var repaired: [String: Int64] = [:]
        for case .jobFinished(let job) in events {
            guard case .repaired(let output, let frames, let method) = job.outcome else {
                Issue.record("\(job.input): \(job.outcome)")
                continue
            }
            #expect(method == .resample)
            repaired[output.pathText] = frames
        }
        for entry in tree.entries where entry.expected == .repaired {
            let output = tree.output(entry, in: out.path)
            #expect(repaired[output] == entry.target, "\(output)")
            #expect(try readSound(output).frames == entry.target)
        }
    }

    @Test(
        "a scan and a sync as their own types: what each command cannot use is no field of it, and a scan writes nothing"
    )
    func commandTypes() async throws {
        let tree = try RepairTree(drifted: 2, inSync: 1)
        let scan = Run.Scan(roots: [FilePath(tree.root.path)])
        #expect(scan.settings.outputRoot == nil)
        let before = try FileManager.default.subpathsOfDirectory(atPath: tree.root.path).sorted()
        let scanned = try await Run(scan, logger: Logger(label: "test.api")).run()
        #expect(scanned.report.pairs.count == 3)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: tree.root.path).sorted() == before)

        // The rows' times as spans, from the lengths the tree was written with (frames at 48 kHz).
        func near(_ a: Duration?, _ b: Duration) -> Bool { a.map { abs(($0 - b) / .microseconds(1)) < 1 } ?? false }
        var clockRows = 0
        for entry in tree.entries {
            let row = try #require(scanned.report.pairs.first { $0.recording == FilePath(entry.recording) })
            let recording = Duration.seconds(Double(entry.frames) / 48_000)
            let difference = Duration.seconds(Double(entry.frames - entry.target) / 48_000)
            #expect(
                near(row.recordingLength, recording), "\(entry.recording): \(String(describing: row.recordingLength))")
            #expect(near(row.referenceLength, .seconds(Double(entry.target) / 48_000)))
            #expect(near(row.lengthDifference, difference))
            #expect(near(row.lengths?.difference, difference))
            #expect(row.startOffset == nil, "the lengths cannot tell a start")
            // Where a clock explains the lengths, its loss over the take is their difference, and the sound ends off
            // by as much; lengths no clock explains (thousands of ppm here) carry neither.
            guard row.cause != .lengthsDiffer else {
                #expect(row.drift == nil && row.endOffset == nil)
                continue
            }
            clockRows += 1
            #expect(near(row.drift, difference), "\(String(describing: row.drift))")
            #expect(near(row.endOffset, difference))
        }
        #expect(clockRows == 1, "the pair in sync")
        #expect(near(scanned.report.summary.totalAudio, .seconds(Double(3 * 12_000) / 48_000)))

        // A sync pairs by the sound, or by names first: a configuration that pairs by names alone does not make it
        // one, and names-then-sound there is kept.
        var configuration = Configuration()
        configuration.pairing.pairBy = .name
        var sync = Run.Sync(roots: [FilePath(tree.root.path)], configuration: configuration)
        #expect(sync.settings.pairing == .sound)
        configuration.pairing.pairBy = .nameThenSound
        sync.configuration = configuration
        #expect(sync.settings.pairing == .nameThenSound)
        sync.pairing = .sound
        #expect(sync.settings.pairing == .sound)
        sync.threads = 3
        guard case .threads(3)? = sync.settings.work else {
            Issue.record("a sync runs on this process's threads: \(String(describing: sync.settings.work))")
            return
        }
    }

    @Test("policies are set in Durations and keep the numbers their JSON and YAML name: ms where the key says ms")
    func policySpans() throws {
        let policy = ContentPolicy(mode: .content, residualLimit: .microseconds(2500), headerPrecision: .seconds(0.04))
        #expect(policy.residualLimit == .microseconds(2500))
        let stored = try JSONSerialization.jsonObject(with: JSONEncoder().encode(policy)) as? [String: Any]
        #expect(stored?["residualLimitMs"] as? Double == 2.5)
        #expect(stored?["headerPrecisionMs"] as? Double == 40)
        #expect(ContentPolicy().residualLimit == .milliseconds(1), "the default limit is 1 ms")

        var rule = AlertRule(driftPPM: 20, spreadPPM: 10, start: .milliseconds(200))
        #expect(rule.start == .milliseconds(200))
        rule.start = nil
        #expect(rule.start == nil && AlertRule(driftPPM: 20, spreadPPM: 10).start == nil)

        var journal = JournalSettings()
        journal.alertStart = .seconds(0.25)
        #expect(journal.alertRule.start == .milliseconds(250))
    }
}
