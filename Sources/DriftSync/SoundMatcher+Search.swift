import DriftSchema
import Foundation

extension SoundMatcher {
    // MARK: - The search

    /// The places the pooled onsets find in one recording: the clearest, and every other that stands out as clearly
    /// (the sound occurs there too), best first.
    func place(
        _ clip: Prepared, in recording: Prepared, index: Int, correlation: [Float], minimumOverlap: Int
    ) -> [SoundCandidate] {
        let nc = clip.coarse.count
        let nr = recording.coarse.count
        let lowest = -(nc - minimumOverlap)
        guard nr - minimumOverlap >= lowest else { return [] }
        let significance = Self.significance(
            correlation, clip: clip.energy, recording: recording.energy, offsets: lowest...(nr - minimumOverlap),
            minimumOverlap: minimumOverlap)
        var found: [SoundCandidate] = []
        let peaks = Self.places(
            significance, lobe: 2 * SoundPrint.frameRate / Self.pooling, floor: Self.minimumClarity,
            most: Self.mostPlaces)
        // The best place's second look, for a short clip: whether it is sharply clear decides, with the pooled
        // clarity, whether rivals make the sound a repeated one.
        let sharp = peaks.first.flatMap { peak -> (seconds: Double, clarity: Double, ambiguity: Double)? in
            guard peak.clarity >= Self.sharpFrom,
                Double(clip.fine.count) <= Self.sharpClipSeconds * Double(SoundPrint.frameRate)
            else { return nil }
            return sharpLook(clip, in: recording, around: (peak.index + lowest) * Self.pooling)
        }
        let sharplyClear = sharp.map { $0.clarity >= Self.minimumSharpClarity && $0.ambiguity <= Self.maximumAmbiguity }
        let repeated = Self.repeats(peaks, floor: Self.minimumClarity, sharplyClear: sharplyClear ?? false)
        for (rank, peak) in peaks.enumerated() {
            let m = peak.index + lowest
            // Refining costs a clip's length per step: only where the place may be used.
            var start =
                peak.clarity >= Self.minimumClarity - 1
                ? refine(clip, in: recording, around: m * Self.pooling)
                : Double(m * Self.pooling) / Double(SoundPrint.frameRate)
            let covered = Double(min(nc, nr - m) - max(0, -m)) / Double(nc)
            var candidate = SoundCandidate(
                recording: index, startSeconds: start, clarity: peak.clarity, ambiguity: peak.ambiguity,
                coverage: min(1, max(0, covered)))
            if peak.count > 1 { candidate.rivals = peak.count - 1 }
            if repeated { candidate.repeated = true }
            if rank == 0, let sharp {
                candidate.sharpClarity = sharp.clarity
                candidate.sharpAmbiguity = sharp.ambiguity
                if sharplyClear == true { start = sharp.seconds }
                candidate.startSeconds = start
            }
            found.append(candidate)
        }
        return found
    }

    /// The places the pitch classes find in one recording (from their correlation, unscaled), best first: music,
    /// whose onsets repeat with its beat.
    func harmonyPlaces(
        _ clip: Prepared, in recording: Prepared, index: Int, correlation: [Float]
    ) -> [SoundCandidate] {
        let nc = clip.chromaFrames
        let nr = recording.chromaFrames
        let minimumOverlap = Self.harmonyOverlap(clip)
        let lowest = -(nc - minimumOverlap)
        let significance = Self.significance(
            correlation, clip: clip.chromaEnergy, recording: recording.chromaEnergy,
            offsets: lowest...(nr - minimumOverlap), minimumOverlap: minimumOverlap)
        var found: [SoundCandidate] = []
        let peaks = Self.places(
            significance, lobe: 2 * ChromaEnvelope.frameRate, floor: Self.minimumHarmonyClarity, most: Self.mostPlaces)
        let repeated = Self.repeats(peaks, floor: Self.minimumHarmonyClarity)
        for peak in peaks {
            let m = peak.index + lowest
            let frames = SoundPrint.frameRate / ChromaEnvelope.frameRate
            // Refined where the place is used (`refined(_:for:)`): most pitch-class peaks are chance.
            var candidate = SoundCandidate(
                recording: index, startSeconds: Double(m * frames) / Double(SoundPrint.frameRate),
                clarity: peak.clarity, ambiguity: peak.ambiguity,
                coverage: min(1, max(0, Double(min(nc, nr - m) - max(0, -m)) / Double(nc))))
            candidate.byHarmony = true
            if peak.count > 1 { candidate.rivals = peak.count - 1 }
            if repeated { candidate.repeated = true }
            found.append(candidate)
        }
        return found
    }

