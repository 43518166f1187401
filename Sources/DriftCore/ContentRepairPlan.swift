/// Turns a content measurement into repair operations that line up every moment of the recording with the
/// reference: the start offset trimmed or padded, each dropout's missing time re-inserted where it happened, then
/// the rate corrected by resampling to an exact length. Pure arithmetic on frames; rounding is to the nearest frame
/// at each step (at most half a frame, 10 µs at 48 kHz).
public enum ContentRepairPlan {
    /// Where the repaired file starts.
    public enum Start: String, Sendable, CaseIterable, Codable {
        /// Frame 0 of the output is the reference's start: the offset is trimmed or padded with silence.
        case reference
        /// The recording's start is kept; only the rate and the dropouts are repaired.
        case keep
    }

    /// The operations for a recording of `frames` frames at `sampleRate`, or why content cannot plan it.
    ///
    /// A drift within its own uncertainty (or under 0.05 ppm) is not corrected, so a dropout repair leaves the
    /// audio between the gaps bit for bit. When the rate is corrected and the result lands within the measurement's
    /// uncertainty of `referenceFrames` (the reference's length at this rate), it is made exactly that long, so an
    /// output that lines up with its reference also ends with it to the frame.
    ///
    /// - Parameter method: how the rate is corrected: resample (a clock fault changes pitch with length), or stretch
    ///   where the configuration says this recorder's pitch is right.
    public static func operations(
        for measurement: ContentMeasurement, frames: Int64, sampleRate: Int, start: Start = .reference,
        referenceFrames: Int64? = nil, method: RepairMethod = .resample
    ) -> Result<[RepairOperation], ContentRefusal> {
        let terms: Terms
        switch Terms.of(measurement) {
        case .success(let found): terms = found
        case .failure(let refusal): return .failure(refusal)
        }
        let (offsetMs, speed) = (terms.offsetMs, terms.speed)
        let rate = Double(sampleRate)
        var operations: [RepairOperation] = []
        var length = frames
        // An offset within its own uncertainty (or under 0.1 ms, inaudible) stays: moving it would rewrite every sample.
        if start == .reference, abs(offsetMs) > max(measurement.offsetMsError ?? 0, 0.1) {
            let startFrames = Int64((offsetMs / 1000 * rate / speed).rounded())
            if startFrames > 0 {
                operations.append(.padStart(frames: startFrames))
                length += startFrames
            } else if startFrames < 0 {
                guard -startFrames < frames else {
                    return .failure(ContentRefusal("the recording ends before the reference starts"))
                }
                operations.append(.trimStart(frames: -startFrames))
                length += startFrames
            }
        }
        for dropout in measurement.dropouts {
            let at = Int64((dropout.atSeconds * rate).rounded())
            let local = measurement.clock.map { 1 / (1 + $0.driftPPM(at: dropout.atSeconds) * 1e-6) } ?? speed
            let missing = Int64((dropout.missingMs / 1000 * rate / local).rounded())
            guard missing > 0, at > 0, at < frames else { continue }
            operations.append(.insert(atFrame: at, frames: missing))
            length += missing
        }
        if let clock = measurement.clock {
            // A clock that wandered: the ratio follows its path from moment to moment.
            let path = WarpPath(
                clock: clock, dropouts: measurement.dropouts, operations: operations, frames: frames, rate: rate,
                originSeconds: start == .reference ? 0 : offsetMs / 1000)
            var target = path.outputFrames
            let uncertainty = max(2, 3 * (measurement.scatterMs ?? 0) / 1000 * rate)
            if start == .reference, let referenceFrames, abs(Double(target - referenceFrames)) <= uncertainty {
                target = referenceFrames
            }
            operations.append(.warp(frames: target, knots: path.knots(target: target)))
            return .success(operations)
        }
        var target = Int64((Double(length) * speed).rounded())
        if target != length {
            let seconds = Double(frames) / rate
            let uncertainty = max(
                2, ((measurement.driftPPMError ?? 0) * 1e-6 * seconds + 3 * (measurement.scatterMs ?? 0) / 1000) * rate)
            if start == .reference, let referenceFrames, abs(Double(target - referenceFrames)) <= uncertainty {
                target = referenceFrames
            }
            operations.append(method == .stretch ? .stretch(frames: target) : .resample(frames: target))
        }
        return .success(operations)
    }
}

