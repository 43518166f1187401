import DriftCore

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

    /// Plans `request` for an input of `frames` frames at `sampleRate`.
    ///
    /// - Throws: `PlanError` naming the option whose value does not fit this file.
    public init(request: ProcessRequest, inputFrames frames: Int64, sampleRate: Int) throws(PlanError) {
        inputFrames = frames
        inputRate = sampleRate
        outputRate = request.edits.outputRate ?? sampleRate
        switch request.edits.trim?.frames(in: frames, sampleRate: sampleRate) ?? .success(0..<frames) {
        case .success(let range): self.range = range
        case .failure(let error): throw PlanError(error.description)
        }
        reverse = request.edits.reverse
        let used = Int64(range.count)

        // The output length at the output rate.
        let wanted: TargetLength
        var method = request.method
        if let tempo = request.tempo {
            guard let inverse = Rational(1, 1).dividedExactly(by: tempo) else { throw PlanError("--tempo: out of range") }
            wanted = .ratio(inverse)
            method = MethodChoice(method: .stretch, reason: "--tempo")
        } else {
            wanted = request.target ?? .ratio(Rational(1, 1))
        }
        do {
            targetFrames = try wanted.resolve(inputFrames: used, inputRate: sampleRate, outputRate: outputRate)
        } catch {
            throw PlanError(error.description)
        }

        // The length stage.
        let durationChanges = Int128(targetFrames) * Int128(sampleRate) != Int128(used) * Int128(outputRate)
        if !durationChanges && outputRate == sampleRate && targetFrames == used {
            length = .none
            self.method = nil
        } else if method.method == .stretch && durationChanges {
            // Stretch the duration at the input rate, then convert the rate exactly.
            let atInputRate = Rational(targetFrames, 1).multipliedRounded(by: Int64(sampleRate), dividedBy: Int64(outputRate)) ?? 0
            let ratio = Double(atInputRate) / Double(used)
            guard atInputRate > 0, (0.5...2.0).contains(ratio) else {
                let option = request.tempo != nil ? "--tempo" : "--method stretch"
                throw PlanError("\(option): a stretch by \(ratio) is outside 0.5x...2x")
            }
            length = .stretch(frames: atInputRate, rateFrames: outputRate == sampleRate ? nil : targetFrames)
            self.method = method
        } else {
            length = .resample(frames: targetFrames)
            self.method = durationChanges ? method : MethodChoice(method: .resample, reason: "--rate")
        }

        fadeIn = try ProcessingPlan.fade(request.edits.fadeIn, option: "--fade-in", rate: outputRate, within: targetFrames)
        fadeOut = try ProcessingPlan.fade(request.edits.fadeOut, option: "--fade-out", rate: outputRate, within: targetFrames)
    }

    private static func fade(_ fade: Fade?, option: String, rate: Int, within frames: Int64)
        throws(PlanError) -> FadeSpan?
    {
        guard let fade else { return nil }
        guard let count = fade.seconds.multipliedRounded(by: Int64(rate)), count >= 0 else {
            throw PlanError("\(option): must not be negative")
        }
        guard count <= frames else {
            throw PlanError("\(option): \(fade.seconds.decimalString()) s is longer than the \(frames)-frame output")
        }
        return FadeSpan(frames: count, curve: fade.curve)
    }

    /// What the chain does, for the summary line and the bext coding history.
    public var summary: String {
        var steps: [String] = []
        if range != 0..<inputFrames { steps.append("trim \(range.lowerBound)..<\(range.upperBound)") }
        if reverse { steps.append("reverse") }
        switch length {
        case .none: break
        case .resample: steps.append(method.map { "\($0)" } ?? "resample")
        case .stretch: steps.append(method.map { "\($0)" } ?? "stretch")
        }
        if outputRate != inputRate { steps.append("rate \(inputRate)->\(outputRate) Hz") }
        if let f = fadeIn { steps.append("fade-in \(f.frames) frames \(f.curve.rawValue)") }
        if let f = fadeOut { steps.append("fade-out \(f.frames) frames \(f.curve.rawValue)") }
        return steps.isEmpty ? "copy" : steps.joined(separator: ", ")
    }
}

/// A request whose values do not fit the input file; the text names the option.
public struct PlanError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
