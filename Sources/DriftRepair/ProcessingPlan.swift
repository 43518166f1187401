import DriftCore
import DriftDSP
import Foundation

/// Every number a repair needs, worked out from the input's header and the request before any audio moves,
/// so bad values are refused before work starts. Pure: no files.
public struct ProcessingPlan: Sendable, Equatable {
    /// The length change, if any.
    public enum LengthStage: Sendable, Equatable {
        /// Keep the length and rate: samples pass through.
        case none
        /// Resample to `frames` frames (covers a rate change too).
        case resample(frames: Int64)
        /// Stretch to `frames` frames at the input rate, then resample to `rateFrames` when the rate changes.
        case stretch(frames: Int64, rateFrames: Int64?)
        /// Resample to `frames` frames along a wandering clock's path (stream frame to output frame).
        case warp(frames: Int64, knots: [WarpKnot])
    }

    /// Frames in the input file.
    public let inputFrames: Int64
    /// Input frames used (after trim).
    public let range: Range<Int64>
    public let reverse: Bool
    public let inputRate: Int
    public let outputRate: Int
    /// Frames in the output.
    public let targetFrames: Int64
    public let length: LengthStage
    /// Which method changes the length, and why; nil when the length is kept.
    public let method: MethodChoice?
    public let fadeIn: FadeSpan?
    public let fadeOut: FadeSpan?
    /// Silence before the (trimmed) input: a late start moved to its reference's start.
    public let leadingSilence: Int64
    /// Silence after the input and the re-inserted sound: a recording that stopped before its reference did.
    public let trailingSilence: Int64
    /// Sound re-inserted where the recorder lost it, in frames of the stream after the trim and the silence.
    public let gaps: [GapFiller.Gap]
    /// The engine a stretch runs on, once chosen (`choosingStretchEngine`); nil without a stretch.
    public internal(set) var stretchEngine: StretchEngine?

    /// Plans `request` for an input of `frames` frames at `sampleRate`.
    ///
    /// - Throws: `PlanError` naming the part of the request that does not fit this file.
    public init(request: ProcessRequest, inputFrames frames: Int64, sampleRate: Int) throws(PlanError) {
        if !request.operations.isEmpty {
            self = try ProcessingPlan(operations: request.operations, inputFrames: frames, sampleRate: sampleRate)
            return
        }
        leadingSilence = 0
        trailingSilence = 0
        gaps = []
        inputFrames = frames
        inputRate = sampleRate
        outputRate = request.edits.outputRate ?? sampleRate
        switch request.edits.trim?.frames(in: frames, sampleRate: sampleRate) ?? .success(0..<frames) {
        case .success(let range): self.range = range
        case .failure(let error): throw PlanError(.trim, error.description)
        }
        reverse = request.edits.reverse
        let used = Int64(range.count)
        let target = try ProcessingPlan.target(of: request, used: used, inputRate: sampleRate, outputRate: outputRate)
        targetFrames = target.frames
        let change = try ProcessingPlan.lengthStage(
            for: target, byTempo: request.tempo != nil, used: used, inputRate: sampleRate, outputRate: outputRate)
        length = change.length
        method = change.method
        fadeIn = try ProcessingPlan.fade(request.edits.fadeIn, field: .fadeIn, rate: outputRate, within: targetFrames)
        fadeOut = try ProcessingPlan.fade(
            request.edits.fadeOut, field: .fadeOut, rate: outputRate, within: targetFrames)
    }

    /// A request's output length: as asked, in frames at the output rate, and the method asked to make it.
    private struct Target {
        let wanted: TargetLength
        let frames: Int64
        let method: MethodChoice
    }

    /// The output length at the output rate (`--tempo` asks for a stretch).
    private static func target(of request: ProcessRequest, used: Int64, inputRate sampleRate: Int, outputRate: Int)
        throws(PlanError) -> Target
    {
        let wanted: TargetLength
        var method = request.method
        if let tempo = request.tempo {
            guard let inverse = Rational(1, 1).dividedExactly(by: tempo) else {
                throw PlanError(.tempo, "out of range")
            }
            wanted = .ratio(inverse)
            method = MethodChoice(method: .stretch, reason: "--tempo")
        } else {
            wanted = request.target ?? .ratio(Rational(1, 1))
        }
        let resolved: Int64
        do {
            resolved = try wanted.resolve(inputFrames: used, inputRate: sampleRate, outputRate: outputRate)
        } catch {
            // Only an overflow gets here with a positive request: far beyond what any method can make.
            if case .invalid(let why) = error, why.contains("overflows") {
                let stretch = method.method == .stretch
                throw PlanError(
                    stretch ? (request.tempo != nil ? .tempo : .stretch) : .target,
                    ProcessingPlan.outOfRange(
                        wanted: wanted, frames: nil, used: used, inputRate: sampleRate, outputRate: outputRate,
                        stretch: stretch))
            }
            throw PlanError(.target, error.description)
        }
        return Target(wanted: wanted, frames: resolved, method: method)
    }

