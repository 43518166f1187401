import DriftCore
import Foundation

/// Analysis samples read in order: a file's sound reduced for correlation, live or replayed from a spill.
protocol AnalysisSamples: AnyObject {
    /// Fills up to `count` samples; returns how many (0 only at the end).
    func read(into out: UnsafeMutablePointer<Float>, count: Int) throws -> Int
}

/// A file's sound reduced for correlation: channels mixed to mono, low-passed and decimated by an integer factor to
/// about 8 kHz, and converted to another stream's analysis rate when the two files' rates differ.
///
/// The decimating filter is centred (linear phase, no delay): analysis sample j stands for input frame j × factor
/// exactly, so lags measured here are lags between the files. Memory is one block and the filter's span; the inner
/// loops run over raw buffers (no per-sample allocation or bounds checks).
final class AnalysisStream: AnalysisSamples {
    /// Input frames per analysis sample.
    let factor: Int
    /// Analysis samples per second (the input rate / factor, before any conversion).
    let nativeRate: Double
    /// Samples per second delivered: `nativeRate`, or the rate it is converted to.
    let rate: Double

    private let source: AudioSource
    private let channels: Int
    private let taps: UnsafeMutablePointer<Float>
    private let tapCount: Int
    private let half: Int
    private let blockFrames = 16384
    private let block: UnsafeMutablePointer<Float>
    /// Mono input samples; `mono[0]` is input frame `monoBase` (negative at the start: zeros before the file).
    private let mono: UnsafeMutablePointer<Float>
    private let monoCapacity: Int
    private var monoBase: Int
    private var monoCount: Int
    private var inputEnded = false
    private var nextOutput = 0
    private var totalInput = 0
    /// Rate conversion from `nativeRate` to `rate`, when they differ.
    private let converter: RateConverter?

    /// The integer decimation factor for a rate: the largest divisor of the rate that leaves at least 8 kHz.
    static func factor(for sampleRate: Int) -> Int {
        var d = max(1, sampleRate / 8000)
        while d > 1 && sampleRate % d != 0 { d -= 1 }
        return d
    }

    /// - Parameters:
    ///   - targetRate: the rate to deliver (another file's analysis rate); nil: this file's own.
    ///   - warp: a drift hypothesis d: analysis sample k is read at input time k·(1 + d), so a recording whose clock
    ///     drifted by d comes out on the reference's timeline (sample k at reference-like time k / rate).
    init(_ source: AudioSource, sampleRate: Int, convertTo targetRate: Double? = nil, warp: Double = 0) {
        self.source = source
        channels = max(1, source.channelCount)
        factor = AnalysisStream.factor(for: sampleRate)
        nativeRate = Double(sampleRate) / Double(factor)
        rate = targetRate ?? nativeRate
        half = factor == 1 ? 0 : 4 * factor
        tapCount = 2 * half + 1
        taps = .allocate(capacity: tapCount)
        if half == 0 {
            taps[0] = 1
        } else {
            // Windowed sinc, cut-off at 0.45 of the analysis rate, Blackman window, unity gain.
            let cutoff = 0.45 / Double(factor)
            var values = [Double](repeating: 0, count: tapCount)
            for i in 0..<tapCount {
                let m = Double(i - half)
                let sinc = m == 0 ? 2 * cutoff : sin(2 * Double.pi * cutoff * m) / (Double.pi * m)
                let w =
                    0.42 + 0.5 * cos(Double.pi * m / Double(half + 1)) + 0.08
                    * cos(2 * Double.pi * m / Double(half + 1))
                values[i] = sinc * w
            }
            let sum = values.reduce(0, +)
            for i in 0..<tapCount { taps[i] = Float(values[i] / sum) }
        }
        block = .allocate(capacity: blockFrames * channels)
        monoCapacity = blockFrames + 4 * half + 2 * factor + 2
        mono = .allocate(capacity: monoCapacity)
        mono.initialize(repeating: 0, count: monoCapacity)
        // Zeros stand for the frames before the file, so the first outputs need no special case.
        monoBase = -half
        monoCount = half
        let step = (nativeRate / rate) * (1 + warp)
        converter = abs(step - 1) > 1e-12 ? RateConverter(step: step) : nil
    }

