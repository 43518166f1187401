/// Spectra of real signals kept as their lower half (bins 0 … size/2; the rest mirror them as complex conjugates), and
/// the correlations formed from them.
///
/// Why halves: every print is real, so each spectrum and each product of spectra is Hermitian. Two real signals go
/// through one complex transform (one as the real part, one as the imaginary), a product is formed on half the bins,
/// and the onsets' and the pitch classes' correlations, both real, come out of one inverse transform together.
struct HalfSpectrum: Sendable {
    let re: [Float]
    let im: [Float]
}

enum PrintSpectra {
    /// The half spectrum of one real signal, zero-padded to the transform's size.
    static func spectrum(of x: [Float], fft: FFT) -> HalfSpectrum {
        spectra(of: [x], fft: fft)[0]
    }

    /// The half spectra of real signals, two per transform: z = a + i·b gives A[k] = (Z[k] + Z*[n−k]) / 2 and
    /// B[k] = (Z[k] − Z*[n−k]) / 2i.
    static func spectra(of signals: [[Float]], fft: FFT) -> [HalfSpectrum] {
        let n = fft.size
        let half = n / 2
        let buffer = SpectrumBuffers(fft: fft)
        var out: [HalfSpectrum] = []
        out.reserveCapacity(signals.count)
        var next = 0
        while next < signals.count {
            buffer.re.update(repeating: 0, count: n)
            buffer.im.update(repeating: 0, count: n)
            let a = signals[next]
            for i in 0..<min(n, a.count) { buffer.re[i] = a[i] }
            let paired = next + 1 < signals.count
            if paired {
                let b = signals[next + 1]
                for i in 0..<min(n, b.count) { buffer.im[i] = b[i] }
            }
            fft.transform(buffer.re, buffer.im)
            var ar = [Float](repeating: 0, count: half + 1)
            var ai = [Float](repeating: 0, count: half + 1)
            var br = [Float](repeating: 0, count: paired ? half + 1 : 0)
            var bi = [Float](repeating: 0, count: paired ? half + 1 : 0)
            for k in 0...half {
                let (zr, zi) = (buffer.re[k], buffer.im[k])
                let mirror = (n - k) & (n - 1)
                let (wr, wi) = (buffer.re[mirror], buffer.im[mirror])
                ar[k] = 0.5 * (zr + wr)
                ai[k] = 0.5 * (zi - wi)
                if paired {
                    br[k] = 0.5 * (zi + wi)
                    bi[k] = 0.5 * (wr - zr)
                }
            }
            out.append(HalfSpectrum(re: ar, im: ai))
            if paired { out.append(HalfSpectrum(re: br, im: bi)) }
            next += paired ? 2 : 1
        }
        return out
    }

    /// Σ conj(X)·Y over the pairs, on the half bins: the spectrum of Σ r[m] = Σ x[i]·y[i + m].
    static func product(_ pairs: [(x: HalfSpectrum, y: HalfSpectrum)], bins: Int) -> HalfSpectrum {
        var re = [Float](repeating: 0, count: bins)
        var im = [Float](repeating: 0, count: bins)
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                for (x, y) in pairs {
                    x.re.withUnsafeBufferPointer { xr in
                        x.im.withUnsafeBufferPointer { xi in
                            y.re.withUnsafeBufferPointer { yr in
                                y.im.withUnsafeBufferPointer { yi in
                                    for k in 0..<bins {
                                        re[k] += xr[k] * yr[k] + xi[k] * yi[k]
                                        im[k] += xr[k] * yi[k] - xi[k] * yr[k]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return HalfSpectrum(re: re, im: im)
    }

    /// The real signals whose half spectra are `first` and `second` (same transform), unscaled (divide by the size):
    /// one inverse transform of first + i·second.
    static func inverse(_ first: HalfSpectrum, _ second: HalfSpectrum?, fft: FFT) -> ([Float], [Float]?) {
        let n = fft.size
        let half = n / 2
        let buffer = SpectrumBuffers(fft: fft)
        for k in 0...half {
            let (pr, pi) = (first.re[k], first.im[k])
            let (qr, qi) = second.map { ($0.re[k], $0.im[k]) } ?? (0, 0)
            buffer.re[k] = pr - qi
            buffer.im[k] = pi + qr
            if k > 0, k < half {
                // Bin n − k: conj(P[k]) + i·conj(Q[k]).
                buffer.re[n - k] = pr + qi
                buffer.im[n - k] = qr - pi
            }
        }
        fft.transform(buffer.re, buffer.im, inverse: true)
        let real = Array(UnsafeBufferPointer(start: buffer.re, count: n))
        return (real, second == nil ? nil : Array(UnsafeBufferPointer(start: buffer.im, count: n)))
    }
}
