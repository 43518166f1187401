import DriftCore
import Foundation
import Synchronization

/// The band-limiting filter of the polyphase resampler, as a table of phases: a Kaiser-windowed sinc sampled at
/// `phases + 1` fractional positions between two input frames, in single precision, with each row's difference to the
/// next for linear interpolation between phases.
///
/// Designed for the ratios drift repair needs: the passband runs flat to 0.9 × the lower rate's Nyquist (0.45 of it)
/// and the stopband begins at 1.1 × Nyquist (0.55), so images of in-band content land outside the band; the top tenth
/// of the band is the transition (as sox's and libsoxr's "allow aliasing" designs). Stopband rejection per quality:
/// `fast` 100 dB, `medium` 120 dB, `best` 140 dB (the Kaiser window's β and length from Kaiser's formulas). Every
/// phase row sums to exactly 1 (no ripple at DC between phases).
///
/// Immutable once made and shared by every converter of the same design (the chunks of a segmented resample).
final class PolyphaseFilter: @unchecked Sendable {  // its tables are written once in init and only read after
    /// Filter length in input frames (a multiple of 8, for the vector kernel).
    let taps: Int
    /// Rows of the table less one: the phase resolution between two input frames.
    let phases: Int
    /// `(phases + 1) × taps` coefficients, row j at phase j / phases.
    let coefficients: UnsafeMutablePointer<Float>
    /// `phases × taps`: row j + 1 minus row j.
    let differences: UnsafeMutablePointer<Float>
    /// Stopband rejection the design aims at, dB.
    let attenuation: Double
    /// Cutoff in cycles per input frame (half the lower rate's Nyquist band, relative to the input).
    let cutoff: Double

    /// The ratios (output frames / input frames) the polyphase engine takes; others go to libsoxr.
    static var ratios: ClosedRange<Double> { ResampleEngine.polyphaseRatios }

    /// The first tap of output at input position p lies `lead` frames before floor(p).
    var lead: Int { taps / 2 - 1 }

    private init(taps: Int, phases: Int, attenuation: Double, cutoff: Double) {
        self.taps = taps
        self.phases = phases
        self.attenuation = attenuation
        self.cutoff = cutoff
        coefficients = .allocate(capacity: (phases + 1) * taps)
        differences = .allocate(capacity: phases * taps)
        let beta = 0.1102 * (attenuation - 8.7)  // Kaiser's β for attenuation above 50 dB
        let half = Double(taps / 2)
        let normaliser = Self.besselI0(beta)
        var row = [Double](repeating: 0, count: taps)
        // Row phases − j is row j reversed (tap i of one sits at -u of the other's tap taps − 1 − i, and the filter is
        // even): half the rows are designed, each written twice. The design is the serial start of every repair.
        for j in 0...phases / 2 {
            let phase = Double(j) / Double(phases)
            var sum = 0.0
            for i in 0..<taps {
                // Tap i sits at input frame floor(p) - lead + i, i.e. u = i - lead - phase frames from p.
                let u = Double(i) - Double(taps / 2 - 1) - phase
                let x = u / half
                let window = abs(x) >= 1 ? 0 : Self.besselI0(beta * (1 - x * x).squareRoot()) / normaliser
                let argument = 2 * cutoff * u
                let sinc = argument == 0 ? 1 : sin(Double.pi * argument) / (Double.pi * argument)
                row[i] = 2 * cutoff * sinc * window
                sum += row[i]
            }
            for i in 0..<taps {
                let value = Float(row[i] / sum)
                coefficients[j * taps + i] = value
                coefficients[(phases - j) * taps + taps - 1 - i] = value
            }
        }
        for j in 0..<phases {
            for i in 0..<taps {
                differences[j * taps + i] = coefficients[(j + 1) * taps + i] - coefficients[j * taps + i]
            }
        }
    }

    deinit {
        coefficients.deallocate()
        differences.deallocate()
    }

    /// The zeroth-order modified Bessel function of the first kind (its power series; converges for the β used).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        let quarter = x * x / 4
        for k in 1..<inverseSquares.count {
            term *= quarter * inverseSquares[k]
            sum += term
            if term < sum * 1e-17 { break }
        }
        return sum
    }

    /// 1 / k² for the series' terms: a multiply where a divide would be the design's slowest step.
    private static let inverseSquares = (0..<200).map { $0 == 0 ? 0 : 1 / Double($0 * $0) }

    /// Stopband rejection (dB) and phase rows for each quality name.
    static func design(_ quality: ResampleQuality) -> (attenuation: Double, phases: Int) {
        switch quality {
        case .fast: return (100, 512)
        case .medium: return (120, 1024)
        case .best: return (140, 4096)
        }
    }

    private static let cache = Mutex<[String: PolyphaseFilter]>([:])

    /// The filter for `quality` at `ratio` (output / input), made once per design while it is in use.
    static func make(quality: ResampleQuality, ratio: Double) -> PolyphaseFilter {
        let (attenuation, phases) = design(quality)
        let scale = min(1, ratio)
        // Transition from 0.45 to 0.55 of the lower rate, in cycles per input frame; Kaiser's length for it.
        let transition = 0.1 * scale
        let length = Int(((attenuation - 7.95) / (14.36 * transition)).rounded(.up))
        let taps = (length + 7) / 8 * 8
        let cutoff = 0.5 * scale
        let key = "\(quality.rawValue) \(taps) \(cutoff.bitPattern)"
        return cache.withLock { cache in
            if let known = cache[key] { return known }
            let made = PolyphaseFilter(taps: taps, phases: phases, attenuation: attenuation, cutoff: cutoff)
            // A worker meets a new ratio with every file: only the last few designs are kept (the segments of one
            // file share theirs).
            if cache.count >= 4 { cache.removeAll() }
            cache[key] = made
            return made
        }
    }
}