extension ContentRepairPlan {
    /// The operations that cut one clip's audio out of a long recording: the recording's sound from the clip's first
    /// moment to its last, on the clip's timeline, exactly `clipFrames` long. The start is trimmed (or padded, where
    /// the recording started after the clip), the end trimmed (or padded with silence, where it stopped before the
    /// clip did), dropouts inside re-inserted, then the rate corrected to exactly `clipFrames`.
    ///
    /// - Parameter measurement: measured on the recording's own timeline (`offsetMs` is the clip time of the
    ///   recording's first frame: very negative for a clip late in a long recording).
    public static func clipOperations(
        for measurement: ContentMeasurement, frames: Int64, sampleRate: Int, clipFrames: Int64,
        method: RepairMethod = .resample
    ) -> Result<[RepairOperation], ContentRefusal> {
        let terms: Terms
        switch Terms.of(measurement) {
        case .success(let found): terms = found
        case .failure(let refusal): return .failure(refusal)
        }
        guard clipFrames > 0 else { return .failure(ContentRefusal("the clip has no frames")) }
        if let clock = measurement.clock {
            return clipWarp(clock, measurement.dropouts, frames: frames, sampleRate: sampleRate, clipFrames: clipFrames)
        }
        let (offsetMs, driftPPM, significant, speed) = (terms.offsetMs, terms.driftPPM, terms.significant, terms.speed)
        let rate = Double(sampleRate)
        // Recording frames before the clip's first moment (negative: silence to put first). Always by the measured
        // rate: a clip an hour into a recording is `offset × drift` away from where a drift within its own error would
        // put it (28 ms at 8 ppm), far beyond the proof's 1 ms.
        let lead = -Int64((offsetMs / 1000 * rate * (1 + driftPPM * 1e-6)).rounded())
        let trim = max(0, lead)
        let pad = max(0, -lead)
        guard trim < frames else { return .failure(ContentRefusal("the recording ends before the clip starts")) }
        // Frames the clip needs before the rate is corrected; the recording frame where they run out.
        let needed = significant ? Int64((Double(clipFrames) / speed).rounded()) : clipFrames
        var end = trim + needed - pad
        guard end > trim else { return .failure(ContentRefusal("the recording starts after the clip ends")) }
        var inserts: [RepairOperation] = []
        for dropout in measurement.dropouts.sorted(by: { $0.atSeconds < $1.atSeconds }) {
            let at = Int64((dropout.atSeconds * rate).rounded())
            let missing = Int64((dropout.missingMs / 1000 * rate / speed).rounded())
            // Inside the clip with its missing time re-inserted; a gap in its last frames is past its end.
            guard missing > 0, at > trim, at < min(end - missing, frames) else { continue }
            inserts.append(.insert(atFrame: at, frames: missing))
            end -= missing
        }
        var operations: [RepairOperation] = []
        if trim > 0 { operations.append(.trimStart(frames: trim)) }
        if pad > 0 { operations.append(.padStart(frames: pad)) }
        if end < frames { operations.append(.trimEnd(frames: frames - end)) }
        if end > frames { operations.append(.padEnd(frames: end - frames)) }
        operations += inserts
        if needed != clipFrames {
            operations.append(method == .stretch ? .stretch(frames: clipFrames) : .resample(frames: clipFrames))
        }
        return .success(operations)
    }
}

