import Foundation
import Synchronization

/// An in-place complex FFT of one power-of-two size, split real/imaginary arrays.
///
/// Written here rather than linked: the correlation needs only power-of-two transforms of a few sizes, a radix-2
/// transform with per-stage twiddles read in order, four butterflies at a time, is fast enough that decoding the files
/// costs more, and it keeps the linked set free of FFTW's GPL (see docs/development.md, Licences).
final class FFT: Sendable {
    let size: Int
    /// Twiddles per stage, concatenated: the stage whose butterflies span `half` uses entries `half − 1 ..< 2·half − 1`,
    /// e^{−iπj/half} for j < half, so its inner loop reads them in order.
    private let cosines: [Float]
    private let sines: [Float]
    /// The bit-reversal permutation as the pairs (i, j), i < j, to swap.
    private let swaps: [(Int32, Int32)]

    init(size: Int) {
        precondition(size >= 8 && size & (size - 1) == 0, "FFT size must be a power of two, at least 8")
        self.size = size
        var cosines = [Float](repeating: 0, count: size)
        var sines = [Float](repeating: 0, count: size)
        var half = 1
        while half < size {
            for j in 0..<half {
                let angle = Double.pi * Double(j) / Double(half)
                cosines[half - 1 + j] = Float(cos(angle))
                sines[half - 1 + j] = Float(-sin(angle))
            }
            half *= 2
        }
        self.cosines = cosines
        self.sines = sines
        let bits = size.trailingZeroBitCount
        var pairs: [(Int32, Int32)] = []
        for i in 0..<size {
            var r = 0
            for bit in 0..<bits where i & (1 << bit) != 0 { r |= 1 << (bits - 1 - bit) }
            if r > i { pairs.append((Int32(i), Int32(r))) }
        }
        swaps = pairs
    }

    /// Transforms `re`/`im` in place: forward (e^{-iωn}) or inverse (unscaled; divide by `size`).
    /// `clip` correlated with `recording[lowest ..< lowest + window]` (zero outside the recording) at lags 0 ..< `count`
    /// from `lowest`, unscaled (times the transform's size, which must hold `window + clip.count`).
    func crossCorrelation(_ clip: [Float], with recording: [Float], from lowest: Int, window: Int, count: Int)
        -> [Float]
    {
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
        for k in 0..<size {
            let j = lowest + k
            re[k] = k < window && j >= 0 && j < recording.count ? recording[j] : 0
            im[k] = 0
            xr[k] = k < clip.count ? clip[k] : 0
            xi[k] = 0
        }
        transform(re, im)
        transform(xr, xi)
        for k in 0..<size {
            let (a, b, y, z) = (xr[k], xi[k], re[k], im[k])
            re[k] = a * y + b * z
            im[k] = a * z - b * y
        }
        transform(re, im, inverse: true)
        return Array(UnsafeBufferPointer(start: re, count: min(count, size)))
    }

    func transform(_ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, inverse: Bool = false) {
        let n = size
        for (i, j) in swaps {
            let (a, b) = (Int(i), Int(j))
            (re[a], re[b]) = (re[b], re[a])
            (im[a], im[b]) = (im[b], im[a])
        }
        // Spans 1 and 2: twiddles 1 and ∓i, no multiplications.
        var a = 0
        while a < n {
            let (r0, i0, r1, i1) = (re[a], im[a], re[a + 1], im[a + 1])
            let (r2, i2, r3, i3) = (re[a + 2], im[a + 2], re[a + 3], im[a + 3])
            let (s0r, s0i, d0r, d0i) = (r0 + r1, i0 + i1, r0 - r1, i0 - i1)
            let (s1r, s1i, d1r, d1i) = (r2 + r3, i2 + i3, r2 - r3, i2 - i3)
            // d1 · (∓i): forward (d1i, −d1r), inverse (−d1i, d1r).
            let (tr, ti) = inverse ? (-d1i, d1r) : (d1i, -d1r)
            re[a] = s0r + s1r
            im[a] = s0i + s1i
            re[a + 2] = s0r - s1r
            im[a + 2] = s0i - s1i
            re[a + 1] = d0r + tr
            im[a + 1] = d0i + ti
            re[a + 3] = d0r - tr
            im[a + 3] = d0i - ti
            a += 4
        }
        // Spans of 4 and more, four butterflies at a time.
        let sign: Float = inverse ? -1 : 1
        cosines.withUnsafeBufferPointer { cosines in
            sines.withUnsafeBufferPointer { sines in
                guard let cosines = cosines.baseAddress, let sines = sines.baseAddress else { return }
                butterflies(re, im, from: 4, sign: sign, cosines: cosines, sines: sines)
            }
        }
    }

    /// The stages whose butterflies span `first` and more, four butterflies at a time.
    private func butterflies(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, from first: Int, sign: Float,
        cosines: UnsafePointer<Float>, sines: UnsafePointer<Float>
    ) {
        let n = size
        var half = first
        while half < n {
            let cosTable = cosines + (half - 1)
            let sinTable = sines + (half - 1)
            var start = 0
            while start < n {
                var j = 0
                while j < half {
                    let wr = load(cosTable + j)
                    let wi = load(sinTable + j) * sign
                    let p = start + j
                    let q = p + half
                    let br = load(re + q)
                    let bi = load(im + q)
                    let tr = br * wr - bi * wi
                    let ti = br * wi + bi * wr
                    let ar = load(re + p)
                    let ai = load(im + p)
                    store(ar - tr, re + q)
                    store(ai - ti, im + q)
                    store(ar + tr, re + p)
                    store(ai + ti, im + p)
                    j += 4
                }
                start += 2 * half
            }
            half *= 2
        }
    }

    @inline(__always) private func load(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always) private func store(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
    }
}

extension FFT {
    /// Transforms of the sizes every window uses, built once per process; the big ones (a whole reference's onsets)
    /// are built per use and released with it.
    private static let cache = Mutex<[Int: FFT]>([:])

    static func of(size: Int) -> FFT {
        guard size <= 1 << 16 else { return FFT(size: size) }
        return cache.withLock { cache in
            if let fft = cache[size] { return fft }
            let fft = FFT(size: size)
            cache[size] = fft
            return fft
        }
    }
}

/// Scratch arrays for one FFT size, allocated once per measurement.
final class SpectrumBuffers {
    let fft: FFT
    let re: UnsafeMutablePointer<Float>
    let im: UnsafeMutablePointer<Float>

    convenience init(size: Int) {
        self.init(fft: FFT.of(size: size))
    }

    init(fft: FFT) {
        self.fft = fft
        let size = fft.size
        re = .allocate(capacity: size)
        im = .allocate(capacity: size)
        re.initialize(repeating: 0, count: size)
        im.initialize(repeating: 0, count: size)
    }

    deinit {
        re.deallocate()
        im.deallocate()
    }

    /// Transforms the buffers in place.
    func transform(inverse: Bool = false) { fft.transform(re, im, inverse: inverse) }
}
