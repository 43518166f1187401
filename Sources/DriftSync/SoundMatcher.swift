import Foundation
import Synchronization

/// A place where a reference's sound was heard in a recording, found from their prints alone.
public struct SoundCandidate: Codable, Sendable, Equatable {
    /// The recording's index among the matcher's recordings.
    public var recording: Int
    /// Recording time of the reference's first moment, seconds, to 10 ms (negative: the recording started after the
    /// reference did).
    public var startSeconds: Double
    /// How far the place stands above every other place in this recording (a z-score; ~5 at random).
    public var clarity: Double
    /// The best other place, relative to this one (near 1: a repeating sound that fits in many places).
    public var ambiguity: Double
    /// The share of the reference the recording covers at this place (1: all of it).
    public var coverage: Double
    /// For a short clip whose place stood out a little: clarity and ambiguity of the full-rate prints within
    /// ±`SoundMatcher.sharpReach` of it (nil where not looked at).
    public var sharpClarity: Double?
    public var sharpAmbiguity: Double?

    public init(
        recording: Int, startSeconds: Double, clarity: Double, ambiguity: Double, coverage: Double,
        sharpClarity: Double? = nil, sharpAmbiguity: Double? = nil
    ) {
        self.recording = recording
        self.startSeconds = startSeconds
        self.clarity = clarity
        self.ambiguity = ambiguity
        self.coverage = coverage
        self.sharpClarity = sharpClarity
        self.sharpAmbiguity = sharpAmbiguity
    }

    /// Clear enough to be measured as a match (the measurement then decides): on the pooled prints over the whole
    /// recording, or, for a short clip, on the full-rate prints around the place.
    public var isClear: Bool {
        (clarity >= SoundMatcher.minimumClarity && ambiguity <= SoundMatcher.maximumAmbiguity)
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
    public static let version = 1
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

    private let recordings: [Prepared]
    private let spectra = Mutex<[SpectrumKey: Spectrum]>([:])
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
        var clipSpectra: [Int: (re: [Float], im: [Float])] = [:]
        for (index, recording) in recordings.enumerated() where recording.coarse.count >= 2 {
            let minimumOverlap = min(
                clip.coarse.count,
                max(2, Int(Self.minimumOverlapSeconds * Double(SoundPrint.frameRate) / Double(Self.pooling))))
            guard recording.coarse.count >= minimumOverlap else { continue }
            var size = 8
            while size < recording.coarse.count + clip.coarse.count { size <<= 1 }
            let fft = transform(size)
            let x: (re: [Float], im: [Float])
            if let cached = clipSpectra[size] {
                x = cached
            } else {
                x = Self.spectrum(of: clip.coarse, fft: fft)
                clipSpectra[size] = x
            }
            let y = spectrum(recording: index, size: size, fft: fft)
            var candidate = place(
                clip, in: recording, index: index, x: x, y: y, fft: fft, minimumOverlap: minimumOverlap)
            if let hint = hints[index], !(candidate?.isClear ?? false),
                let sharp = sharpLook(
                    clip, in: recording, around: Int((hint * Double(SoundPrint.frameRate)).rounded())),
                sharp.clarity >= Self.minimumSharpClarity, sharp.ambiguity <= Self.maximumAmbiguity
            {
                let m = Int((sharp.seconds * Double(SoundPrint.frameRate)).rounded())
                let covered =
                    Double(min(clip.fine.count, recording.fine.count - m) - max(0, -m)) / Double(clip.fine.count)
                candidate = SoundCandidate(
                    recording: index, startSeconds: sharp.seconds, clarity: candidate?.clarity ?? 0,
                    ambiguity: candidate?.ambiguity ?? 1, coverage: min(1, max(0, covered)),
                    sharpClarity: sharp.clarity, sharpAmbiguity: sharp.ambiguity)
            }
            if let candidate { found.append(candidate) }
        }
        return found.sorted { $0.clarity > $1.clarity }
    }

    // MARK: - The search

