import Foundation

/// The lag of one recording window within a stretch of the reference, by generalised cross-correlation with a
/// partial phase transform (GCC-PHAT-β).
///
/// Whitening the cross spectrum makes the peak sharp however the two microphones colour the sound, and reverberation
/// adds only smaller, later peaks; β = 3/4 keeps bands where one side is only noise from weighing as much as the sound.
/// The band is limited to 80 Hz … 0.42 × the analysis rate (hum and the decimating filter's edge carry no timing).
final class WindowCorrelator {
    /// One window's answer.
    struct Peak {
        /// Where the window's first sample lies in the reference stretch, in analysis samples (fractional).
        var position: Double
        /// Peak height over the correlation's spread elsewhere (a z-score): ~3 for unrelated sound.
        var clarity: Double
        /// Second-highest peak away from the main lobe, relative to the main peak: near 1 for periodic sound.
        var ambiguity: Double
    }

    let windowLength: Int
    let searchLength: Int
    private let spectrum: SpectrumBuffers
    private let lowBin: Int
    private let highBin: Int

    /// Windows of `window` samples, searched over `search + 1` positions, at `rate` analysis samples per second.
    init(window: Int, search: Int, rate: Double) {
        windowLength = window
        searchLength = search
        var size = 1
        while size < window + search { size <<= 1 }
        spectrum = SpectrumBuffers(size: size)
        lowBin = max(1, Int((80 / rate * Double(size)).rounded(.up)))
        highBin = min(size / 2 - 1, Int((0.42 * Double(size)).rounded(.down)))
        crossRe = .allocate(capacity: size / 2 + 1)
        crossIm = .allocate(capacity: size / 2 + 1)
    }

    private let crossRe: UnsafeMutablePointer<Float>
    private let crossIm: UnsafeMutablePointer<Float>

    deinit {
        crossRe.deallocate()
        crossIm.deallocate()
    }

    /// Correlates `window` (`windowLength` samples) with `stretch` (`windowLength + searchLength` samples).
    func correlate(window: UnsafePointer<Float>, stretch: UnsafePointer<Float>) -> Peak {
        let n = spectrum.fft.size
        let w = windowLength
        let span = windowLength + searchLength
        let re = spectrum.re
        let im = spectrum.im
        // Both real signals in one transform: x in the real part, y in the imaginary part.
        for i in 0..<n {
            re[i] = i < w ? window[i] : 0
            im[i] = i < span ? stretch[i] : 0
        }
        spectrum.transform()
        // X[k] = (Z[k] + conj Z[n−k]) / 2, Y[k] = (Z[k] − conj Z[n−k]) / 2i; cross spectrum conj(X)·Y, weighted by
        // |·|^−β, in the band only. The result is real, so bins k and n−k are written together.
        for k in lowBin...highBin {
            let (zr, zi) = (re[k], im[k])
            let (wr, wi) = (re[n - k], -im[n - k])
            let (xr, xi) = ((zr + wr) * 0.5, (zi + wi) * 0.5)
            let (yr, yi) = ((zi - wi) * 0.5, -(zr - wr) * 0.5)
            let cr = xr * yr + xi * yi
            let ci = xr * yi - xi * yr
            // |c|^−β with β = 3/4, from square roots (no pow per bin).
            let magnitude = (cr * cr + ci * ci).squareRoot()
            let root = magnitude.squareRoot()
            let weight: Float = magnitude > 1e-20 ? 1 / (root * root.squareRoot()) : 0
            crossRe[k] = cr * weight
            crossIm[k] = ci * weight
        }
        re.update(repeating: 0, count: n)
        im.update(repeating: 0, count: n)
        for k in lowBin...highBin {
            re[k] = crossRe[k]
            im[k] = crossIm[k]
            re[n - k] = crossRe[k]
            im[n - k] = -crossIm[k]
        }
        spectrum.transform(inverse: true)
        return Self.peak(re, count: searchLength + 1)
    }

    /// The highest value of `r[0..<count]`, interpolated, with its clarity and ambiguity.
    static func peak(_ r: UnsafeMutablePointer<Float>, count: Int) -> Peak {
        var best = 0
        for i in 1..<count where r[i] > r[best] { best = i }
        let lobe = 4
        var sum = 0.0
        var squares = 0.0
        var counted = 0
        var second: Float = -.infinity
        for i in 0..<count where abs(i - best) > lobe {
            let v = Double(r[i])
            sum += v
            squares += v * v
            counted += 1
            if r[i] > second { second = r[i] }
        }
        var position = Double(best)
        if best > 0 && best < count - 1 {
            position += parabolicOffset(Double(r[best - 1]), Double(r[best]), Double(r[best + 1]))
        }
        guard counted > 1 else { return Peak(position: position, clarity: 0, ambiguity: 1) }
        let mean = sum / Double(counted)
        let deviation = max((squares / Double(counted) - mean * mean).squareRoot(), 1e-30)
        let height = Double(r[best])
        let clarity = (height - mean) / deviation
        let ambiguity = height > mean ? max(0, (Double(second) - mean) / (height - mean)) : 1
        return Peak(position: position, clarity: clarity, ambiguity: ambiguity)
    }
}

/// Where the parabola through three neighbouring values peaks, relative to the middle one (within ±½; 0 where they
/// do not bend down).
func parabolicOffset(_ before: Double, _ at: Double, _ after: Double) -> Double {
    let denominator = before - 2 * at + after
    return denominator < 0 ? max(-0.5, min(0.5, 0.5 * (before - after) / denominator)) : 0
}
