import DriftCore
import DriftDSP

extension ProcessingPlan {
    /// Frames entering the length stage: the used input with its silence and the sound re-inserted.
    var streamFrames: Int64 {
        Int64(range.count) + leadingSilence + trailingSilence + gaps.reduce(0) { $0 + $1.frames }
    }

    /// The stretch's ratio (output / input of the stage); nil without a stretch, or where it keeps the length.
    var stretchRatio: Double? {
        guard case .stretch(let frames, _) = length, frames != streamFrames, streamFrames > 0 else { return nil }
        return Double(frames) / Double(streamFrames)
    }

    /// This plan with its stretch engine chosen: by `choice`, and for `auto` where WSOLA may serve by the share of
    /// low-energy frames in the sound of `reader` (measured on a few seconds spread over the used range, or over its first `measuredSeconds` where
    /// seeking is dear, as in compressed audio; then the reader is put back at its start).
    func choosingStretchEngine(
        _ choice: StretchChoice, reader: SeekableAudioSource, measuredSeconds: Int64? = nil
    ) throws -> ProcessingPlan {
        guard let ratio = stretchRatio else { return self }
        var chosen = self
        var share: Double?
        if choice.needsSound(ratio: ratio) {
            let span = measuredSeconds.map { Int64(inputRate) * $0 } ?? Int64(range.count)
            let measured = range.lowerBound..<(range.lowerBound + min(Int64(range.count), span))
            share = try SoundSparseness.measure(reader, range: measured, sampleRate: inputRate).lowEnergyShare
            try reader.seek(toFrame: 0)
        }
        chosen.stretchEngine = choice.engine(ratio: ratio, lowEnergyShare: share)
        return chosen
    }

    /// The stretch stage for this plan's engine, from `source` to `frames` frames.
    func stretchStage(_ source: AudioSource, to frames: Int64, record: TimeStretcher.Record?) throws -> AudioSource {
        switch stretchEngine ?? .vocoder {
        case .vocoder:
            return try PhaseVocoder(
                upstream: source, targetFrames: frames, parameters: .default(sampleRate: inputRate), record: record)
        case .wsola:
            let ratio = Double(frames) / Double(source.frameCount)
            return try TimeStretcher(
                upstream: source, targetFrames: frames, parameters: .default(sampleRate: inputRate, ratio: ratio),
                record: record)
        }
    }
}

extension StretchEngine {
    /// The engine as the method line and the coding history name it.
    public var shownName: String {
        switch self {
        case .vocoder: "phase vocoder"
        case .wsola: "WSOLA"
        }
    }
}
