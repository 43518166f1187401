import DriftSchema
import Foundation
import Synchronization

extension SoundCandidate {
    /// Clear, repeated or tentative: measured.
    public var isWorthMeasuring: Bool { isClear || repeated == true || tentative == true }

    /// Clear enough to be measured as a match (the measurement then decides): on the pooled prints over the whole
    /// recording (ambiguity counts only places that are not themselves clear: a sound heard twice is two clear
    /// places, which the measurement compares), or, for a short clip, on the full-rate prints around the place.
    public var isClear: Bool {
        let floor = byHarmony == true ? SoundMatcher.minimumHarmonyClarity : SoundMatcher.minimumClarity
        return (clarity >= floor && ambiguity <= SoundMatcher.maximumAmbiguity)
            || ((sharpClarity ?? 0) >= SoundMatcher.minimumSharpClarity
                && (sharpAmbiguity ?? 1) <= SoundMatcher.maximumAmbiguity)
    }
}

/// Finds each reference (a camera clip) in a set of recordings (recorders running for hours) by their prints.
///
/// Each print is pooled to 10 frames a second and high-passed (a 4 s moving average removed, so silence weighs
/// nothing), and the reference is correlated with each recording at every offset where they overlap by at least
/// `minimumOverlapSeconds` (FFT correlation, each recording's spectrum computed once per transform size). Each offset's
/// correlation, normalised by both sides' energy over the overlap, is scaled by √(overlap) so that a short partial
/// overlap does not look as significant as a whole clip; the best offset's clarity is its height over all others.
/// The place is then refined on the full 100 frames a second around it.
///
/// Cost: one forward and one inverse transform per reference and recording, of the pooled length (36,000 values per
/// recorded hour): it grows as references × recorded hours × log, never with the audio's sample rate.
public final class SoundMatcher: Sendable {
    /// The version of the search: a night keeps an earlier night's finding only when the same version made it.
    public static let version = 2
    /// A clear place stands at least this far above the rest… (measured on generated shoots: clips that were
    /// recorded 6.0 to 31, places in recordings that never heard the clip at most 5.6)
    public static let minimumClarity = 7.0
    /// …and no other place in the same recording comes this close to it (recorded: 0.1 to 0.83, at most 0.59 where
    /// the clarity passed; never heard: 0.67 to 0.99, as the best of many chance places has others close behind it).
    /// A short clip that does not pass here gets its second look at full rate.
    public static let maximumAmbiguity = 0.6
    /// The least overlap searched, seconds (shorter clips: their whole length).
    public static let minimumOverlapSeconds = 10.0
    /// Print frames per pooled value.
    static let pooling = 10
    /// A clip this short (seconds) whose place stands at least `sharpFrom` above the rest is looked at again on the
    /// full-rate prints within `sharpReach` seconds of it: a short clip has few pooled values to stand out with, and
    /// over a short clip drift cannot smear the sharp onsets.
    public static let sharpClipSeconds = 120.0
    public static let sharpFrom = 4.5
    public static let sharpReach = 30.0
    /// How far the full-rate place must stand above the others around it.
    public static let minimumSharpClarity = 9.0
    /// A place found by the pitch classes stands at least this far above the rest (measured on produced music through
    /// a camera's chain: 11 to 19 where it was heard; speech in recordings that never heard it: at most 6.9).
    public static let minimumHarmonyClarity = 8.0
    /// At most this many places per recording are kept for the measurement to compare.
    public static let mostPlaces = 4
    /// A peak at least this share of the best one's height (over the rest) is a rival place: measured beside it.
    static let repetition = maximumAmbiguity
    /// For a clip found clearly nowhere, the best place the pitch classes found is measured when it stands this far
    /// above the rest; the onsets' best, when it stands this far.
    public static let tentativeHarmonyClarity = 5.0
    public static let tentativeOnsetClarity = 6.0

    static func tentativeClarity(of place: SoundCandidate) -> Double {
        place.byHarmony == true ? tentativeHarmonyClarity : tentativeOnsetClarity
    }

