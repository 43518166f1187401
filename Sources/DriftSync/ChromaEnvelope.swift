import Foundation

/// The harmony of a sound, ten times a second: how its energy falls into the twelve pitch classes (C, C♯, … B) over
/// 80 Hz to 2.5 kHz, each relative to the loudest, in 3 dB steps.
///
/// Onsets find speech, whose syllables never recur alike; music repeats its beat every bar, and its onsets fit a bar
/// away nearly as well as in place. Its harmony does not repeat with the beat, and what a camera does to a sound
/// (room, reverb, a low-pass at 7 kHz, AAC, noise) leaves the pitch classes where they were: the search looks for music
/// by both.
struct ChromaEnvelope {
    static let frameRate = 10
    static let classes = 12
    /// Quantisation: a class this many dB below the frame's loudest is one step more; 15 steps (45 dB) at most.
    static let stepDB: Float = 3
    static let lowestHz = 80.0
    static let highestHz = 2500.0

    /// Four bits per class, two classes per byte: 6 bytes a frame.
    private(set) var packed: [UInt8] = []
    private(set) var frames = 0
    private let rate: Double
    private let size: Int
    /// The frame's real spectrum comes from a complex transform of half its size: even samples as real parts, odd
    /// as imaginary, then unfolded (half the work of a complex transform of the whole frame, with its imaginary parts
    /// zero).
    private let fft: FFT
    /// The bins of 80 Hz … 2.5 kHz in runs of one pitch class each, in order.
    private let runs: [(bins: Range<Int>, pitchClass: Int)]
    /// e^{−2πik/size} for the bins k < size/2, for the unfolding.
    private let twiddleCos: [Float]
    private let twiddleSin: [Float]
    private let window: [Float]
    /// The last `size` samples, a ring (`size` is a power of two: positions wrap by a mask).
    private var ring: [Float]
    /// The frame's samples in order, oldest first.
    private var linear: [Float]
    private var written = 0
    private var nextEnd: Int
    private var re: [Float]
    private var im: [Float]

    init(analysisRate: Double) {
        rate = analysisRate
        // A quarter of a second or so: enough resolution to tell semitones apart from about 100 Hz up.
        var n = 1024
        while Double(n) < analysisRate * 0.2 { n <<= 1 }
        size = n
        fft = FFT(size: n / 2)
        let classOfBin = (0..<n / 2).map { bin in
            let hz = Double(bin) * analysisRate / Double(n)
            guard bin > 0, hz >= Self.lowestHz, hz <= Self.highestHz else { return -1 }
            let semitones = Int((12 * log2(hz / 261.6256)).rounded())
            return ((semitones % 12) + 12) % 12
        }
        var runs: [(bins: Range<Int>, pitchClass: Int)] = []
        for (bin, pitchClass) in classOfBin.enumerated() where pitchClass >= 0 {
            if let last = runs.last, last.pitchClass == pitchClass, last.bins.upperBound == bin {
                runs[runs.count - 1].bins = last.bins.lowerBound..<(bin + 1)
            } else {
                runs.append((bin..<(bin + 1), pitchClass))
            }
        }
        self.runs = runs
        linear = [Float](repeating: 0, count: n)
        twiddleCos = (0..<n / 2).map { Float(cos(2 * Double.pi * Double($0) / Double(n))) }
        twiddleSin = (0..<n / 2).map { Float(-sin(2 * Double.pi * Double($0) / Double(n))) }
        window = (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
        ring = [Float](repeating: 0, count: n)
        re = [Float](repeating: 0, count: n / 2)
        im = [Float](repeating: 0, count: n / 2)
        nextEnd = Int((analysisRate / Double(Self.frameRate)).rounded(.down))
    }

    mutating func append(_ samples: UnsafePointer<Float>, count: Int) {
        let mask = size - 1
        var i = 0
        while i < count {
            if written >= nextEnd {
                closeFrame()
                continue
            }
            // Up to the frame's end or the ring's, whichever comes first, in one copy.
            let at = written & mask
            let take = min(count - i, nextEnd - written, size - at)
            ring.withUnsafeMutableBufferPointer {
                $0.baseAddress!.advanced(by: at).update(from: samples + i, count: take)
            }
            written += take
            i += take
        }
        if written >= nextEnd { closeFrame() }
    }

    /// Closes the last, partial frame (a file shorter than a frame still has one).
    mutating func finish() {
        if written > 0, frames == 0 || written > Int((Double(frames) * rate / Double(Self.frameRate)).rounded(.down)) {
            closeFrame()
        }
    }

    /// The frame ending at the latest sample: the last `size` samples windowed, their spectrum folded into classes.
    private mutating func closeFrame() {
        let halfSize = size / 2
        // The frame in order: the ring from the oldest sample, zeros before the file's start.
        let start = written - size
        linear.withUnsafeMutableBufferPointer { line in
            ring.withUnsafeBufferPointer { ring in
                guard let out = line.baseAddress, let from = ring.baseAddress else { return }
                if start >= 0 {
                    let at = start & (size - 1)
                    out.update(from: from + at, count: size - at)
                    (out + (size - at)).update(from: from, count: at)
                } else {
                    out.update(repeating: 0, count: -start)
                    (out + -start).update(from: from, count: written)
                }
            }
        }
        linear.withUnsafeBufferPointer { line in
            window.withUnsafeBufferPointer { window in
                re.withUnsafeMutableBufferPointer { re in
                    im.withUnsafeMutableBufferPointer { im in
                        for m in 0..<halfSize {
                            re[m] = line[2 * m] * window[2 * m]
                            im[m] = line[2 * m + 1] * window[2 * m + 1]
                        }
                        fft.transform(re.baseAddress!, im.baseAddress!)
                    }
                }
            }
        }
        var energy = [Float](repeating: 0, count: Self.classes)
        re.withUnsafeBufferPointer { re in
            im.withUnsafeBufferPointer { im in
                for run in runs {
                    var sum: Float = 0
                    for bin in run.bins {
                        // X[k] = E + W·O, E and O the even and odd samples' spectra: E = (Z[k] + Z*[N/2−k]) / 2,
                        // O = (Z[k] − Z*[N/2−k]) / 2i.
                        let (zr, zi) = (re[bin], im[bin])
                        let (cr, ci) = (re[halfSize - bin], -im[halfSize - bin])
                        let (er, ei) = ((zr + cr) / 2, (zi + ci) / 2)
                        let (or, oi) = ((zi - ci) / 2, -(zr - cr) / 2)
                        let (wr, wi) = (twiddleCos[bin], twiddleSin[bin])
                        let xr = er + wr * or - wi * oi
                        let xi = ei + wr * oi + wi * or
                        sum += xr * xr + xi * xi
                    }
                    energy[run.pitchClass] += sum
                }
            }
        }
        let loudest = energy.max() ?? 0
        var steps = [UInt8](repeating: 15, count: Self.classes)
        // A silent frame (nothing above the floor of 16-bit quantisation) has no pitch: every class at the bottom.
        if loudest > Float(size) * 1e-9 {
            for c in 0..<Self.classes {
                let below = -10 * log10(max(energy[c], loudest * 1e-6) / loudest) / Self.stepDB
                steps[c] = UInt8(min(15, max(0, below.rounded())))
            }
        }
        for c in stride(from: 0, to: Self.classes, by: 2) { packed.append(steps[c] << 4 | steps[c + 1]) }
        frames += 1
        nextEnd = Int((Double(frames + 1) * rate / Double(Self.frameRate)).rounded(.down))
    }
}
