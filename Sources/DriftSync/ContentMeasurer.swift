import DriftCore
import Foundation

/// A file to measure: how to open its audio (each pass streams it again from the start) and its rate.
public struct MeasuredInput {
    public var path: String
    public var sampleRate: Int
    public var open: () throws -> AudioSource

    public init(path: String, sampleRate: Int, open: @escaping () throws -> AudioSource) {
        self.path = path
        self.sampleRate = sampleRate
        self.open = open
    }
}

/// Measures a recording against its reference's sound: start offset, rate, dropouts, and how sure it is.
///
/// Three streaming passes, each in fixed-size blocks, so memory does not follow the files' length except for the
/// onsets (400 bytes per second of audio):
/// 1. both files reduced to ~8 kHz mono; their onsets (100/s) locate the recording in the reference (`CoarseAligner`);
/// 2. one-second windows of the recording are correlated with the reference around that place (`WindowCorrelator`),
///    each giving a lag to a few microseconds; a line with steps is fitted to the lags (`LagModel`);
/// 3. only when there are steps: the stretch around each is read again and the gap placed to a few milliseconds
///    (`DropoutLocator`).
public struct ContentMeasurer {
    public struct Settings: Sendable {
        /// A lag at or below this everywhere in the file is in sync, ms.
        public var syncLimitMs: Double = 1
        /// Windows quieter than this RMS on either side are silence (−60 dBFS).
        public var silence: Float = 0.001

        public init() {}
    }

    public var settings: Settings

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Measures `recording` against `reference`.
    ///
    /// The windows follow a drift of a few hundred ppm and the onsets about 2000; beyond that (NTSC pull-down is 1000
    /// ppm, a rate mislabel 8 %) a window's sound is smeared against the reference's and nothing matches. So when the
    /// first pass finds no match, the recording is read again warped by a drift hypothesis and measured on the
    /// reference's timeline: the onsets' own line where they found one (stretched by up to ±6000 ppm to find it),
    /// then `driftHints` (the headers' drift, for a rate mislabel); the first that matches gives the measurement, its
    /// drift the hypothesis and the residual combined. The reference is reduced once for all attempts.
    ///
    /// - Parameters:
    ///   - driftHints: drifts to try, ppm (the headers' own, where they show one).
    ///   - expectedLag: where another witness already put the recording in the reference (reference time less
    ///     recording time, seconds, to within about 0.1 s: a clip's place as its print found it): the windows are
    ///     searched there when the onsets find no place of their own, or find one a beat or a bar away (music).
    /// - Throws: what reading either file throws (naming the file); an unrelated or silent pair is not an error but
    ///   an `unmeasurable` result with its reason.
    public func measure(
        recording: MeasuredInput, reference: MeasuredInput, driftHints: [Double] = [], expectedLag: Double? = nil
    ) throws -> ContentMeasurement {
        let plain = try analyse(recording: recording, reference: reference, expectedLag: expectedLag)
        guard !plain.measurement.isMeasured,
            plain.measurement.unmeasurable == .noCommonSound || plain.measurement.unmeasurable == .repetitive
        else { return plain.measurement }
        // The onsets follow more drift than the windows: when they found the recording's line, its slope is the best
        // hypothesis (and a hypothesis near the truth may bring the onsets within reach of a finer one).
        var queue = (plain.coarseDriftPPM.map { [$0] } ?? []) + driftHints
        var tried: [Double] = [0]
        while !queue.isEmpty && tried.count <= 4 {
            let hint = queue.removeFirst()
            guard abs(hint) < 100_000, tried.allSatisfy({ abs($0 - hint) > 300 }) else { continue }
            tried.append(hint)
            let warped = try analyse(
                recording: recording, reference: reference, warp: hint * 1e-6, cached: plain.reference)
            if warped.measurement.isMeasured { return warped.measurement }
            if let refined = warped.coarseDriftPPM { queue.insert(refined, at: 0) }
        }
        return plain.measurement
    }