    deinit {
        taps.deallocate()
        block.deallocate()
        mono.deallocate()
    }

    /// Fills up to `count` analysis samples; returns how many (0 only at the end).
    func read(into out: UnsafeMutablePointer<Float>, count: Int) throws -> Int {
        if let converter {
            return try converter.read(into: out, count: count) { buffer, n in
                try self.readNative(into: buffer, count: n)
            }
        }
        return try readNative(into: out, count: count)
    }

    private func readNative(into out: UnsafeMutablePointer<Float>, count: Int) throws -> Int {
        var produced = 0
        while produced < count {
            let centre = nextOutput * factor
            if inputEnded && centre >= totalInput { break }
            if centre + half >= monoBase + monoCount {
                if inputEnded {
                    // Zeros after the file's end, for every output still to come (at most a filter span).
                    compact()
                    let missing = totalInput + half + 1 - (monoBase + monoCount)
                    guard missing > 0 else { break }
                    (mono + monoCount).update(repeating: 0, count: missing)
                    monoCount += missing
                } else {
                    compact()
                    try pull()
                }
                continue
            }
            // As many outputs as the samples at hand allow, in one tight loop.
            let available = monoBase + monoCount
            var j = nextOutput
            let limit = inputEnded ? min(available - half, totalInput) : available - half
            // Four outputs at a time share the taps' loads (each output's sums in the same order as one at a time).
            while produced + 4 <= count, (j + 3) * factor < limit {
                let first = mono + (j * factor - half - monoBase)
                dot4(taps, first, stride: factor, tapCount, into: out + produced)
                produced += 4
                j += 4
            }
            while produced < count {
                let c = j * factor
                if c >= limit { break }
                out[produced] = dot(taps, mono + (c - half - monoBase), tapCount)
                produced += 1
                j += 1
            }
            nextOutput = j
        }
        return produced
    }

    /// Drops the mono samples no future output needs, moving the rest to the front.
    private func compact() {
        let keepFrom = nextOutput * factor - half
        let drop = keepFrom - monoBase
        guard drop > 0 else { return }
        let keep = monoCount - drop
        if keep > 0 { mono.update(from: mono + drop, count: keep) }
        monoCount = max(0, keep)
        monoBase = keepFrom
    }

    private func pull() throws {
        let room = min(blockFrames, monoCapacity - monoCount - half - 1)
        precondition(room > 0, "the mono buffer keeps room for a block")
        let got = try source.read(into: block, frames: room)
        if got == 0 {
            inputEnded = true
            return
        }
        totalInput += got
        let target = mono + monoCount
        if channels == 1 {
            target.update(from: block, count: got)
        } else if channels == 2 {
            // Stereo, the common case, eight frames at a time: (left + right) × ½, the same sums as the loop below.
            var frame = 0
            while frame + 8 <= got {
                let pair = UnsafeRawPointer(block + 2 * frame).loadUnaligned(as: SIMD16<Float>.self)
                UnsafeMutableRawPointer(target + frame).storeBytes(
                    of: (pair.evenHalf + pair.oddHalf) * 0.5, as: SIMD8<Float>.self)
                frame += 8
            }
            while frame < got {
                target[frame] = (block[2 * frame] + block[2 * frame + 1]) * 0.5
                frame += 1
            }
        } else {
            let scale = 1 / Float(channels)
            for frame in 0..<got {
                var sum: Float = 0
                let p = block + frame * channels
                for c in 0..<channels { sum += p[c] }
                target[frame] = sum * scale
            }
        }
        monoCount += got
    }
}