    /// The full-rate prints correlated within ±`sharpReach` of `guess` (print frames): the place (seconds), and how
    /// clearly it stands out there.
    func sharpLook(_ clip: Prepared, in recording: Prepared, around guess: Int) -> (
        seconds: Double, clarity: Double, ambiguity: Double
    )? {
        let c = clip.fine
        let r = recording.fine
        let reach = Int(Self.sharpReach * Double(SoundPrint.frameRate))
        let lowest = guess - reach
        let span = 2 * reach + 1
        var size = 8
        while size < span + 2 * c.count { size <<= 1 }
        // Recording frames lowest ..< lowest + span + clip, zero outside the recording.
        let correlation = transform(size).crossCorrelation(
            c, with: r, from: lowest, window: span + c.count, count: span)
        let scale = 1 / Float(size)
        var values = [Double](repeating: 0, count: span)
        let minimum = min(c.count, max(2, Int(Self.minimumOverlapSeconds * Double(SoundPrint.frameRate))))
        for d in 0..<span {
            let m = lowest + d
            let first = max(0, -m)
            let end = min(c.count, r.count - m)
            guard end - first >= minimum else { continue }
            let ec = clip.fineEnergy[end] - clip.fineEnergy[first]
            let er = recording.fineEnergy[end + m] - recording.fineEnergy[first + m]
            guard ec > 0, er > 0 else { continue }
            values[d] = Double(correlation[d] * scale) / (ec * er).squareRoot() * Double(end - first).squareRoot()
        }
        guard let peak = Self.peak(values, lobe: SoundPrint.frameRate / 2) else { return nil }
        var position = Double(peak.index)
        if peak.index > 0, peak.index < span - 1 {
            position += parabolicOffset(values[peak.index - 1], values[peak.index], values[peak.index + 1])
        }
        return ((Double(lowest) + position) / Double(SoundPrint.frameRate), peak.clarity, peak.ambiguity)
    }

    /// A place the pitch classes found (a tenth of a second apart) at the offset where the full-rate prints agree
    /// best around it; other places as they are.
    func refined(_ place: SoundCandidate, for clip: Prepared) -> SoundCandidate {
        guard place.byHarmony == true else { return place }
        var place = place
        place.startSeconds = refine(
            clip, in: recording(place.recording),
            around: Int((place.startSeconds * Double(SoundPrint.frameRate)).rounded()))
        return place
    }

    /// The offset near `guess` (print frames) where the full-rate prints agree best, seconds (parabolic peak).
    private func refine(_ clip: Prepared, in recording: Prepared, around guess: Int) -> Double {
        let c = clip.fine
        let r = recording.fine
        let reach = Self.pooling + 5
        var scores: [Double] = []
        for m in (guess - reach)...(guess + reach) {
            let first = max(0, -m)
            let end = min(c.count, r.count - m)
            var dot: Float = 0
            var ec: Float = 0
            var er: Float = 0
            if end > first {
                for i in first..<end {
                    dot += c[i] * r[i + m]
                    ec += c[i] * c[i]
                    er += r[i + m] * r[i + m]
                }
            }
            scores.append(ec > 0 && er > 0 ? Double(dot / (ec * er).squareRoot()) : -1)
        }
        var best = 0
        for i in scores.indices where scores[i] > scores[best] { best = i }
        var position = Double(best)
        if best > 0, best < scores.count - 1 {
            position += parabolicOffset(scores[best - 1], scores[best], scores[best + 1])
        }
        return (Double(guess - reach) + position) / Double(SoundPrint.frameRate)
    }
}