    private let recordings: [Prepared]
    private let spectra = Mutex<[SpectrumKey: HalfSpectrum]>([:])
    private let harmonySpectra = Mutex<[SpectrumKey: [HalfSpectrum]]>([:])
    private let transforms = Mutex<[Int: FFT]>([:])

    public init(recordings: [SoundPrint]) {
        self.recordings = recordings.map(Prepared.init)
    }

    /// Every recording's best place for `reference`, best first; those that are not clear are listed too (callers
    /// list an uncertain place, they do not use it).
    ///
    /// - Parameter hints: per recording index, where another witness (timecode) puts the reference's start,
    ///   recording seconds: where the prints alone find no clear place, the full-rate prints are searched within
    ///   ±`sharpReach` of it, whatever the clip's length.
    public func candidates(for reference: SoundPrint, hints: [Int: Double] = [:]) -> [SoundCandidate] {
        let clip = Prepared(reference)
        guard clip.coarse.count >= 2 else { return [] }
        var found: [SoundCandidate] = []
        var clipSpectra: [Int: HalfSpectrum] = [:]
        var clipHarmony: [Int: [HalfSpectrum]] = [:]
        // Per recording, the weak places of each print (none clear): what a clip found clearly nowhere falls back on.
        var weak: [[SoundCandidate]] = []
        for (index, recording) in recordings.enumerated() where recording.coarse.count >= 2 {
            let minimumOverlap = min(
                clip.coarse.count,
                max(2, Int(Self.minimumOverlapSeconds * Double(SoundPrint.frameRate) / Double(Self.pooling))))
            guard recording.coarse.count >= minimumOverlap else { continue }
            // Both prints' correlations with this recording: the onsets' and, where both hold enough of them, the
            // pitch classes' (one inverse transform for the two where their sizes agree, as they nearly always do).
            let size = Self.transformSize(recording.coarse.count + clip.coarse.count)
            let fft = transform(size)
            let x = clipSpectra[size] ?? PrintSpectra.spectrum(of: clip.coarse, fft: fft)
            clipSpectra[size] = x
            let onsets = PrintSpectra.product(
                [(x, spectrum(recording: index, size: size, fft: fft))], bins: size / 2 + 1)
            let harmonySize = Self.transformSize(recording.chromaFrames + clip.chromaFrames)
            let harmony = harmonyProduct(clip, in: index, size: harmonySize, clipSpectra: &clipHarmony)
            let correlation: (onsets: [Float], harmony: [Float]?)
            if let harmony, harmonySize == size {
                correlation = PrintSpectra.inverse(onsets, harmony, fft: fft)
            } else {
                correlation = (
                    PrintSpectra.inverse(onsets, nil, fft: fft).0,
                    harmony.map { PrintSpectra.inverse($0, nil, fft: transform(harmonySize)).0 }
                )
            }
            var places = place(
                clip, in: recording, index: index, correlation: correlation.onsets, minimumOverlap: minimumOverlap)
            if let hint = hints[index], !places.contains(where: \.isClear),
                let sharp = sharpLook(
                    clip, in: recording, around: Int((hint * Double(SoundPrint.frameRate)).rounded())),
                sharp.clarity >= Self.minimumSharpClarity, sharp.ambiguity <= Self.maximumAmbiguity
            {
                let m = Int((sharp.seconds * Double(SoundPrint.frameRate)).rounded())
                let covered =
                    Double(min(clip.fine.count, recording.fine.count - m) - max(0, -m)) / Double(clip.fine.count)
                let best = places.first
                places = [
                    SoundCandidate(
                        recording: index, startSeconds: sharp.seconds, clarity: best?.clarity ?? 0,
                        ambiguity: best?.ambiguity ?? 1, coverage: min(1, max(0, covered)),
                        sharpClarity: sharp.clarity, sharpAmbiguity: sharp.ambiguity)
                ]
            }
            // The pitch classes, for music: places the onsets did not find clearly.
            let harmonic =
                correlation.harmony.map { harmonyPlaces(clip, in: recording, index: index, correlation: $0) } ?? []
            if !harmonic.isEmpty, !harmonic.contains(where: \.isWorthMeasuring) { weak.append(harmonic) }
            if !places.isEmpty, !places.contains(where: \.isWorthMeasuring) { weak.append(places) }
            for harmonic in harmonic where harmonic.isClear || harmonic.repeated == true {
                let harmonic = refined(harmonic, for: clip)
                if let same = places.firstIndex(where: { abs($0.startSeconds - harmonic.startSeconds) < 2 }) {
                    // One place by both prints: the onsets' figures, unless they did not make it worth measuring.
                    if !places[same].isWorthMeasuring { places[same] = harmonic }
                } else {
                    places.append(harmonic)
                }
            }
            found += places.sorted { $0.clarity > $1.clarity }.prefix(Self.mostPlaces)
        }
        // Clear nowhere: the weak places that stand out most, if they stand out at all, are worth measuring. Never one
        // of several that stand as high (a sound that repeats): then each of them, so the measurement compares them.
        if !found.contains(where: \.isWorthMeasuring) {
            // Every print's weak places that stand out over the recording, or whose onsets stand out sharply around
            // them (a short clip of music whose bars repeat: the sound is there, once or more), in the recording where
            // they stand out most.
            let standing = weak.filter { places in
                places[0].clarity >= Self.tentativeClarity(of: places[0])
                    || (places[0].sharpClarity ?? 0) >= Self.minimumSharpClarity
            }
            if let recording = standing.max(by: { $0[0].clarity < $1[0].clarity })?[0].recording {
                // There, both prints' places: music's bars repeat by its onsets, its harmony by its chords.
                let lists = weak.filter { $0[0].recording == recording }
                var chosen: [SoundCandidate] = []
                for place in lists.flatMap({ $0.prefix(Self.mostPlaces) }).sorted(by: { $0.clarity > $1.clarity })
                where !chosen.contains(where: { abs($0.startSeconds - place.startSeconds) < 1 }) {
                    chosen.append(place)
                }
                // Never one of several that stand as high (a sound that repeats): then each of them, so that the
                // measurement compares them.
                // (A list of more than one place: its first has rivals, each listed.)
                let rivals =
                    chosen.count > 1 && lists.contains { $0.count > 1 || $0[0].ambiguity > Self.maximumAmbiguity }
                chosen = (rivals ? Array(chosen.prefix(2 * Self.mostPlaces)) : [chosen[0]]).map { place in
                    var place = refined(place, for: clip)
                    if rivals { place.repeated = true } else { place.tentative = true }
                    return place
                }
                found.removeAll { $0.recording == recording }
                found += chosen
            }
        }
        // The best place first; a recording's places stay together, best first.
        let order = Dictionary(found.map { ($0.recording, $0.clarity) }, uniquingKeysWith: max)
        return found.sorted {
            $0.recording == $1.recording
                ? $0.clarity > $1.clarity
                : (order[$0.recording] ?? 0, $1.recording) > (order[$1.recording] ?? 0, $0.recording)
        }
    }