    /// The length stage that makes `target` from `used` input frames, and the method that does it (nil: the length
    /// is kept); a length no method can make is refused.
    private static func lengthStage(
        for target: Target, byTempo: Bool, used: Int64, inputRate sampleRate: Int, outputRate: Int
    ) throws(PlanError) -> (length: LengthStage, method: MethodChoice?) {
        let (wanted, targetFrames, method) = (target.wanted, target.frames, target.method)
        let durationChanges = Int128(targetFrames) * Int128(sampleRate) != Int128(used) * Int128(outputRate)
        if !durationChanges && outputRate == sampleRate && targetFrames == used {
            return (.none, nil)
        }
        if method.method == .stretch && durationChanges {
            // Stretch the duration at the input rate, then convert the rate exactly.
            let atInputRate =
                Rational(targetFrames, 1).multipliedRounded(by: Int64(sampleRate), dividedBy: Int64(outputRate)) ?? 0
            guard atInputRate > 0, stretchAccepts(input: used, output: atInputRate) else {
                throw PlanError(
                    byTempo ? .tempo : .stretch,
                    ProcessingPlan.outOfRange(
                        wanted: wanted, frames: targetFrames, used: used, inputRate: sampleRate, outputRate: outputRate,
                        stretch: true))
            }
            guard Resampling.accepts(input: Int64(sampleRate), output: Int64(outputRate)) else {
                throw PlanError(.rate, ProcessingPlan.rateOutOfRange(from: sampleRate, to: outputRate))
            }
            return (.stretch(frames: atInputRate, rateFrames: outputRate == sampleRate ? nil : targetFrames), method)
        }
        guard Resampling.accepts(input: used, output: targetFrames) else {
            throw durationChanges
                ? PlanError(
                    .target,
                    ProcessingPlan.outOfRange(
                        wanted: wanted, frames: targetFrames, used: used,
                        inputRate: sampleRate, outputRate: outputRate, stretch: false))
                : PlanError(.rate, ProcessingPlan.rateOutOfRange(from: sampleRate, to: outputRate))
        }
        return (
            .resample(frames: targetFrames),
            durationChanges ? method : MethodChoice(method: .resample, reason: "--rate")
        )
    }

    /// Plans a content repair: the start trimmed or padded, the end trimmed or padded, dropouts re-filled, then one
    /// length change, in that order. Gap positions are recording frames (before the trim); a gap inside a trimmed
    /// start or end is dropped with it.
    init(operations: [RepairOperation], inputFrames frames: Int64, sampleRate: Int) throws(PlanError) {
        inputFrames = frames
        inputRate = sampleRate
        outputRate = sampleRate
        reverse = false
        fadeIn = nil
        fadeOut = nil
        var edits = ContentEdits(end: frames)
        for operation in operations { try edits.apply(operation, frames: frames, sampleRate: sampleRate) }
        range = edits.trim..<edits.end
        leadingSilence = edits.pad
        trailingSilence = edits.trailing
        gaps = edits.gaps
        let used = edits.end - edits.trim + edits.pad + edits.trailing + edits.gaps.reduce(0) { $0 + $1.frames }
        let length = edits.length
        let change = try ProcessingPlan.contentLength(length, used: used, sampleRate: sampleRate)
        targetFrames = change.frames
        method = change.method
        // A length change to the same length is none; a warp's path moves every moment even so.
        if case .warp = length {
            self.length = length
        } else {
            self.length = targetFrames == used && length != .none ? .none : length
        }
    }

    /// A content repair's operations as they add up, each checked against the recording and the order they must
    /// come in.
    private struct ContentEdits {
        var trim: Int64 = 0
        var pad: Int64 = 0
        var end: Int64
        var trailing: Int64 = 0
        var gaps: [GapFiller.Gap] = []
        var length: LengthStage = .none
        var stage = 0  // 0: start, 1: end, 2: inserts, 3: length; operations must come in this order

