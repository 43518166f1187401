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

    /// The recordings' prints; each is prepared for the search when first searched (`recording(_:)`).
    private let prints: [SoundPrint]
    private let prepared = Mutex<[Int: Prepared]>([:])
    /// The recordings' landmarks, where the search is indexed.
    let index: SoundIndex?
    private let spectra = Mutex<[SpectrumKey: HalfSpectrum]>([:])
    private let harmonySpectra = Mutex<[SpectrumKey: [HalfSpectrum]]>([:])
    private let transforms = Mutex<[Int: FFT]>([:])

    /// - Parameter indexed: look each clip up in an index of the recordings' landmarks first and search the recordings
    ///   it names (`candidates(for:hints:)`); false: search every recording for every clip.
    public convenience init(recordings: [SoundPrint], indexed: Bool = true) {
        self.init(recordings: recordings, index: indexed ? SoundIndex(recordings: recordings) : nil)
    }

    /// - Parameter index: the recordings' index, made from these prints in this order; nil: every recording is searched.
    public init(recordings: [SoundPrint], index: SoundIndex?) {
        prints = recordings
        self.index = index?.isComplete == false ? nil : index
    }

    /// Recording `index` prepared for the search (once; a recording the index never names is never prepared).
    func recording(_ index: Int) -> Prepared {
        if let made = prepared.withLock({ $0[index] }) { return made }
        let made = Prepared(prints[index])
        prepared.withLock { $0[index] = made }
        return made
    }

    /// Every recording's best place for `reference`, best first; those that are not clear are listed too (callers
    /// list an uncertain place, they do not use it).
    ///
    /// Indexed, the recordings the index names (and those with a hint) are searched first; where none of them holds a
    /// place worth measuring, every recording is, so that what comes out worth measuring is what the search of every
    /// recording finds (places that are not are listed for the named recordings only).
    ///
    /// - Parameter hints: per recording index, where another witness (timecode) puts the reference's start,
    ///   recording seconds: where the prints alone find no clear place, the full-rate prints are searched within
    ///   ±`sharpReach` of it, whatever the clip's length.
    public func candidates(for reference: SoundPrint, hints: [Int: Double] = [:]) -> [SoundCandidate] {
        let clip = Prepared(reference)
        guard clip.coarse.count >= 2 else { return [] }
        var spectra = ClipSpectra()
        var searched: [Int: Searched] = [:]
        if let named = index?.nominate(reference) {
            for i in Set(named.recordings).union(hints.keys) {
                searched[i] = search(clip, in: i, hint: hints[i], spectra: &spectra)
            }
            let found = searched.values.flatMap(\.found)
            if found.contains(where: \.isWorthMeasuring) { return Self.ordered(Self.inOrder(searched).found) }
        }
        for i in prints.indices where searched[i] == nil {
            searched[i] = search(clip, in: i, hint: hints[i], spectra: &spectra)
        }
        var (found, weak) = Self.inOrder(searched)
        if !found.contains(where: \.isWorthMeasuring) { fallBack(on: weak, found: &found, for: clip) }
        return Self.ordered(found)
    }

    /// One recording's places for a clip, and its weak places where none is worth measuring.
    private struct Searched {
        var found: [SoundCandidate] = []
        var weak: [[SoundCandidate]] = []
    }

    /// The recordings' places and weak places in the recordings' order (what follows depends on it only for ties).
    private static func inOrder(_ searched: [Int: Searched]) -> (found: [SoundCandidate], weak: [[SoundCandidate]]) {
        let each = searched.keys.sorted().compactMap { searched[$0] }
        return (each.flatMap(\.found), each.flatMap(\.weak))
    }

    /// A clip's spectra, per transform size, kept over the recordings it is searched in.
    private struct ClipSpectra {
        var onsets: [Int: HalfSpectrum] = [:]
        var harmony: [Int: [HalfSpectrum]] = [:]
    }

    /// The clip searched for in one recording: its places, and its weak places where none is worth measuring (what a
    /// clip found clearly nowhere falls back on).
    private func search(_ clip: Prepared, in index: Int, hint: Double?, spectra: inout ClipSpectra) -> Searched {
        let minimumOverlap = min(
            clip.coarse.count,
            max(2, Int(Self.minimumOverlapSeconds * Double(SoundPrint.frameRate) / Double(Self.pooling))))
        // The pooled length, known from the print: a recording too short is not prepared.
        let pooled = (prints[index].onsets.count + Self.pooling - 1) / Self.pooling
        guard pooled >= max(2, minimumOverlap) else { return Searched() }
        let recording = recording(index)
        var result = Searched()
        let correlation = correlations(
            clip, with: recording, index: index, clipSpectra: &spectra.onsets, clipHarmony: &spectra.harmony)
        var places = place(
            clip, in: recording, index: index, correlation: correlation.onsets, minimumOverlap: minimumOverlap)
        if let hint, !places.contains(where: \.isClear),
            let sharp = hinted(clip, in: recording, index: index, at: hint, best: places.first)
        {
            places = [sharp]
        }
        // The pitch classes, for music: places the onsets did not find clearly.
        let harmonic =
            correlation.harmony.map { harmonyPlaces(clip, in: recording, index: index, correlation: $0) } ?? []
        if !harmonic.isEmpty, !harmonic.contains(where: \.isWorthMeasuring) { result.weak.append(harmonic) }
        if !places.isEmpty, !places.contains(where: \.isWorthMeasuring) { result.weak.append(places) }
        merge(harmonic, into: &places, for: clip)
        result.found = Array(places.sorted { $0.clarity > $1.clarity }.prefix(Self.mostPlaces))
        return result
    }

    /// Both prints' correlations with one recording: the onsets' and, where both hold enough of them, the pitch
    /// classes' (one inverse transform for the two where their sizes agree, as they nearly always do).
    private func correlations(
        _ clip: Prepared, with recording: Prepared, index: Int, clipSpectra: inout [Int: HalfSpectrum],
        clipHarmony: inout [Int: [HalfSpectrum]]
    ) -> (onsets: [Float], harmony: [Float]?) {
        let size = Self.transformSize(recording.coarse.count + clip.coarse.count)
        let fft = transform(size)
        let x = clipSpectra[size] ?? PrintSpectra.spectrum(of: clip.coarse, fft: fft)
        clipSpectra[size] = x
        let onsets = PrintSpectra.product(
            [(x, spectrum(recording: index, size: size, fft: fft))], bins: size / 2 + 1)
        let harmonySize = Self.transformSize(recording.chromaFrames + clip.chromaFrames)
        let harmony = harmonyProduct(clip, in: index, size: harmonySize, clipSpectra: &clipHarmony)
        if let harmony, harmonySize == size {
            return PrintSpectra.inverse(onsets, harmony, fft: fft)
        }
        return (
            PrintSpectra.inverse(onsets, nil, fft: fft).0,
            harmony.map { PrintSpectra.inverse($0, nil, fft: transform(harmonySize)).0 }
        )
    }

    /// The place the full-rate prints find sharply clear within ±`sharpReach` of a hint (recording seconds), with the
    /// pooled best place's figures; nil where it is not sharply clear there.
    private func hinted(
        _ clip: Prepared, in recording: Prepared, index: Int, at hint: Double, best: SoundCandidate?
    ) -> SoundCandidate? {
        guard
            let sharp = sharpLook(
                clip, in: recording, around: Int((hint * Double(SoundPrint.frameRate)).rounded())),
            sharp.clarity >= Self.minimumSharpClarity, sharp.ambiguity <= Self.maximumAmbiguity
        else { return nil }
        let m = Int((sharp.seconds * Double(SoundPrint.frameRate)).rounded())
        let covered =
            Double(min(clip.fine.count, recording.fine.count - m) - max(0, -m)) / Double(clip.fine.count)
        return SoundCandidate(
            recording: index, startSeconds: sharp.seconds, clarity: best?.clarity ?? 0,
            ambiguity: best?.ambiguity ?? 1, coverage: min(1, max(0, covered)),
            sharpClarity: sharp.clarity, sharpAmbiguity: sharp.ambiguity)
    }

    /// Adds the pitch classes' clear or repeated places to the onsets' (refined); where both found one place, the
    /// onsets' figures stay, unless they did not make it worth measuring.
    private func merge(_ harmonic: [SoundCandidate], into places: inout [SoundCandidate], for clip: Prepared) {
        for harmonic in harmonic where harmonic.isClear || harmonic.repeated == true {
            let harmonic = refined(harmonic, for: clip)
            if let same = places.firstIndex(where: { abs($0.startSeconds - harmonic.startSeconds) < 2 }) {
                if !places[same].isWorthMeasuring { places[same] = harmonic }
            } else {
                places.append(harmonic)
            }
        }
    }

    /// Clear nowhere: the weak places that stand out most, if they stand out at all, are worth measuring. Never one
    /// of several that stand as high (a sound that repeats): then each of them, so the measurement compares them.
    private func fallBack(on weak: [[SoundCandidate]], found: inout [SoundCandidate], for clip: Prepared) {
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

    /// The best place first; a recording's places stay together, best first.
    private static func ordered(_ found: [SoundCandidate]) -> [SoundCandidate] {
        let order = Dictionary(found.map { ($0.recording, $0.clarity) }, uniquingKeysWith: max)
        return found.sorted {
            $0.recording == $1.recording
                ? $0.clarity > $1.clarity
                : (order[$0.recording] ?? 0, $1.recording) > (order[$1.recording] ?? 0, $0.recording)
        }
    }

    /// The least overlap the pitch classes are searched with, frames (shorter clips: their whole length).
    static func harmonyOverlap(_ clip: Prepared) -> Int {
        min(clip.chromaFrames, max(2, Int(Self.minimumOverlapSeconds * Double(ChromaEnvelope.frameRate))))
    }

    /// The spectrum of the pitch classes' correlation with one recording (Σ over the classes of conj(X_c)·Y_c: one
    /// inverse transform for all twelve); nil where either holds too few of them to search.
    private func harmonyProduct(
        _ clip: Prepared, in index: Int, size: Int, clipSpectra: inout [Int: [HalfSpectrum]]
    ) -> HalfSpectrum? {
        guard clip.chromaFrames >= 2, recording(index).chromaFrames >= Self.harmonyOverlap(clip) else { return nil }
        let fft = transform(size)
        let x = clipSpectra[size] ?? PrintSpectra.spectra(of: clip.chroma, fft: fft)
        clipSpectra[size] = x
        let y = harmonySpectrum(recording: index, size: size, fft: fft)
        return PrintSpectra.product(Array(zip(x, y)), bins: size / 2 + 1)
    }

    // MARK: - Caches

    private struct SpectrumKey: Hashable {
        let recording: Int
        let size: Int
    }

    func transform(_ size: Int) -> FFT {
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
        let made = PrintSpectra.spectra(of: recording(index).chroma, fft: fft)
        harmonySpectra.withLock { $0[key] = made }
        return made
    }

    /// A recording's pooled onsets' half spectrum, once per transform size.
    private func spectrum(recording index: Int, size: Int, fft: FFT) -> HalfSpectrum {
        let key = SpectrumKey(recording: index, size: size)
        if let cached = spectra.withLock({ $0[key] }) { return cached }
        let made = PrintSpectra.spectrum(of: recording(index).coarse, fft: fft)
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