    /// Proves a repaired file in sync: measures `output` against `reference` where it should lie (`expectedOffsetMs`)
    /// and reports the lag left across it: an output whose sound is elsewhere, or nowhere, fails.
    ///
    /// The residual at each window is its lag minus `expectedOffsetMs` (0 when the output was aligned to the
    /// reference's start), smoothed by the median of 9 windows (about 7 s: a sync error lasts, one odd window is
    /// noise); `residualMs` is the worst of those over the file. It passes when that stays within `limitMs`, or within
    /// the windows' own scatter where the sound allows no finer precision.
    public func verify(output: MeasuredInput, reference: MeasuredInput, expectedOffsetMs: Double, limitMs: Double)
        throws
        -> SyncVerification
    {
        // The output's place is known: a sound that repeats (a short clip, a loop) is looked at there, not searched for.
        let analysis = try analyse(
            recording: output, reference: reference, expectedLag: expectedOffsetMs / 1000, clockShapes: false)
        guard let model = analysis.model, analysis.measurement.isMeasured else {
            return SyncVerification(
                residualMs: nil, limitMs: limitMs, passed: false, curve: [],
                reason:
                    "the output cannot be measured against the reference: \(analysis.measurement.reason ?? "no clear match")",
                measurement: analysis.measurement)
        }
        let samples = model.agreeing.sorted { $0.t < $1.t }
        let residuals = samples.map { $0.lag * 1000 - expectedOffsetMs }
        var smoothed: [Double] = []
        smoothed.reserveCapacity(residuals.count)
        for i in residuals.indices {
            let part = residuals[max(0, i - 4)...min(residuals.count - 1, i + 4)]
            smoothed.append(median(Array(part)) ?? 0)
        }
        let worst = smoothed.map(abs).max() ?? 0
        let limit = max(limitMs, analysis.measurement.scatterMs ?? 0)
        let points = zip(samples, smoothed).map {
            LagSample(t: $0.t, lag: $1 / 1000, clarity: $0.clarity, window: $0.window)
        }
        let passed = worst <= limit
        return SyncVerification(
            residualMs: (worst * 1000).rounded() / 1000, limitMs: limit, passed: passed, curve: Self.curve(points),
            reason: passed
                ? nil : "residual lag \(String(worst, decimals: 3)) ms exceeds \(String(limit, decimals: 3)) ms",
            measurement: analysis.measurement)
    }

    /// Why a reference is too short to measure, in words.
    static func tooShort(windows: Int?, rate: Double) -> String {
        let seconds = Double(WindowPass.windowLength(rate: rate)) / rate
        let w = String(seconds, decimals: 2)
        guard let windows else { return "too short to measure: under two windows of \(w) s, and 5 are needed" }
        return
            "too short to measure: \(windows) window\(windows == 1 ? "" : "s") of \(w) s with sound in both files, and 5 are needed"
    }

    /// The measurement, and the fitted lag model when there is one; `warp` reads the recording on a drift hypothesis
    /// (the model is then on that warped timeline; the measurement is converted back to the recording's).
    func analyse(
        recording: MeasuredInput, reference: MeasuredInput, warp: Double = 0, cached: ReferenceAnalysis? = nil,
        expectedLag: Double? = nil, clockShapes: Bool = true
    )
        throws
        -> (measurement: ContentMeasurement, model: LagModel?, coarseDriftPPM: Double?, reference: ReferenceAnalysis)
    {
        // Pass 1: onsets and loudness.
        let first = try OnsetPass(recording: recording, reference: reference, warp: warp, cached: cached)
        let rate = first.rate
        if let refused = refusal(first) { return (refused, nil, nil, first.reference) }
        let coarse = Self.coarseAlignment(first, expectedLag: expectedLag)
        if coarse.agreeing.isEmpty {
            let missed = noPlace(first, warp: warp)
            return (missed.measurement, nil, missed.driftPPM, first.reference)
        }
        // The onsets' line as a drift on the recording's own timeline.
        let coarseDrift = ((1 + warp) / (1 + coarse.slope) - 1) * 1e6

        // Pass 2: windows.
        let fine = try WindowPass(
            sources: first.sources, rate: rate, coarse: coarse,
            silence: settings.silence, recordingSamples: first.recordingSamples)
        let clear = fine.samples
        let minimumAgreeing = max(5, Int((Double(fine.soundWindows) * 0.25).rounded(.up)))
        guard clear.count >= minimumAgreeing, let model = LagModel.fit(clear, clockShapes: clockShapes),
            model.agreeing.count >= minimumAgreeing
        else {
            let result = unmatched(
                fine, clear: clear.count, minimumAgreeing: minimumAgreeing, referenceSamples: first.referenceSamples,
                rate: rate)
            return (result, nil, coarseDrift, first.reference)
        }

        // Pass 3: where exactly each gap is.
        let dropouts = try Self.dropouts(model, fine: fine, sources: first.sources, rate: rate, warp: warp)
        let measurement = measured(model, first, fine: fine, dropouts: dropouts, warp: warp)
        return (measurement, model, coarseDrift, first.reference)
    }

