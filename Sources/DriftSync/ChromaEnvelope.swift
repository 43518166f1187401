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
    private let fft: FFT
    /// The bin's pitch class, or −1 outside 80 Hz … 2.5 kHz.
    private let classOfBin: [Int]
    private let window: [Float]
    /// The last `size` samples, a ring.
    private var ring: [Float]
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
        fft = FFT(size: n)
        classOfBin = (0..<n / 2).map { bin in
            let hz = Double(bin) * analysisRate / Double(n)
            guard hz >= Self.lowestHz, hz <= Self.highestHz else { return -1 }
            let semitones = Int((12 * log2(hz / 261.6256)).rounded())
            return ((semitones % 12) + 12) % 12
        }
        window = (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
        ring = [Float](repeating: 0, count: n)
        re = [Float](repeating: 0, count: n)
        im = [Float](repeating: 0, count: n)
        nextEnd = Int((analysisRate / Double(Self.frameRate)).rounded(.down))
    }

    mutating func append(_ samples: UnsafePointer<Float>, count: Int) {
        for i in 0..<count {
            ring[written % size] = samples[i]
            written += 1
            if written >= nextEnd { closeFrame() }
        }
    }

    /// Closes the last, partial frame (a file shorter than a frame still has one).
    mutating func finish() {
        if written > 0, frames == 0 || written > Int((Double(frames) * rate / Double(Self.frameRate)).rounded(.down)) {
            closeFrame()
        }
    }

    /// The frame ending at the latest sample: the last `size` samples windowed, their spectrum folded into classes.
    private mutating func closeFrame() {
        for k in 0..<size {
            let j = written - size + k
            re[k] = j >= 0 ? ring[j % size] * window[k] : 0
            im[k] = 0
        }
        re.withUnsafeMutableBufferPointer { r in
            im.withUnsafeMutableBufferPointer { i in fft.transform(r.baseAddress!, i.baseAddress!) }
        }
        var energy = [Float](repeating: 0, count: Self.classes)
        for bin in 1..<size / 2 where classOfBin[bin] >= 0 {
            energy[classOfBin[bin]] += re[bin] * re[bin] + im[bin] * im[bin]
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