    private func place(
        _ clip: Prepared, in recording: Prepared, index: Int, x: (re: [Float], im: [Float]),
        y: (re: [Float], im: [Float]), fft: FFT, minimumOverlap: Int
    ) -> SoundCandidate? {
        let size = fft.size
        let re = UnsafeMutablePointer<Float>.allocate(capacity: size)
        let im = UnsafeMutablePointer<Float>.allocate(capacity: size)
        defer {
            re.deallocate()
            im.deallocate()
        }
        for k in 0..<size {
            // conj(X)·Y: r[m] = Σ x[i]·y[i + m].
            let (xr, xi, yr, yi) = (x.re[k], x.im[k], y.re[k], y.im[k])
            re[k] = xr * yr + xi * yi
            im[k] = xr * yi - xi * yr
        }
        fft.transform(re, im, inverse: true)
        let scale = 1 / Float(size)
        let nc = clip.coarse.count
        let nr = recording.coarse.count
        let lowest = -(nc - minimumOverlap)
        let highest = nr - minimumOverlap
        guard highest >= lowest else { return nil }
        // Significance of each offset m (clip frame i at recording frame i + m).
        var significance = [Double](repeating: 0, count: highest - lowest + 1)
        for m in lowest...highest {
            let first = max(0, -m)
            let end = min(nc, nr - m)
            let n = end - first
            guard n >= minimumOverlap else { continue }
            let ec = clip.energy[end] - clip.energy[first]
            let er = recording.energy[end + m] - recording.energy[first + m]
            guard ec > 0, er > 0 else { continue }
            let r = Double(re[(m % size + size) % size] * scale)
            significance[m - lowest] = r / (ec * er).squareRoot() * Double(n).squareRoot()
        }
        guard let peak = Self.peak(significance, lobe: 2 * SoundPrint.frameRate / Self.pooling) else { return nil }
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
        if peak.clarity >= Self.sharpFrom,
            Double(clip.fine.count) <= Self.sharpClipSeconds * Double(SoundPrint.frameRate),
            let sharp = sharpLook(clip, in: recording, around: m * Self.pooling)
        {
            candidate.sharpClarity = sharp.clarity
            candidate.sharpAmbiguity = sharp.ambiguity
            if sharp.clarity >= Self.minimumSharpClarity, sharp.ambiguity <= Self.maximumAmbiguity {
                start = sharp.seconds
            }
            candidate.startSeconds = start
        }
        return candidate
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
        let fft = transform(size)
        let re = UnsafeMutablePointer<Float>.allocate(capacity: size)
        let im = UnsafeMutablePointer<Float>.allocate(capacity: size)
        let xr = UnsafeMutablePointer<Float>.allocate(capacity: size)
        let xi = UnsafeMutablePointer<Float>.allocate(capacity: size)
        defer {
            re.deallocate()
            im.deallocate()
            xr.deallocate()
            xi.deallocate()
        }
        // Recording frames lowest ..< lowest + span + clip, zero outside the recording.
        for k in 0..<size {
            let j = lowest + k
            re[k] = k < span + c.count && j >= 0 && j < r.count ? r[j] : 0
            im[k] = 0
            xr[k] = k < c.count ? c[k] : 0
            xi[k] = 0
        }
        fft.transform(re, im)
        fft.transform(xr, xi)
        for k in 0..<size {
            let (a, b, y, z) = (xr[k], xi[k], re[k], im[k])
            re[k] = a * y + b * z
            im[k] = a * z - b * y
        }
        fft.transform(re, im, inverse: true)
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
            values[d] = Double(re[d] * scale) / (ec * er).squareRoot() * Double(end - first).squareRoot()
        }
        guard let peak = Self.peak(values, lobe: SoundPrint.frameRate / 2) else { return nil }
        var position = Double(peak.index)
        if peak.index > 0, peak.index < span - 1 {
            position += parabolicOffset(values[peak.index - 1], values[peak.index], values[peak.index + 1])
        }
        return ((Double(lowest) + position) / Double(SoundPrint.frameRate), peak.clarity, peak.ambiguity)
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

        init(_ print: SoundPrint) {
            coarse = Prepared.highPassed(
                print.pooled(by: SoundMatcher.pooling).map { $0.squareRoot() },
                reach: 2 * SoundPrint.frameRate / SoundMatcher.pooling)
            energy = Prepared.prefixSquares(coarse)
            fine = Prepared.highPassed(print.onsets.map { Float($0).squareRoot() }, reach: 2 * SoundPrint.frameRate)
            fineEnergy = Prepared.prefixSquares(fine)
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
    private struct Spectrum: Sendable {
        let re: [Float]
        let im: [Float]
    }

    private func transform(_ size: Int) -> FFT {
        transforms.withLock { cache in
            if let fft = cache[size] { return fft }
            let fft = FFT(size: size)
            cache[size] = fft
            return fft
        }
    }

    private func spectrum(recording index: Int, size: Int, fft: FFT) -> (re: [Float], im: [Float]) {
        let key = SpectrumKey(recording: index, size: size)
        if let cached = spectra.withLock({ $0[key] }) { return (cached.re, cached.im) }
        let made = Self.spectrum(of: recordings[index].coarse, fft: fft)
        spectra.withLock { $0[key] = Spectrum(re: made.re, im: made.im) }
        return made
    }

    static func spectrum(of x: [Float], fft: FFT) -> (re: [Float], im: [Float]) {
        var re = [Float](repeating: 0, count: fft.size)
        var im = [Float](repeating: 0, count: fft.size)
        for (i, v) in x.enumerated() { re[i] = v }
        re.withUnsafeMutableBufferPointer { r in
            im.withUnsafeMutableBufferPointer { i in fft.transform(r.baseAddress!, i.baseAddress!) }
        }
        return (re, im)
    }
}