/// Σ a[i]·b[i] over `n` samples, eight lanes at a time (a single running sum would wait on each addition).
@inline(__always)
func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
    var lanes = SIMD8<Float>()
    var i = 0
    while i + 8 <= n {
        lanes +=
            UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
            * UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self)
        i += 8
    }
    var sum = lanes.sum()
    while i < n {
        sum += a[i] * b[i]
        i += 1
    }
    return sum
}

/// `dot` of `a` with four stretches of `b`, `stride` apart, into `out[0 ..< 4]`: the same sums in the same order as
/// four calls of `dot`, with `a` loaded once for the four.
@inline(__always)
func dot4(
    _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, stride: Int, _ n: Int, into out: UnsafeMutablePointer<Float>
) {
    var l0 = SIMD8<Float>()
    var l1 = SIMD8<Float>()
    var l2 = SIMD8<Float>()
    var l3 = SIMD8<Float>()
    let (b0, b1, b2, b3) = (b, b + stride, b + 2 * stride, b + 3 * stride)
    var i = 0
    while i + 8 <= n {
        let t = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
        l0 += t * UnsafeRawPointer(b0 + i).loadUnaligned(as: SIMD8<Float>.self)
        l1 += t * UnsafeRawPointer(b1 + i).loadUnaligned(as: SIMD8<Float>.self)
        l2 += t * UnsafeRawPointer(b2 + i).loadUnaligned(as: SIMD8<Float>.self)
        l3 += t * UnsafeRawPointer(b3 + i).loadUnaligned(as: SIMD8<Float>.self)
        i += 8
    }
    var (s0, s1, s2, s3) = (l0.sum(), l1.sum(), l2.sum(), l3.sum())
    while i < n {
        s0 += a[i] * b0[i]
        s1 += a[i] * b1[i]
        s2 += a[i] * b2[i]
        s3 += a[i] * b3[i]
        i += 1
    }
    (out[0], out[1], out[2], out[3]) = (s0, s1, s2, s3)
}

/// Converts a mono stream between two rates by cubic (Catmull-Rom) interpolation: good enough for correlation, where
/// only the band below 0.42 of the lower rate is used. Output k is the input at time k / `to` exactly.
final class RateConverter {
    private let step: Double
    private let capacity = 1 << 15
    private let history: UnsafeMutablePointer<Float>
    /// `history[0]` is input sample `base`.
    private var base = -1
    private var count = 1
    private var position = 0  // output index
    private var ended = false

    /// Output k is the input at index k·`step`.
    init(step: Double) {
        self.step = step
        history = .allocate(capacity: capacity)
        history.initialize(repeating: 0, count: capacity)
    }

    deinit { history.deallocate() }

    func read(
        into out: UnsafeMutablePointer<Float>, count wanted: Int,
        upstream: (UnsafeMutablePointer<Float>, Int) throws -> Int
    ) throws -> Int {
        var produced = 0
        while produced < wanted {
            let x = Double(position) * step
            let i = Int(x.rounded(.down))
            if i + 2 >= base + count {
                if ended {
                    if i >= base + count - 2 { break }
                } else {
                    // Keep from i − 1 on, then fill the rest of the buffer.
                    let drop = i - 1 - base
                    if drop > 0 {
                        history.update(from: history + drop, count: count - drop)
                        count -= drop
                        base += drop
                    }
                    let got = try upstream(history + count, capacity - count)
                    if got == 0 {
                        ended = true
                        // Two zeros after the end let the last samples interpolate.
                        (history + count).update(repeating: 0, count: 2)
                        count += 2
                    } else {
                        count += got
                    }
                    continue
                }
            }
            let p = history + (i - base)
            let f = Float(x - Double(i))
            let (p0, p1, p2, p3) = (p[-1], p[0], p[1], p[2])
            out[produced] =
                p1 + 0.5 * f * (p2 - p0 + f * (2 * p0 - 5 * p1 + 4 * p2 - p3 + f * (3 * (p1 - p2) + p3 - p0)))
            produced += 1
            position += 1
        }
        return produced
    }
}
