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
final class PolyphaseFilter: Sendable {
    /// Filter length in input frames (a multiple of 8, for the vector kernel).
    let taps: Int
    /// Rows of the table less one: the phase resolution between two input frames.
    let phases: Int
    /// `(phases + 1) × taps` coefficients, row j at phase j / phases.
    let coefficients: [Float]
    /// `phases × taps`: row j + 1 minus row j.
    let differences: [Float]
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
        let beta = 0.1102 * (attenuation - 8.7)  // Kaiser's β for attenuation above 50 dB
        let half = Double(taps / 2)
        let lead = Double(taps / 2 - 1)
        let normaliser = Self.besselI0(beta)
        // sin(2πc·u) at u = i − lead − phase is sin(a + i·δ), a = −δ·(lead + phase), δ = 2πc: a sine and a cosine per
        // row and the steps' own, the same in every row.
        let delta = 2 * Double.pi * cutoff
        let stepCos = (0..<taps).map { cos(Double($0) * delta) }
        let stepSin = (0..<taps).map { sin(Double($0) * delta) }
        var row = [Double](repeating: 0, count: taps)
        // Row phases − j is row j reversed (tap i of one sits at -u of the other's tap taps − 1 − i, and the filter is
        // even): half the rows are designed, each written twice. The design is the serial start of every repair and
        // comes again with every file's ratio: the window's series runs four taps at a time (taps is a multiple of 8).
        var coefficients = [Float](repeating: 0, count: (phases + 1) * taps)
        for j in 0...phases / 2 {
            let phase = Double(j) / Double(phases)
            let a = -delta * (lead + phase)
            let (sinA, cosA) = (sin(a), cos(a))
            var sum = 0.0
            for first in stride(from: 0, to: taps, by: 4) {
                // Tap i sits at input frame floor(p) - lead + i, i.e. u = i - lead - phase frames from p.
                let u =
                    SIMD4<Double>(Double(first), Double(first + 1), Double(first + 2), Double(first + 3)) - lead - phase
                let x = u / half
                let inside = (x * x) .< 1
                let quarter = SIMD4<Double>(repeating: 0).replacing(with: beta * beta / 4 * (1 - x * x), where: inside)
                let window = Self.besselI0(quarter: quarter) / normaliser
                for lane in 0..<4 {
                    let i = first + lane
                    let argument = 2 * cutoff * u[lane]
                    let sine = sinA * stepCos[i] + cosA * stepSin[i]
                    let sinc = argument == 0 ? 1 : sine / (Double.pi * argument)
                    row[i] = inside[lane] ? 2 * cutoff * sinc * window[lane] : 0
                    sum += row[i]
                }
            }
            for i in 0..<taps {
                let value = Float(row[i] / sum)
                coefficients[j * taps + i] = value
                coefficients[(phases - j) * taps + taps - 1 - i] = value
            }
        }
        self.coefficients = coefficients
        differences = (0..<phases * taps).map { coefficients[$0 + taps] - coefficients[$0] }
    }

    /// The zeroth-order modified Bessel function of the first kind at one point (the four-lane series, its lanes alike).
    static func besselI0(_ x: Double) -> Double {
        besselI0(quarter: SIMD4(repeating: x * x / 4))[0]
    }

    /// I₀ at four points, each given as (x / 2)², by its power series (converging for the β used) on four lanes, until
    /// every lane's has converged.
    static func besselI0(quarter: SIMD4<Double>) -> SIMD4<Double> {
        var sum = SIMD4<Double>(repeating: 1)
        var term = sum
        for k in 1..<inverseSquares.count {
            term *= quarter * inverseSquares[k]
            sum += term
            if all(term .< sum * 1e-17) { break }
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
