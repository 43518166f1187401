import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftRepair

private func request(
    _ input: String, _ output: String, target: TargetLength? = nil, tempo: Rational? = nil,
    method: RepairMethod = .resample, quality: ResampleQuality = .best,
    edits: EditOperations = EditOperations()
) -> ProcessRequest {
    ProcessRequest(
        input: input, output: output, target: target, tempo: tempo,
        method: MethodChoice(method: method, reason: "test"), quality: quality, edits: edits)
}

@Suite("Editing operations through the processing chain")
struct OperationsTests {
    @Test(
        "trim boundaries are exact to the frame",
        arguments: [
            ("0.5:1.25", 24_000..<60_000), ("1000f:1001f", 1000..<1001), (":7f", 0..<7), ("99990f:", 99_990..<100_000),
        ])
    func trim(text: String, expected: Range<Int>) throws {
        let folder = TemporaryFolder()
        let signal = TestSignal(channelCount: 2, length: 100_000, seed: 3)
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        let input = try writeRecording(signal, to: folder.file("in.wav"), format: format)
        let result = try FileProcessor.run(
            request(input, folder.file("out.wav"), edits: EditOperations(trim: try TrimRange(parsing: text))))
        #expect(result.outputFrames == Int64(expected.count))
        let original = try readAll(input).samples
        let trimmed = try readAll(folder.file("out.wav")).samples
        #expect(trimmed == Array(original[(expected.lowerBound * 2)..<(expected.upperBound * 2)]), "bit-exact slice")
    }

    @Test(
        "reverse twice is the original bit for bit",
        arguments: [
            (AudioContainer.wav, SampleEncoding.pcm16, 1), (.wav, .pcm24, 2), (.wav, .float32, 6), (.aiff, .pcm16, 2),
            (.flac, .pcm24, 2),
        ])
    func reverseTwice(container: AudioContainer, encoding: SampleEncoding, channels: Int) throws {
        let folder = TemporaryFolder()
        let signal = TestSignal(channelCount: channels, length: 50_001, seed: 6)
        let format = AudioFormat(container: container, encoding: encoding, sampleRate: 48_000, channelCount: channels)
        let input = try writeRecording(signal, to: folder.file("in"), format: format)
        let reverse = EditOperations(reverse: true)
        // Small blocks so the backwards reading crosses many block boundaries.
        var first = request(input, folder.file("r1"), edits: reverse)
        first.blockFrames = 1000
        try FileProcessor.run(first)
        try FileProcessor.run(request(folder.file("r1"), folder.file("r2"), edits: reverse))
        let original = try readAll(input).samples
        let once = try readAll(folder.file("r1")).samples
        #expect(once[0..<channels] == original[(original.count - channels)...], "first frame is the last")
        #expect(try readAll(folder.file("r2")).samples == original)
    }

