import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Analysis samples kept on disk between the measurement's passes, so each file is decoded once however many passes
/// read it. Samples are stored as 16-bit integers with one scale per block of 1024 (block floating point: noise 90 dB
/// below each block's peak, far below what correlation can see): 16 kB per second of sound at 8 kHz. The file is
/// unlinked as soon as it is created, so nothing is left behind by a crash or a kill.
final class SampleSpill {
    static let blockSamples = 1024
    /// Bytes per stored block: the Float32 scale, then the samples.
    static let blockBytes = 4 + 2 * blockSamples

    private let descriptor: Int32
    private var pending: [Float] = []
    private var encoded = [UInt8](repeating: 0, count: 64 * SampleSpill.blockBytes)
    private var encodedCount = 0
    private var written: Int64 = 0
    /// Samples appended so far.
    private(set) var count = 0

    /// A new, already unlinked spill in `folder` (the system's temporary folder by default); nil when none can be made
    /// (the caller then decodes the file again instead).
    init?(folder: String = FileManager.default.temporaryDirectory.path) {
        var template = Array((folder + "/.driftfix-measure-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        descriptor = fd
        pending.reserveCapacity(SampleSpill.blockSamples)
    }

    deinit { close(descriptor) }

    /// Appends samples.
    func append(_ samples: UnsafePointer<Float>, count n: Int) throws {
        var i = 0
        while i < n {
            let take = min(n - i, SampleSpill.blockSamples - pending.count)
            pending.append(contentsOf: UnsafeBufferPointer(start: samples + i, count: take))
            i += take
            if pending.count == SampleSpill.blockSamples { try encodePending() }
        }
        count += n
    }

    /// Writes what is buffered; call once after the last `append`.
    func finish() throws {
        if !pending.isEmpty {
            pending.append(contentsOf: repeatElement(0, count: SampleSpill.blockSamples - pending.count))
            try encodePending()
        }
        try flush()
    }

    /// A reader from the first sample.
    func reader() -> Reader { Reader(spill: self) }

    private func encodePending() throws {
        var peak: Float = 0
        for v in pending { peak = max(peak, abs(v)) }
        let scale = peak > 0 ? peak / 32767 : 1
        let inverse = SIMD8<Float>(repeating: 1 / scale)
        // Rounded to the nearest (ties to even) by the float addition itself: 1.5·2²³ added puts the integer in the
        // low mantissa bits (exact for |v| < 2²²; here |v| ≤ 32767). The generic conversion checked every lane.
        let magic = SIMD8<Float>(repeating: 12_582_912)
        let magicBits = SIMD8<Int32>(repeating: 0x4B40_0000)
        pending.withUnsafeBufferPointer { samples in
            encoded.withUnsafeMutableBytes { raw in
                let base = raw.baseAddress! + encodedCount * SampleSpill.blockBytes
                base.storeBytes(of: scale, as: Float.self)
                var k = 0
                while k < SampleSpill.blockSamples {
                    let v = UnsafeRawPointer(samples.baseAddress! + k).loadUnaligned(as: SIMD8<Float>.self) * inverse
                    let bits = unsafeBitCast(v + magic, to: SIMD8<Int32>.self) &- magicBits
                    let q = SIMD8<Int16>(truncatingIfNeeded: bits)
                    (base + 4 + 2 * k).storeBytes(of: q, as: SIMD8<Int16>.self)
                    k += 8
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
        encodedCount += 1
        if encodedCount * SampleSpill.blockBytes == encoded.count { try flush() }
    }

    private func flush() throws {
        let bytes = encodedCount * SampleSpill.blockBytes
        var done = 0
        while done < bytes {
            let n = encoded.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress! + done, bytes - done, off_t(written) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw SpillError(errno: errno)
            }
            done += n
        }
        written += Int64(bytes)
        encodedCount = 0
    }

    fileprivate func readBlocks(at block: Int, into buffer: UnsafeMutableRawPointer, blocks: Int) throws -> Int {
        let wanted = blocks * SampleSpill.blockBytes
        var done = 0
        while done < wanted {
            let n = pread(descriptor, buffer + done, wanted - done, off_t(block * SampleSpill.blockBytes + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw SpillError(errno: errno)
            }
            if n == 0 { break }
            done += n
        }
        return done / SampleSpill.blockBytes
    }

    /// Replays a spill in order.
    final class Reader: AnalysisSamples {
        private let spill: SampleSpill
        private var block = 0
        private var delivered = 0
        private var raw = [UInt8](repeating: 0, count: 16 * SampleSpill.blockBytes)
        private var decoded = [Float](repeating: 0, count: 16 * SampleSpill.blockSamples)
        private var decodedCount = 0
        private var decodedUsed = 0

        fileprivate init(spill: SampleSpill) { self.spill = spill }

        func read(into out: UnsafeMutablePointer<Float>, count wanted: Int) throws -> Int {
            var produced = 0
            while produced < wanted && delivered < spill.count {
                if decodedUsed == decodedCount {
                    let blocks = try raw.withUnsafeMutableBytes {
                        try spill.readBlocks(at: block, into: $0.baseAddress!, blocks: 16)
                    }
                    guard blocks > 0 else { break }
                    raw.withUnsafeBytes { bytes in
                        decoded.withUnsafeMutableBufferPointer { d in
                            for b in 0..<blocks {
                                let base = bytes.baseAddress! + b * SampleSpill.blockBytes
                                let scale = base.loadUnaligned(as: Float.self)
                                for k in 0..<SampleSpill.blockSamples {
                                    d[b * SampleSpill.blockSamples + k] =
                                        Float(base.loadUnaligned(fromByteOffset: 4 + 2 * k, as: Int16.self)) * scale
                                }
                            }
                        }
                    }
                    block += blocks
                    decodedCount = blocks * SampleSpill.blockSamples
                    decodedUsed = 0
                }
                let take = min(wanted - produced, decodedCount - decodedUsed, spill.count - delivered)
                decoded.withUnsafeBufferPointer {
                    (out + produced).update(from: $0.baseAddress! + decodedUsed, count: take)
                }
                produced += take
                decodedUsed += take
                delivered += take
            }
            return produced
        }
    }
}

/// The spill file could not be written or read back.
struct SpillError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "temporary analysis file: \(String(cString: strerror(errno)))" }
}