        mutating func apply(_ operation: RepairOperation, frames: Int64, sampleRate: Int) throws(PlanError) {
            switch operation {
            case .trimStart(let n), .padStart(let n):
                guard stage == 0 else { throw PlanError(.operations, "\(operation) after another operation") }
                guard n >= 0 else { throw PlanError(.operations, "\(operation): negative") }
                if case .trimStart = operation {
                    guard n < frames else {
                        throw PlanError(.operations, "\(operation): the recording has only \(frames) frames")
                    }
                    trim = n
                } else {
                    pad = n
                }
                stage = 1
            case .trimEnd(let n), .padEnd(let n):
                guard stage <= 1 else {
                    throw PlanError(.operations, "\(operation) after a re-insertion or the length change")
                }
                guard n >= 0 else { throw PlanError(.operations, "\(operation): negative") }
                if case .trimEnd = operation {
                    guard n < frames - trim else {
                        throw PlanError(
                            .operations, "\(operation): only \(frames - trim) frames are left after the start")
                    }
                    end = frames - n
                } else {
                    trailing = n
                }
                stage = 2
            case .insert(let at, let n):
                guard stage <= 2 else { throw PlanError(.operations, "\(operation) after the length change") }
                guard at > 0, at <= frames, n > 0 else {
                    throw PlanError(.operations, "\(operation): outside the recording's \(frames) frames")
                }
                guard n <= Int64(GapFiller.maximumGapSeconds * sampleRate) else {
                    throw PlanError(
                        .operations, "\(operation): a gap longer than \(GapFiller.maximumGapSeconds) s is not a dropout"
                    )
                }
                guard at > trim, at < end else { return }
                let position = at - trim + pad
                guard gaps.last.map({ $0.at <= position }) ?? true else {
                    throw PlanError(.operations, "\(operation): gaps out of order")
                }
                gaps.append(GapFiller.Gap(at: position, frames: n))
                stage = 2
            case .resample(let n), .stretch(let n), .warp(let n, _):
                guard stage <= 2 else { throw PlanError(.operations, "\(operation): a second length change") }
                switch operation {
                case .warp(_, let knots): length = .warp(frames: n, knots: knots)
                case .stretch: length = .stretch(frames: n, rateFrames: nil)
                default: length = .resample(frames: n)
                }
                stage = 3
            }
        }
    }

    /// The frames a content repair's length change makes from the `used` frames of its stream, and its method;
    /// a change no method can make is refused.
    private static func contentLength(_ length: LengthStage, used: Int64, sampleRate: Int)
        throws(PlanError) -> (frames: Int64, method: MethodChoice?)
    {
        switch length {
        case .resample(let n), .stretch(let n, _):
            let stretch = if case .stretch = length { true } else { false }
            guard
                stretch ? stretchAccepts(input: used, output: n) : Resampling.accepts(input: used, output: n)
            else {
                throw PlanError(
                    .operations,
                    ProcessingPlan.outOfRange(
                        wanted: .frames(n), frames: n, used: used, inputRate: sampleRate,
                        outputRate: sampleRate, stretch: stretch))
            }
            return (
                n,
                stretch
                    ? MethodChoice(method: .stretch, reason: "content")
                    : MethodChoice(method: .resample, reason: "content: clock rate")
            )
        case .warp(let n, let knots):
            guard WarpKnot.isPath(knots, frames: n), knots.last?.input == used else {
                throw PlanError(
                    .operations, "warp: its path does not run from the stream's start to its \(used) frames")
            }
            for (a, b) in zip(knots, knots.dropFirst())
            where !Resampling.accepts(input: b.input - a.input, output: b.output - a.output) {
                throw PlanError(
                    .operations, "warp: a ratio of \(b.output - a.output)/\(b.input - a.input) at frame \(a.input)")
            }
            return (n, MethodChoice(method: .resample, reason: "content: a wandering clock"))
        case .none:
            return (used, nil)
        }
    }

    /// Whether a stretch can make `output` frames of `input`: half to twice as many (the stretchers' range).
    static func stretchAccepts(input: Int64, output: Int64) -> Bool {
        Int128(output) * 2 >= Int128(input) && Int128(output) <= 2 * Int128(input)
    }