    @Test("fade curves are sample-exact", arguments: FadeCurve.allCases)
    func fades(curve: FadeCurve) throws {
        let folder = TemporaryFolder()
        let frames = 48_000
        let constant = [Float](repeating: 0.5, count: frames)
        let format = AudioFormat(container: .wav, encoding: .float32, sampleRate: 48_000, channelCount: 1)
        let writer = try AudioFileWriter(path: folder.file("in.wav"), format: format, metadata: AudioMetadata())
        try constant.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: frames) }
        try writer.close()
        let edits = EditOperations(
            fadeIn: Fade(seconds: Rational(1, 10), curve: curve), fadeOut: Fade(seconds: Rational(1, 4), curve: curve))
        try FileProcessor.run(request(folder.file("in.wav"), folder.file("out.wav"), edits: edits))
        let out = try readAll(folder.file("out.wav")).samples
        // Independent reference: 4,800-frame fade-in from 0, 12,000-frame fade-out to 0 at the last frame.
        func shape(_ x: Double) -> Double { curve == .linear ? x : sin(x * .pi / 2) }
        var worst = 0.0
        for n in 0..<frames {
            var gain = 1.0
            if n < 4800 { gain *= shape(Double(n) / 4800) }
            if n >= frames - 12_000 { gain *= shape(Double(frames - 1 - n) / 12_000) }
            worst = max(worst, abs(Double(out[n]) - 0.5 * gain))
        }
        #expect(worst < 1e-7, "largest deviation \(worst)")
        #expect(out[0] == 0 && out[frames - 1] == 0)
        #expect(out[4800] == 0.5 && out[frames - 12_001] == 0.5)
    }

    @Test("fades over a resample cut into chunks on two threads are sample-exact: applied in place on the lent pieces")
    func fadesOverChunks() throws {
        let folder = TemporaryFolder()
        let frames = 20 * 48_000
        let tone = (0..<frames).map { Float(0.5 * sin(Double($0) * 0.031)) }
        let format = AudioFormat(container: .wav, encoding: .float32, sampleRate: 48_000, channelCount: 1)
        let writer = try AudioFileWriter(path: folder.file("in.wav"), format: format, metadata: AudioMetadata())
        try tone.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: frames) }
        try writer.close()
        let target = Int64(frames) - 126  // -131 ppm
        func repaired(_ name: String, _ edits: EditOperations) throws -> ([Float], ProcessResult) {
            var chunked = request(
                folder.file("in.wav"), folder.file(name), target: .frames(target), quality: .medium, edits: edits)
            chunked.engine = .polyphase
            chunked.threads = 2
            let result = try FileProcessor.run(chunked)
            return (try readAll(folder.file(name)).samples, result)
        }
        let (plain, _) = try repaired("plain.wav", EditOperations())
        let fadeIn = 48_000 / 10
        let fadeOut = 48_000 / 4
        let (faded, result) = try repaired(
            "faded.wav",
            EditOperations(
                fadeIn: Fade(seconds: Rational(1, 10), curve: .linear),
                fadeOut: Fade(seconds: Rational(1, 4), curve: .linear)))
        #expect(
            (result.split?.chunks ?? 0) > 2, "the repair was not cut into chunks: \(String(describing: result.split))")
        #expect(faded.count == Int(target) && plain.count == Int(target))
        // Independent reference: the gains of a 4,800-frame linear fade-in from 0 and a 12,000-frame fade-out to 0 at
        // the last frame, applied to the unfaded repair.
        var worst = 0.0
        for n in 0..<min(faded.count, plain.count) {
            var gain = 1.0
            if n < fadeIn { gain *= Double(n) / Double(fadeIn) }
            if n >= Int(target) - fadeOut { gain *= Double(Int(target) - 1 - n) / Double(fadeOut) }
            worst = max(worst, abs(Double(faded[n]) - Double(plain[n]) * gain))
        }
        #expect(worst < 1e-7, "largest deviation \(worst)")
    }

    @Test("44.1 kHz to 48 kHz: exact length and above 90 dB against the ideal sine")
    func rateConversion() throws {
        let folder = TemporaryFolder()
        let length: Int64 = 44_100 * 3
        let signal = TestSignal(channelCount: 2, length: length, seed: 17, tonesPerChannel: 1, maxCyclesPerSample: 0.2)
        let format = AudioFormat(container: .wav, encoding: .float32, sampleRate: 44_100, channelCount: 2)
        let input = try writeRecording(signal, to: folder.file("in.wav"), format: format)
        let result = try FileProcessor.run(
            request(input, folder.file("out.wav"), edits: EditOperations(outputRate: 48_000)))
        #expect(result.outputFrames == 144_000)
        let (samples, found, _) = try readAll(folder.file("out.wav"))
        #expect(found.sampleRate == 48_000)
        let snr = SignalMeasure.snr(actual: samples, ideal: signal.ideal(target: 144_000, start: 0, count: 144_000))
        #expect(snr > 90, "SNR \(snr) dB")
    }

    @Test(
        "every combination delivers the frame count it promises",
        arguments: [
            (
                EditOperations(
                    trim: TrimRange(start: .seconds(Rational(1, 2)), end: nil), reverse: true,
                    fadeIn: Fade(seconds: Rational(1, 10), curve: .linear), outputRate: 44_100), RepairMethod.stretch,
                TargetLength?.some(.seconds(Rational(1, 1)))
            ),
            (
                EditOperations(reverse: true, fadeOut: Fade(seconds: Rational(1, 5), curve: .equalPower)), .resample,
                .some(.ratio(Rational(1000, 1001)))
            ),
            (EditOperations(trim: TrimRange(start: nil, end: .frames(30_001)), outputRate: 96_000), .stretch, nil),
            (EditOperations(outputRate: 32_000), .stretch, .frames(40_000)),
        ])
    func combinations(edits: EditOperations, method: RepairMethod, target: TargetLength?) throws {
        let folder = TemporaryFolder()
        let signal = TestSignal(channelCount: 2, length: 72_000, seed: 9)
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        let input = try writeRecording(signal, to: folder.file("in.wav"), format: format)
        let plan = try ProcessingPlan(
            request: request(input, "-", target: target, method: method, edits: edits),
            inputFrames: 72_000, sampleRate: 48_000)
        let result = try FileProcessor.run(
            request(input, folder.file("out.wav"), target: target, method: method, edits: edits))
        #expect(result.outputFrames == plan.targetFrames)
        let verification = try AudioFileVerifier.verify(path: folder.file("out.wav"), expectedFrames: plan.targetFrames)
        #expect(verification.passed)
        #expect(verification.foundFormat.sampleRate == plan.outputRate)
    }

    @Test("tempo stretches and says why")
    func tempo() throws {
        let folder = TemporaryFolder()
        let input = try writeMonoWAV(frames: 48_000, to: folder.file("in.wav"))
        let result = try FileProcessor.run(request(input, folder.file("out.wav"), tempo: Rational(3, 2)))
        #expect(result.outputFrames == 32_000)
        #expect(result.methodChoice == MethodChoice(method: .stretch, reason: "--tempo"))
    }
}