    // MARK: - The search

    /// The places the pooled onsets find in one recording: the clearest, and every other that stands out as clearly
    /// (the sound occurs there too), best first.
    private func place(
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

    /// The least overlap the pitch classes are searched with, frames (shorter clips: their whole length).
    private static func harmonyOverlap(_ clip: Prepared) -> Int {
        min(clip.chromaFrames, max(2, Int(Self.minimumOverlapSeconds * Double(ChromaEnvelope.frameRate))))
    }

    /// The spectrum of the pitch classes' correlation with one recording (Σ over the classes of conj(X_c)·Y_c: one
    /// inverse transform for all twelve); nil where either holds too few of them to search.
    private func harmonyProduct(
        _ clip: Prepared, in index: Int, size: Int, clipSpectra: inout [Int: [HalfSpectrum]]
    ) -> HalfSpectrum? {
        guard clip.chromaFrames >= 2, recordings[index].chromaFrames >= Self.harmonyOverlap(clip) else { return nil }
        let fft = transform(size)
        let x = clipSpectra[size] ?? PrintSpectra.spectra(of: clip.chroma, fft: fft)
        clipSpectra[size] = x
        let y = harmonySpectrum(recording: index, size: size, fft: fft)
        return PrintSpectra.product(Array(zip(x, y)), bins: size / 2 + 1)
    }

    /// The places the pitch classes find in one recording (from their correlation, unscaled), best first: music,
    /// whose onsets repeat with its beat.
    private func harmonyPlaces(
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

    /// Each offset's correlation (`r`, an unscaled inverse transform: offset m at m modulo its size), normalised by
    /// both sides' energy over the overlap (prefix sums of squares) and scaled by √(overlap), so a short partial
    /// overlap does not look as significant as a whole clip; 0 where the overlap is too short or silent.
    static func significance(
        _ r: [Float], clip: [Double], recording: [Double], offsets: ClosedRange<Int>, minimumOverlap: Int
    ) -> [Double] {
        let nc = clip.count - 1
        let nr = recording.count - 1
        let size = r.count
        let scale = 1 / Float(size)
        var values = [Double](repeating: 0, count: offsets.count)
        for m in offsets {
            let first = max(0, -m)
            let end = min(nc, nr - m)
            guard end - first >= minimumOverlap else { continue }
            let ec = clip[end] - clip[first]
            let er = recording[end + m] - recording[first + m]
            guard ec > 0, er > 0 else { continue }
            values[m - offsets.lowerBound] =
                Double(r[(m % size + size) % size] * scale) / (ec * er).squareRoot() * Double(end - first).squareRoot()
        }
        return values
    }

    /// The places of `values` that stand out, best first, at most `most`: the highest, and every other peak (beyond
    /// `lobe` of higher ones) that stands at least `floor` above the rest. The rest is what lies outside the lobes of
    /// the highest peaks (up to 16, fewer in a short recording), so a sound heard many times (a loop) does not hide
    /// behind its own repetitions. Each place has its clarity (a z-score against the rest), its ambiguity (the best
    /// value that is not itself a place, relative to it), and how many places there are in all.
    static func places(_ values: [Double], lobe: Int, floor: Double, most: Int) -> [(
        index: Int, clarity: Double, ambiguity: Double, count: Int
    )] {
        guard !values.isEmpty else { return [] }
        let width = 2 * lobe + 1
        let scanned = max(1, min(16, values.count / (4 * width)))
        var excluded = [Bool](repeating: false, count: values.count)
        func exclude(_ index: Int, in mask: inout [Bool]) {
            for i in max(0, index - lobe)...min(values.count - 1, index + lobe) { mask[i] = true }
        }
        // Each peak is the highest value outside the lobes of the earlier ones (the first of equals). Kept per block of
        // `lobe` values, each block's highest not excluded: a peak costs a look at the blocks, and a new lobe touches
        // at most four of them.
        let block = max(1, lobe)
        func highest(inBlock b: Int) -> Int {
            var best = -1
            for i in (b * block)..<min(values.count, (b + 1) * block) where !excluded[i] {
                if best < 0 || values[i] > values[best] { best = i }
            }
            return best
        }
        var blocks = (0..<((values.count + block - 1) / block)).map(highest(inBlock:))
        var peaks: [Int] = []
        while peaks.count < scanned {
            var best = -1
            for candidate in blocks where candidate >= 0 && (best < 0 || values[candidate] > values[best]) {
                best = candidate
            }
            guard best >= 0, values[best] > 0 else { break }
            peaks.append(best)
            exclude(best, in: &excluded)
            for b in (max(0, best - lobe) / block)...(min(values.count - 1, best + lobe) / block) {
                blocks[b] = highest(inBlock: b)
            }
        }
        guard let first = peaks.first else { return [] }
        var sum = 0.0
        var squares = 0.0
        var counted = 0.0
        for i in values.indices where !excluded[i] {
            sum += values[i]
            squares += values[i] * values[i]
            counted += 1
        }
        guard counted > 1 else { return [] }
        let mean = sum / counted
        let deviation = max((squares / counted - mean * mean).squareRoot(), 1e-12)
        // A peak that stands at least `repetition` of the best one's height is a rival: the same sound again (a loop,
        // a chorus, a playback at every take) or a confusion only the measurement can tell from it. A place too.
        let height = values[first] - mean
        func rivals(_ v: Double) -> Bool { height > 0 && v - mean >= Self.repetition * height }
        var places = peaks.filter { $0 == first || (values[$0] - mean) / deviation >= floor || rivals(values[$0]) }
        // Rivals beyond the peaks scanned (a short recording scans one): each run of such heights is one more, and
        // where its highest value is a peak of its own (not the shoulder of a place's lobe) it is a place too, so that
        // a sound heard twice close by is measured at both places, never at the first alone.
        var outside = [Bool](repeating: false, count: values.count)
        for index in places { exclude(index, in: &outside) }
        var more = 0
        var run = -1
        func close() {
            guard run >= 0 else { return }
            let isPeak =
                (run == 0 || values[run - 1] <= values[run])
                && (run == values.count - 1 || values[run + 1] <= values[run])
            if isPeak { places.append(run) } else { more += 1 }
            run = -1
        }
        for i in values.indices {
            if !outside[i], rivals(values[i]) {
                if run < 0 || values[i] > values[run] { run = i }
            } else {
                close()
            }
        }
        close()
        // Best first (the first peak is the highest of all; of equals, the earlier).
        places = [first] + places.dropFirst().sorted { (values[$0], -$0) > (values[$1], -$1) }
        // The best value beyond the first peak's lobe: the second peak, when the scan found one.
        let secondBest: Double
        if peaks.count > 1 {
            secondBest = values[peaks[1]]
        } else {
            var own = [Bool](repeating: false, count: values.count)
            exclude(first, in: &own)
            secondBest = values.indices.lazy.filter { !own[$0] }.map { values[$0] }.max() ?? -Double.infinity
        }
        return places.prefix(most).map { index in
            // Ambiguity: the best value beyond this place's own lobe, relative to it (another place included): for
            // a later peak, the first, which lies beyond its lobe and is the highest of all.
            let best = index == first ? secondBest : values[first]
            let height = values[index]
            return (
                index, (height - mean) / deviation,
                height > mean ? max(0, (best - mean) / (height - mean)) : 1, places.count + more
            )
        }
    }

    /// Whether `places` (best first) are a sound heard again and again: the best as clear as a place must be, but with
    /// a rival as high as itself.
    static func repeats(
        _ places: [(index: Int, clarity: Double, ambiguity: Double, count: Int)], floor: Double,
        sharplyClear: Bool = false
    ) -> Bool {
        guard let best = places.first else { return false }
        return (best.clarity >= floor || sharplyClear) && places.count > 1
    }

    /// The highest of `values` (skipping zeros left for offsets not searched), how far it stands above the others
    /// beyond `lobe` either side (z-score), and the best of those relative to it.
    static func peak(_ values: [Double], lobe: Int) -> (index: Int, clarity: Double, ambiguity: Double)? {
        guard !values.isEmpty else { return nil }
        var best = 0
        for i in values.indices where values[i] > values[best] { best = i }
        var sum = 0.0
        var squares = 0.0
        var counted = 0.0
        var second = -Double.infinity
        for i in values.indices where abs(i - best) > lobe {
            let v = values[i]
            sum += v
            squares += v * v
            counted += 1
            second = max(second, v)
        }
        let height = values[best]
        guard counted > 1, height > 0 else { return nil }
        let mean = sum / counted
        let deviation = max((squares / counted - mean * mean).squareRoot(), 1e-12)
        return (best, (height - mean) / deviation, height > mean ? max(0, (second - mean) / (height - mean)) : 1)
    }

    /// The full-rate prints correlated within ±`sharpReach` of `guess` (print frames): the place (seconds), and how
    /// clearly it stands out there.
    private func sharpLook(_ clip: Prepared, in recording: Prepared, around guess: Int) -> (
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
    private func refined(_ place: SoundCandidate, for clip: Prepared) -> SoundCandidate {
        guard place.byHarmony == true else { return place }
        var place = place
        place.startSeconds = refine(
            clip, in: recordings[place.recording],
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

    // MARK: - Prints prepared for the search

    /// A print pooled and high-passed, with prefix sums of its squares.
    struct Prepared: Sendable {
        let coarse: [Float]
        /// energy[k] = Σ coarse[0..<k]².
        let energy: [Double]
        /// The full-rate onsets, high-passed the same way, and the prefix sums of their squares.
        let fine: [Float]
        let fineEnergy: [Double]
        /// The pitch classes by class, frame by frame: each frame's levels less their mean (its loudness), each class
        /// high-passed in time; and the prefix sums of each frame's squares over the classes.
        let chroma: [[Float]]
        let chromaEnergy: [Double]
        var chromaFrames: Int { chromaEnergy.count - 1 }

        init(_ print: SoundPrint) {
            coarse = Prepared.highPassed(
                print.pooled(by: SoundMatcher.pooling).map { $0.squareRoot() },
                reach: 2 * SoundPrint.frameRate / SoundMatcher.pooling)
            energy = Prepared.prefixSquares(coarse)
            fine = Prepared.highPassed(print.onsets.map { Float($0).squareRoot() }, reach: 2 * SoundPrint.frameRate)
            fineEnergy = Prepared.prefixSquares(fine)
            let levels = print.chromaLevels().map { frame -> [Float] in
                let mean = frame.reduce(0, +) / Float(frame.count)
                return frame.map { $0 - mean }
            }
            chroma = (0..<ChromaEnvelope.classes).map { c in
                Prepared.highPassed(levels.map { $0[c] }, reach: 2 * ChromaEnvelope.frameRate)
            }
            var sums = [Double](repeating: 0, count: levels.count + 1)
            for k in levels.indices {
                var frame = 0.0
                for c in 0..<ChromaEnvelope.classes { frame += Double(chroma[c][k] * chroma[c][k]) }
                sums[k + 1] = sums[k] + frame
            }
            chromaEnergy = sums
        }

        /// sums[k] = Σ x[0..<k]².
        static func prefixSquares(_ x: [Float]) -> [Double] {
            var sums = [Double](repeating: 0, count: x.count + 1)
            for (i, v) in x.enumerated() { sums[i + 1] = sums[i] + Double(v * v) }
            return sums
        }

        /// `x` less its moving average over ±`reach` values.
        static func highPassed(_ x: [Float], reach: Int) -> [Float] {
            guard !x.isEmpty else { return x }
            var prefix = [Double](repeating: 0, count: x.count + 1)
            for (i, v) in x.enumerated() { prefix[i + 1] = prefix[i] + Double(v) }
            return x.indices.map { i in
                let low = max(0, i - reach)
                let high = min(x.count, i + reach + 1)
                return x[i] - Float((prefix[high] - prefix[low]) / Double(high - low))
            }
        }
    }

    private struct SpectrumKey: Hashable {
        let recording: Int
        let size: Int
    }

    private func transform(_ size: Int) -> FFT {
        transforms.withLock { cache in
            if let fft = cache[size] { return fft }
            let fft = FFT(size: size)
            cache[size] = fft
            return fft
        }
    }

    /// The twelve classes' half spectra of a recording's pitch classes, once per transform size.
    private func harmonySpectrum(recording index: Int, size: Int, fft: FFT) -> [HalfSpectrum] {
        let key = SpectrumKey(recording: index, size: size)
        if let cached = harmonySpectra.withLock({ $0[key] }) { return cached }
        let made = PrintSpectra.spectra(of: recordings[index].chroma, fft: fft)
        harmonySpectra.withLock { $0[key] = made }
        return made
    }

    /// A recording's pooled onsets' half spectrum, once per transform size.
    private func spectrum(recording index: Int, size: Int, fft: FFT) -> HalfSpectrum {
        let key = SpectrumKey(recording: index, size: size)
        if let cached = spectra.withLock({ $0[key] }) { return cached }
        let made = PrintSpectra.spectrum(of: recordings[index].coarse, fft: fft)
        spectra.withLock { $0[key] = made }
        return made
    }

    /// The power of two (at least 8) a correlation of `count` values in all needs, so it does not wrap around.
    static func transformSize(_ count: Int) -> Int {
        var size = 8
        while size < count { size <<= 1 }
        return size
    }
}