    /// Explains a length no method can make from this input: what was asked, and the shortest and longest lengths
    /// that are possible.
    static func outOfRange(
        wanted: TargetLength, frames: Int64?, used: Int64, inputRate: Int, outputRate: Int,
        stretch: Bool
    ) -> String {
        // Resampling makes 1/256...256 times the input in output frames (libsamplerate's range); a stretch makes
        // 0.5...2x at the input rate, then converts the rate exactly.
        let shortest: Int128
        let longest: Int128
        if stretch {
            shortest = (Int128(used) * Int128(outputRate) + Int128(2 * inputRate) - 1) / Int128(2 * inputRate)
            longest = Int128(used) * 2 * Int128(outputRate) / Int128(inputRate)
        } else {
            shortest = (Int128(used) + Int128(Resampling.maximumRatio) - 1) / Int128(Resampling.maximumRatio)
            longest = Int128(used) * Int128(Resampling.maximumRatio)
        }
        func length(_ count: Int128, _ rate: Int) -> String {
            "\(count) frame\(count == 1 ? "" : "s") (\(formatSeconds(Double(count) / Double(rate))))"
        }
        let asked: String
        switch (wanted, frames) {
        case (_, nil): asked = "the requested length (\(wanted)) is more than 2^63 frames and"
        case (.frames, let frames?): asked = "the requested length, \(length(Int128(frames), outputRate)),"
        case (_, let frames?): asked = "the requested length, \(wanted) = \(length(Int128(frames), outputRate)),"
        }
        let how =
            stretch
            ? "\(asked) is beyond a stretch, which makes 0.5x to 2x"
            : "\(asked) is beyond resampling, which makes 1/256 to 256 times"
        return "\(how) the input of \(length(Int128(used), inputRate)): "
            + "the shortest possible is \(length(shortest, outputRate)), the longest \(length(longest, outputRate))"
    }

    static func rateOutOfRange(from input: Int, to output: Int) -> String {
        "converting \(input) Hz to \(output) Hz is beyond resampling's 1/256...256 range "
            + "(\(Int((Double(input) / 256).rounded(.up))) Hz to \(input * 256) Hz from this file)"
    }

    /// Seconds for messages: `12.5 s`, `1.0e+12 s`.
    static func formatSeconds(_ seconds: Double) -> String {
        String(format: "%.6g s", seconds)
    }

    private static func fade(_ fade: Fade?, field: PlanError.Field, rate: Int, within frames: Int64)
        throws(PlanError) -> FadeSpan?
    {
        guard let fade else { return nil }
        guard let count = fade.seconds.multipliedRounded(by: Int64(rate)), count >= 0 else {
            throw PlanError(field, "must not be negative")
        }
        guard count <= frames else {
            throw PlanError(field, "\(fade.seconds.decimalString()) s is longer than the \(frames)-frame output")
        }
        return FadeSpan(frames: count, curve: fade.curve)
    }

    /// Where each input position lands in the output: the marks a recording's chunks name move by it.
    public var frameMap: FrameMap {
        let filled = gaps.reduce(0) { $0 + $1.frames }
        var map = FrameMap(
            inputFrames: inputFrames, kept: range, reversed: reverse, leadingFrames: leadingSilence,
            inserts: gaps.map { FrameMap.Insert(at: $0.at, frames: $0.frames) },
            streamFrames: Int64(range.count) + leadingSilence + trailingSilence + filled, outputFrames: targetFrames)
        if case .warp(_, let knots) = length { map.warp = knots }
        return map
    }

    /// What the chain does, for the summary line and the bext coding history.
    public var summary: String {
        var steps: [String] = []
        if range != 0..<inputFrames { steps.append("trim \(range.lowerBound)..<\(range.upperBound)") }
        if reverse { steps.append("reverse") }
        if leadingSilence > 0 { steps.append("pad-start \(leadingSilence)") }
        if trailingSilence > 0 { steps.append("pad-end \(trailingSilence)") }
        if !gaps.isEmpty {
            steps.append(
                "re-insert \(gaps.count) dropout\(gaps.count == 1 ? "" : "s") (\(gaps.reduce(0) { $0 + $1.frames }) frames)"
            )
        }
        switch length {
        case .none: break
        case .resample: steps.append(method.map { "\($0)" } ?? "resample")
        case .warp(_, let knots):
            steps.append((method.map { "\($0)" } ?? "resample") + " along \(knots.count - 1) segments")
        case .stretch: steps.append(method.map { "\($0)" } ?? "stretch")
        }
        if outputRate != inputRate { steps.append("rate \(inputRate)->\(outputRate) Hz") }
        if let f = fadeIn { steps.append("fade-in \(f.frames) frames \(f.curve.rawValue)") }
        if let f = fadeOut { steps.append("fade-out \(f.frames) frames \(f.curve.rawValue)") }
        return steps.isEmpty ? "copy" : steps.joined(separator: ", ")
    }
}

/// A request whose values do not fit the input file: which part of the request, and why, in domain words (the
/// command line names the option that set it).
public struct PlanError: Error, Equatable, CustomStringConvertible {
    /// The part of the request at fault.
    public enum Field: String, Sendable, Equatable {
        case trim, tempo, stretch, rate, target, operations
        case fadeIn = "fade-in"
        case fadeOut = "fade-out"
    }

    public let field: Field
    public let reason: String

    public init(_ field: Field, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { field == .target ? reason : "\(field.rawValue): \(reason)" }
}
