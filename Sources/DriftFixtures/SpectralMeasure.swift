import Foundation

/// Spectral measurements for tests and benchmarks: a plain radix-2 FFT, power spectra, log-spectral distance.
public enum SpectralMeasure {
    /// In-place iterative radix-2 FFT of `re`/`im` (count a power of two).
    public static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        precondition(n > 0 && n & (n - 1) == 0, "FFT size must be a power of two")
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                re.swapAt(i, j)
                im.swapAt(i, j)
            }
        }
        var size = 2
        while size <= n {
            let angle = -2 * Double.pi / Double(size)
            let (stepRe, stepIm) = (cos(angle), sin(angle))
            var start = 0
            while start < n {
                var (wRe, wIm) = (1.0, 0.0)
                for k in 0..<(size / 2) {
                    let a = start + k
                    let b = a + size / 2
                    let tRe = re[b] * wRe - im[b] * wIm
                    let tIm = re[b] * wIm + im[b] * wRe
                    re[b] = re[a] - tRe
                    im[b] = im[a] - tIm
                    re[a] += tRe
                    im[a] += tIm
                    (wRe, wIm) = (wRe * stepRe - wIm * stepIm, wRe * stepIm + wIm * stepRe)
                }
                start += size
            }
            size <<= 1
        }
    }

    /// Power spectrum (bins 0...n/2) of `n` samples from `samples[offset...]` on `channel`, Hann-windowed.
    public static func powerSpectrum(_ samples: [Float], channels: Int, channel: Int, offset: Int, size n: Int)
        -> [Double]
    {
        var re = [Double](repeating: 0, count: n)
        var im = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let index = (offset + i) * channels + channel
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            re[i] = index < samples.count ? Double(samples[index]) * w : 0
        }
        fft(&re, &im)
        return (0...(n / 2)).map { re[$0] * re[$0] + im[$0] * im[$0] }
    }

    /// Mean power spectrum over the whole signal (Welch: Hann windows of `size`, half overlap).
    public static func averageSpectrum(_ samples: [Float], channels: Int, channel: Int = 0, size: Int = 4096)
        -> [Double]
    {
        let frames = samples.count / channels
        var sum = [Double](repeating: 0, count: size / 2 + 1)
        var count = 0
        var offset = 0
        while offset + size <= frames {
            let spectrum = powerSpectrum(samples, channels: channels, channel: channel, offset: offset, size: size)
            for i in sum.indices { sum[i] += spectrum[i] }
            count += 1
            offset += size / 2
        }
        return sum.map { $0 / Double(max(count, 1)) }
    }

    /// The frequency (cycles per sample) of the strongest peak, refined by parabolic interpolation of log power.
    public static func peakFrequency(_ samples: [Float], channels: Int, size: Int = 16_384) -> Double {
        let spectrum = averageSpectrum(samples, channels: channels, size: size)
        guard let peak = spectrum.indices.dropFirst().dropLast().max(by: { spectrum[$0] < spectrum[$1] }) else {
            return .nan
        }
        let (a, b, c) = (log(spectrum[peak - 1]), log(spectrum[peak]), log(spectrum[peak + 1]))
        let offset = 0.5 * (a - c) / (a - 2 * b + c)
        return (Double(peak) + offset) / Double(size)
    }

    /// Log-spectral distance in dB between two signals of equal length, frame by frame (Hann, `size`, hop
    /// size/4), averaged over frames with energy; bins below -100 dB of the frame's peak are floored.
    public static func logSpectralDistance(_ a: [Float], _ b: [Float], channels: Int, size: Int = 2048) -> Double {
        let frames = min(a.count, b.count) / channels
        var total = 0.0
        var counted = 0
        var offset = 0
        while offset + size <= frames {
            for channel in 0..<channels {
                let pa = powerSpectrum(a, channels: channels, channel: channel, offset: offset, size: size)
                let pb = powerSpectrum(b, channels: channels, channel: channel, offset: offset, size: size)
                let peak = max(pa.max() ?? 0, pb.max() ?? 0)
                guard peak > 1e-12 else { continue }
                let floor = peak * 1e-10
                var sum = 0.0
                for i in pa.indices {
                    let d = 10 * log10(max(pa[i], floor) / max(pb[i], floor))
                    sum += d * d
                }
                total += (sum / Double(pa.count)).squareRoot()
                counted += 1
            }
            offset += size / 4
        }
        return counted > 0 ? total / Double(counted) : .nan
    }

    /// Energy (dB) in bands of one third of an octave from 100 Hz to 8 kHz, from a mean spectrum.
    public static func thirdOctaveBands(_ spectrum: [Double], sampleRate: Int) -> [Double] {
        let size = (spectrum.count - 1) * 2
        var bands: [Double] = []
        var centre = 100.0
        while centre <= 8000 {
            let low = Int(centre / pow(2, 1.0 / 6) * Double(size) / Double(sampleRate))
            let high = Int(centre * pow(2, 1.0 / 6) * Double(size) / Double(sampleRate))
            let energy = spectrum[max(low, 1)...max(high, low + 1)].reduce(0, +)
            bands.append(10 * log10(max(energy, 1e-30)))
            centre *= pow(2, 1.0 / 3)
        }
        return bands
    }
}