    /// Why pass 1 already rules a measurement out (too short, silent, a reference under two windows); nil where not.
    private func refusal(_ first: OnsetPass) -> ContentMeasurement? {
        let rate = first.rate
        if first.recordingSamples < Int(rate) {
            return unmeasurable(.tooShort, "the recording is shorter than a second")
        }
        if first.recordingRMS < settings.silence {
            return unmeasurable(.silentRecording, "the recording is silent")
        }
        if first.referenceRMS < settings.silence {
            return unmeasurable(.silentReference, "the reference is silent")
        }
        // A reference shorter than two windows touches at most three of the recording's: never the five a
        // measurement needs.
        if first.referenceSamples < 2 * WindowPass.windowLength(rate: rate) {
            return unmeasurable(.tooShort, Self.tooShort(windows: nil, rate: rate))
        }
        return nil
    }

    /// The onsets' place of the recording in the reference, or the witness's (`expectedLag`), unless the onsets found
    /// the same one more finely.
    private static func coarseAlignment(_ first: OnsetPass, expectedLag: Double?) -> CoarseAlignment {
        let coarse = CoarseAligner.align(recording: first.recordingOnsets, reference: first.referenceOnsets)
        guard let expected = expectedLag else { return coarse }
        let middle = Double(first.recordingSamples) / first.rate / 2
        guard coarse.predictedLag(at: middle).map({ abs($0 - expected) > 0.05 }) ?? true else { return coarse }
        return CoarseAlignment(
            blocks: [],
            agreeing: [CoarseAlignment.Block(start: 0, lag: expected, clarity: 0, ambiguity: 0)],
            intercept: expected, slope: 0)
    }

    /// The onsets found no place: why, and the drift that sweeping them found (ppm, recording's timeline), if any.
    private func noPlace(_ first: OnsetPass, warp: Double) -> (measurement: ContentMeasurement, driftPPM: Double?) {
        // Nothing stands out: unrelated sound, or a sound that repeats (a loop), which offers many equal places (a
        // repeating recording resembles itself a period later; speech and unrelated takes do not), or a drift too
        // large for the onsets as they are (stretched by about the right amount, they find their line).
        let periodic = CoarseAligner.repeats(first.recordingOnsets)
        let swept =
            periodic
            ? nil
            : CoarseAligner.driftBySweeping(recording: first.recordingOnsets, reference: first.referenceOnsets)
        return (
            periodic
                ? unmeasurable(.repetitive, "the sound repeats: several places in the reference match equally well")
                : unmeasurable(.noCommonSound, "no common sound: no place in the reference matches the recording"),
            swept.map { ((1 + warp) * (1 + $0 * 1e-6) - 1) * 1e6 }
        )
    }

    /// Why too few windows agreed on a lag model: a reference too short, no sound in both, a repeating sound or none
    /// in common.
    private func unmatched(
        _ fine: WindowPass, clear: Int, minimumAgreeing: Int, referenceSamples: Int, rate: Double
    ) -> ContentMeasurement {
        let window = WindowPass.windowLength(rate: rate)
        let ambiguous = fine.ambiguousWindows > fine.soundWindows / 2
        var result =
            fine.soundWindows < minimumAgreeing && referenceSamples < (minimumAgreeing + 1) * window
            ? unmeasurable(.tooShort, Self.tooShort(windows: fine.soundWindows, rate: rate))
            : fine.soundWindows == 0
                ? unmeasurable(.noCommonSound, "no window has sound in both files")
                : ambiguous
                    ? unmeasurable(
                        .repetitive, "the sound repeats: several places in the reference match equally well")
                    : unmeasurable(
                        .noCommonSound,
                        "no common sound: \(clear) of \(fine.soundWindows) windows with sound found a clear match"
                    )
        result.windows = fine.soundWindows
        result.agreeingWindows = clear
        return result
    }

    /// Pass 3: each step of the model placed exactly, on the recording's own timeline.
    private static func dropouts(
        _ model: LagModel, fine: WindowPass, sources: AnalysisSources, rate: Double, warp: Double
    ) throws -> [ContentMeasurement.Dropout] {
        guard !model.steps.isEmpty else { return [] }
        // On a warped timeline t_w (recording time t = t_w·(1 + warp)), the lag read there is lag_w; the lag at the
        // recording's own time is lag_w − t_w·warp, and the drifts compose: (1 + D) = (1 + warp)(1 + d_w).
        let stretch = 1 + warp
        let located = try DropoutLocator.locate(
            model: model, windowLength: fine.windowLength, rate: rate, sources: sources)
        return zip(model.steps, located).map { step, place in
            ContentMeasurement.Dropout(
                atSeconds: (place.at * stretch * 1e6).rounded() / 1e6, missingMs: step.size * 1000,
                uncertaintyMs: (place.uncertainty * stretch * 1e4).rounded() / 10)
        }
    }