@Suite("Processing plan")
struct ProcessingPlanTests {
    private func plan(
        _ target: TargetLength? = nil, tempo: Rational? = nil, method: RepairMethod = .resample,
        edits: EditOperations = EditOperations(), frames: Int64 = 480_000
    ) throws(PlanError) -> ProcessingPlan {
        try ProcessingPlan(
            request: request("in", "out", target: target, tempo: tempo, method: method, edits: edits),
            inputFrames: frames, sampleRate: 48_000)
    }

    @Test("lengths and stages")
    func stages() throws {
        #expect(try plan(.frames(480_000)).length == .none)
        #expect(try plan(.ratio(Rational(1001, 1000))).length == .resample(frames: 480_480))
        #expect(
            try plan(.ratio(Rational(1001, 1000)), method: .stretch).length
                == .stretch(frames: 480_480, rateFrames: nil))
        // A stretch with a rate change: stretch at the input rate, then convert exactly.
        #expect(
            try plan(.seconds(Rational(11, 1)), method: .stretch, edits: EditOperations(outputRate: 44_100)).length
                == .stretch(frames: 528_000, rateFrames: 485_100))
        // A pure rate change resamples even when the method is stretch.
        #expect(
            try plan(method: .stretch, edits: EditOperations(outputRate: 44_100)).length == .resample(frames: 441_000))
        #expect(try plan(tempo: Rational(2, 1)).length == .stretch(frames: 240_000, rateFrames: nil))
        #expect(try plan(edits: EditOperations(reverse: true)).length == .none)
    }

    @Test(
        "values that do not fit the file name the part of the request (the command line names its option)",
        arguments: [
            (
                EditOperations(trim: TrimRange(start: .seconds(Rational(5, 1)), end: .seconds(Rational(11, 1)))),
                PlanError.Field.trim
            ),
            (EditOperations(fadeIn: Fade(seconds: Rational(11, 1), curve: .linear)), .fadeIn),
            (EditOperations(fadeOut: Fade(seconds: Rational(-1, 1), curve: .linear)), .fadeOut),
        ])
    func refusals(edits: EditOperations, field: PlanError.Field) {
        #expect(throws: PlanError.self) { try plan(edits: edits) }
        do {
            _ = try plan(edits: edits)
        } catch {
            #expect(error.field == field && error.description.hasPrefix(field.rawValue), "\(error)")
        }
    }

    @Test("a stretch beyond 0.5...2 is refused, naming the option")
    func stretchRange() {
        #expect(
            throws: PlanError(
                .stretch,
                "the requested length, ratio 2.5 = 1200000 frames (25 s), is beyond a stretch, which makes 0.5x to 2x the input of 480000 frames (10 s): the shortest possible is 240000 frames (5 s), the longest 960000 frames (20 s)"
            )
        ) {
            try plan(.ratio(Rational(5, 2)), method: .stretch)
        }
    }
}