extension ContentRepairPlan {
    /// A clip's cut from a recording whose clock wandered: its first and last moments found along the clock's path,
    /// the dropouts inside refilled, then the ratio following the path to exactly `clipFrames`.
    static func clipWarp(
        _ clock: ClockPath, _ dropouts: [ContentMeasurement.Dropout], frames: Int64, sampleRate: Int, clipFrames: Int64
    ) -> Result<[RepairOperation], ContentRefusal> {
        let rate = Double(sampleRate)
        let probe = WarpPath(
            clock: clock, dropouts: dropouts, operations: [], frames: frames, rate: rate, originSeconds: 0)
        /// The first recording frame (possibly before the file's first, or after its last) at or after clip frame
        /// `position`.
        func frame(at position: Double) -> Int64 {
            var (low, high) = (-4 * frames - Int64(rate), 4 * frames + Int64(rate))
            while high - low > 1 {
                let middle = low + (high - low) / 2
                if probe.output(of: middle) >= position { high = middle } else { low = middle }
            }
            return high
        }
        let lead = frame(at: 0)
        let (trim, pad) = (max(0, lead), max(0, -lead))
        guard trim < frames else { return .failure(ContentRefusal("the recording ends before the clip starts")) }
        let end = frame(at: Double(clipFrames))
        guard end > trim else { return .failure(ContentRefusal("the recording starts after the clip ends")) }
        var operations: [RepairOperation] = []
        if trim > 0 { operations.append(.trimStart(frames: trim)) }
        if pad > 0 { operations.append(.padStart(frames: pad)) }
        if end < frames { operations.append(.trimEnd(frames: frames - end)) }
        if end > frames {
            // Silence for the rest of the clip, at the clock's last rate.
            let local = probe.output(of: frames) - probe.output(of: frames - 1)
            let missing = (Double(clipFrames) - probe.output(of: frames)) / max(local, 0.5)
            operations.append(.padEnd(frames: max(1, Int64(missing.rounded()))))
        }
        for dropout in dropouts.sorted(by: { $0.atSeconds < $1.atSeconds }) {
            let at = Int64((dropout.atSeconds * rate).rounded())
            let local = 1 / (1 + clock.driftPPM(at: dropout.atSeconds) * 1e-6)
            let missing = Int64((dropout.missingMs / 1000 * rate / local).rounded())
            guard missing > 0, at > trim, at < min(end, frames) else { continue }
            operations.append(.insert(atFrame: at, frames: missing))
        }
        let path = WarpPath(
            clock: clock, dropouts: dropouts, operations: operations, frames: frames, rate: rate, originSeconds: 0)
        operations.append(.warp(frames: clipFrames, knots: path.knots(target: clipFrames)))
        return .success(operations)
    }

    /// What both plans take from a measurement: the offset, the drift, whether the drift is beyond its own error (or
    /// 0.05 ppm), and the scene seconds per recording second it implies; or why the measurement cannot plan.
    struct Terms {
        let offsetMs: Double
        let driftPPM: Double
        let significant: Bool
        let speed: Double

        static func of(_ measurement: ContentMeasurement) -> Result<Terms, ContentRefusal> {
            guard measurement.isMeasured, let offsetMs = measurement.offsetMs, let driftPPM = measurement.driftPPM
            else {
                return .failure(ContentRefusal("content unmeasurable: \(measurement.reason ?? "no clear match")"))
            }
            if let repeated = measurement.dropouts.first(where: { $0.missingMs < 0 }) {
                return .failure(
                    ContentRefusal(
                        "sound repeated at \(repeated.atSeconds) s (\(-repeated.missingMs) ms): removing it is not a re-insertion"
                    ))
            }
            let significant = abs(driftPPM) > max(measurement.driftPPMError ?? 0, 0.05)
            return .success(
                Terms(
                    offsetMs: offsetMs, driftPPM: driftPPM, significant: significant,
                    speed: significant ? 1 / (1 + driftPPM * 1e-6) : 1))
        }
    }
}

/// Why the content measurement cannot plan a repair.
public struct ContentRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