    /// The measurement a fitted model gives, converted from the warped timeline back to the recording's.
    private func measured(
        _ model: LagModel, _ first: OnsetPass, fine: WindowPass, dropouts: [ContentMeasurement.Dropout], warp: Double
    ) -> ContentMeasurement {
        let rate = first.rate
        let stretch = 1 + warp
        let warpedDuration = Double(first.recordingSamples) / rate
        let startLag = model.lag(at: 0, window: 0)
        let endLag = model.lag(at: warpedDuration, window: Int.max) - warpedDuration * warp
        let b = model.slope
        let drift = (stretch / (1 + b) - 1) * 1e6
        let driftError = 1.96 * model.slopeError * stretch / ((1 + b) * (1 + b)) * 1e6
        let medianClarity = median(model.agreeing.map(\.clarity)) ?? 0
        // A model whose windows stray further from it than their own noise does not describe them: not confident.
        let fitted = model.noise > 0 && model.scatter > 0 ? min(1, 3 * model.noise / model.scatter) : 1
        let confidence =
            min(1, Double(model.agreeing.count) / Double(max(1, fine.soundWindows))) * min(1, medianClarity / 15)
            * fitted
        let modelName: ContentMeasurement.Model
        var clock: ClockPath?
        switch model.shape {
        case .hinges, .spline:
            if case .hinges = model.shape { modelName = .steps } else { modelName = .wander }
            clock = Self.path(model, duration: warpedDuration, warp: warp)
        case .line:
            if !dropouts.isEmpty {
                modelName = .dropouts
            } else if max(abs(startLag), abs(endLag)) * 1000 <= settings.syncLimitMs {
                modelName = .inSync
            } else {
                modelName = .clock
            }
        }
        let points = model.agreeing.map {
            LagSample(t: $0.t * stretch, lag: $0.lag - $0.t * warp, clarity: $0.clarity, window: $0.window)
        }
        var measurement = ContentMeasurement(
            offsetMs: startLag * 1000, driftPPM: drift, driftPPMError: driftError, model: modelName,
            confidence: confidence, dropouts: dropouts, scatterMs: model.scatter * 1000, windows: fine.soundWindows,
            agreeingWindows: model.agreeing.count, curve: Self.curve(points))
        measurement.offsetMsError = 1.96 * model.interceptError * 1000
        measurement.referenceSoundSeconds = Double(first.referenceSamples) / rate
        measurement.clock = clock
        return measurement
    }

    /// The clock's path where it did not run straight, on the recording's own timeline: its lag every few seconds (and
    /// at each kink) for the repair, its drift for a person, where its rate stepped. `duration` is on the timeline
    /// the windows were read on, `warp` that timeline's drift hypothesis.
    static func path(_ model: LagModel, duration: Double, warp: Double) -> ClockPath {
        let stretch = 1 + warp
        func lag(_ t: Double) -> Double { model.clockLag(at: t) - t * warp }
        func drift(_ t: Double) -> Double { (stretch / (1 + model.clockSlope(at: t)) - 1) * 1e6 }
        let spacing = max(2.5, duration / 4000)
        var times = Array(stride(from: 0, to: duration, by: spacing)) + [duration]
        if case .hinges(let kinks) = model.shape { times += kinks.filter { $0 > 0 && $0 < duration } }
        times.sort()
        let points = times.map {
            ContentMeasurement.LagPoint(atSeconds: $0 * stretch, lagMs: (lag($0) * 1e9).rounded() / 1e6)
        }
        let drifts = times.map { drift($0) }
        let shown = stride(from: 0, to: 300, by: 1).map { duration * Double($0) / 299 }.map {
            ClockPath.DriftPoint(
                atSeconds: ($0 * stretch * 1000).rounded() / 1000, driftPPM: (drift($0) * 1000).rounded() / 1000)
        }
        var steps: [ClockPath.RateStep] = []
        if case .hinges(let kinks) = model.shape {
            for (index, kink) in kinks.enumerated() {
                steps.append(
                    ClockPath.RateStep(
                        atSeconds: kink * stretch,
                        uncertaintySeconds: index < model.kinkSpread.count ? model.kinkSpread[index] * stretch : 0,
                        fromPPM: drift(kink - 1e-3), toPPM: drift(kink + 1e-3)))
            }
        }
        // The drift where the sound was measured: from the first window to the last.
        let from = model.agreeing.first?.t ?? 0
        let to = model.agreeing.last?.t ?? duration
        return ClockPath(
            lag: points, drift: shown, startPPM: drift(from), endPPM: drift(to), fromSeconds: from * stretch,
            toSeconds: to * stretch, minPPM: drifts.min() ?? 0, maxPPM: drifts.max() ?? 0, rateSteps: steps)
    }

    private func unmeasurable(_ kind: ContentMeasurement.Unmeasurable, _ reason: String) -> ContentMeasurement {
        ContentMeasurement(
            offsetMs: nil, driftPPM: nil, driftPPMError: nil, model: .unmeasurable, confidence: 0, reason: reason,
            unmeasurable: kind)
    }

    /// At most 300 points: the median lag of each stretch of windows.
    static func curve(_ samples: [LagSample]) -> [ContentMeasurement.LagPoint] {
        let groups = max(1, (samples.count + 299) / 300)
        return stride(from: 0, to: samples.count, by: groups).map { start in
            let part = samples[start..<min(samples.count, start + groups)]
            let t = part.reduce(0) { $0 + $1.t } / Double(part.count)
            return ContentMeasurement.LagPoint(
                atSeconds: (t * 1000).rounded() / 1000,
                lagMs: ((median(part.map(\.lag)) ?? 0) * 1e6).rounded() / 1000)
        }
    }
}

/// The reference's reduced sound, its onsets and loudness: the same whatever drift the recording is read on, so a
/// measurement that tries several keeps it from the first.
final class ReferenceAnalysis {
    let onsets: [Float]
    let samples: Int
    let rms: Float
    let open: () throws -> AnalysisSamples

    init(_ reference: MeasuredInput, rate: Double) throws {
        let stream = AnalysisStream(try reference.open(), sampleRate: reference.sampleRate, convertTo: rate)
        let spill = SampleSpill()
        (onsets, samples, rms) = try OnsetPass.scan(stream, spill: spill)
        if let spill {
            open = { spill.reader() }
        } else {
            open = { AnalysisStream(try reference.open(), sampleRate: reference.sampleRate, convertTo: rate) }
        }
    }
}

/// Pass 1: both files reduced, their onsets and loudness; the reduced sound is spilled to disk for the later passes.
struct OnsetPass {
    let rate: Double
    var recordingOnsets: [Float]
    var referenceOnsets: [Float]
    var recordingSamples = 0
    var referenceSamples = 0
    var recordingRMS: Float = 0
    var referenceRMS: Float = 0
    /// Where the later passes read the reduced sound: the spills, or the files decoded again when no spill could be
    /// written.
    let sources: AnalysisSources
    let reference: ReferenceAnalysis

    /// - Parameter cached: the reference's analysis from an earlier attempt at the same rate.
    init(recording: MeasuredInput, reference: MeasuredInput, warp: Double = 0, cached: ReferenceAnalysis? = nil) throws
    {
        let rec = AnalysisStream(try recording.open(), sampleRate: recording.sampleRate, warp: warp)
        let analysisRate = rec.rate
        rate = analysisRate
        let recordingSpill = SampleSpill()
        (recordingOnsets, recordingSamples, recordingRMS) = try OnsetPass.scan(rec, spill: recordingSpill)
        let referenceAnalysis = try cached ?? ReferenceAnalysis(reference, rate: analysisRate)
        self.reference = referenceAnalysis
        referenceSamples = referenceAnalysis.samples
        referenceOnsets = referenceAnalysis.onsets
        referenceRMS = referenceAnalysis.rms
        let openRecording: () throws -> AnalysisSamples
        if let recordingSpill {
            openRecording = { recordingSpill.reader() }
        } else {
            openRecording = { AnalysisStream(try recording.open(), sampleRate: recording.sampleRate, warp: warp) }
        }
        sources = AnalysisSources(recording: openRecording, reference: referenceAnalysis.open)
    }

    static func scan(_ stream: AnalysisStream, spill: SampleSpill?) throws -> ([Float], Int, Float) {
        var envelope = OnsetEnvelope(analysisRate: stream.rate)
        let capacity = 65536
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var total = 0
        var energy = 0.0
        while true {
            let got = try stream.read(into: buffer, count: capacity)
            if got == 0 { break }
            envelope.append(buffer, count: got)
            try spill?.append(buffer, count: got)
            var sum: Float = 0
            for i in 0..<got { sum += buffer[i] * buffer[i] }
            energy += Double(sum)
            total += got
        }
        try spill?.finish()
        envelope.finish()
        return (envelope.values, total, Float((energy / Double(max(total, 1))).squareRoot()))
    }
}

/// Opens the reduced sound of each file again from its start.
struct AnalysisSources {
    let recording: () throws -> AnalysisSamples
    let reference: () throws -> AnalysisSamples
}
