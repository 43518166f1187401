import CSndFile
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftAudio

/// Integer containers, encodings and byte orders the block codec takes over from libsndfile.
private let codecCases: [(AudioContainer, SampleEncoding, ByteOrder)] = [
    (.wav, .pcm16, .fileDefault), (.wav, .pcm24, .fileDefault), (.wav, .pcm32, .fileDefault), (.wav, .pcm24, .big),
    (.wavex, .pcm24, .fileDefault), (.rf64, .pcm24, .fileDefault), (.w64, .pcm16, .fileDefault),
    (.aiff, .pcm16, .fileDefault), (.aiff, .pcm24, .fileDefault), (.aiff, .pcm32, .fileDefault),
    (.aiff, .pcm24, .little), (.caf, .pcm24, .fileDefault), (.caf, .pcm32, .little),
]

/// Samples that reach every branch of libsndfile's clipped conversion: the clip thresholds and just inside them,
/// halfway cases for round-to-even at 16 and 32 bits, full scale, overs, tiny values, infinities, NaN, and noise.
private func probes(count: Int, seed: UInt64) -> [Float] {
    let one: Float = 1
    var edges: [Float] = [
        0, -0.0, 1, -1, one.nextDown, (-one).nextUp, one.nextUp, (-one).nextDown, 1.5, -1.5,
        .infinity, -.infinity, .nan, 32767 / 32768, 32766.5 / 32768, -32767.5 / 32768, 0.5 / 32768,
        1.5 / 32768, -0.5 / 32768, 2.5 / 2_147_483_648, 1e-12, -1e-12, 0.999_999_9, -0.999_999_9,
    ]
    for k in 0..<64 {
        edges.append(Float(k) + 0.5)
        edges.append((Float(k) + 0.5) / 8_388_608)
    }
    var state = seed
    while edges.count < count {
        // SplitMix64, scaled to ±1.25 (some overs) or to tiny magnitudes.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let unit = Float(z >> 40) / Float(1 << 24) * 2 - 1
        edges.append(edges.count % 7 == 0 ? unit / 40_000 : unit * 1.25)
    }
    return edges
}

/// libsndfile's own open, under driftfix's open lock: every open resets libsndfile's process-wide error, which a
/// failing open on another thread of this test process reads (ConcurrentOpenTests).
private func referenceOpen(_ path: String, _ mode: Int32, _ info: inout SF_INFO) throws -> OpaquePointer {
    try #require(try? SndFile.open { sf_open(path, mode, &info) }.get(), "libsndfile cannot open \(path)")
}

/// The data bytes of `path`, read raw through libsndfile.
private func dataBytes(_ path: String) throws -> [UInt8] {
    var info = SF_INFO()
    let handle = try referenceOpen(path, Int32(SFM_READ), &info)
    defer { sf_close(handle) }
    let width = Int(try #require(SampleEncoding(code: info.format & 0xFFFF).bytesPerSample))
    var bytes = [UInt8](repeating: 0, count: Int(info.frames) * Int(info.channels) * width)
    let got = bytes.withUnsafeMutableBytes { Int(sf_read_raw(handle, $0.baseAddress, sf_count_t($0.count))) }
    #expect(got == bytes.count)
    return bytes
}

/// The file's samples as libsndfile's own normalised float read gives them: the reference for driftfix's reader.
private func libsndfileFloats(_ path: String, frames: Int, channels: Int) throws -> [Float] {
    var info = SF_INFO()
    let handle = try referenceOpen(path, Int32(SFM_READ), &info)
    defer { sf_close(handle) }
    var samples = [Float](repeating: 0, count: frames * channels)
    _ = samples.withUnsafeMutableBufferPointer { sf_readf_float(handle, $0.baseAddress, sf_count_t(frames)) }
    return samples
}

@Suite("PCM block codec")
struct PCMCodecTests {
    @Test(
        "integer PCM written and read a block at a time is byte for byte and sample for sample what libsndfile's own clipped conversion gives",
        arguments: codecCases)
    func sameAsLibsndfile(container: AudioContainer, encoding: SampleEncoding, order: ByteOrder) throws {
        let folder = TemporaryFolder()
        let channels = 3
        let samples = probes(count: 30_003, seed: UInt64(encoding.code) &* 31 &+ UInt64(container.code))
        let frames = samples.count / channels
        let format = AudioFormat(
            container: container, encoding: encoding, byteOrder: order, sampleRate: 48_000,
            channelCount: channels)

        // The reference: libsndfile converting the floats itself, clipping on.
        let reference = folder.file("reference")
        var info = SF_INFO()
        info.samplerate = 48_000
        info.channels = Int32(channels)
        info.format = format.formatCode
        let handle = try referenceOpen(reference, Int32(SFM_WRITE), &info)
        _ = sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        let written = samples.withUnsafeBufferPointer {
            sf_writef_float(handle, UnsafeMutablePointer(mutating: $0.baseAddress), sf_count_t(frames))
        }
        sf_close(handle)
        #expect(written == frames)

        // driftfix's writer, in blocks of odd sizes.
        let ours = folder.file("ours")
        let writer = try AudioFileWriter(path: ours, format: format, metadata: AudioMetadata())
        var offset = 0
        for block in [1, 7, 4096, 333, 10_000] where offset < frames {
            let count = min(block, frames - offset)
            try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress! + offset * channels, frames: count) }
            offset += count
        }
        try samples.withUnsafeBufferPointer {
            try writer.write($0.baseAddress! + offset * channels, frames: frames - offset)
        }
        try writer.close()
        let expected = try dataBytes(reference)
        let found = try dataBytes(ours)
        #expect(found.count == expected.count)
        let firstDifference = zip(found, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        let at = (firstDifference ?? 0) / (encoding.bytesPerSample ?? 1) * (encoding.bytesPerSample ?? 1)
        #expect(
            firstDifference == nil,
            "\(format): first differing byte \(firstDifference ?? -1), sample \(samples[at / (encoding.bytesPerSample ?? 1)]): \(found[at..<min(found.count, at + 4)]) vs libsndfile \(expected[at..<min(expected.count, at + 4)])"
        )

        // driftfix's reader against libsndfile's normalised float read of the same file, bit for bit.
        let theirs = try libsndfileFloats(reference, frames: frames, channels: channels)
        let reader = try AudioFileReader(path: reference)
        var mine = [Float](repeating: .nan, count: frames * channels)
        var done = 0
        for block in [5, 1, 8191, 3000] where done < frames {
            done += try mine.withUnsafeMutableBufferPointer {
                try reader.read(into: $0.baseAddress! + done * channels, frames: min(block, frames - done))
            }
        }
        done += try mine.withUnsafeMutableBufferPointer {
            try reader.read(into: $0.baseAddress! + done * channels, frames: frames - done)
        }
        #expect(done == frames)
        let mismatch = zip(mine, theirs).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }
        #expect(
            mismatch == nil,
            "\(format): sample \(mismatch?.offset ?? -1): \(mismatch?.element.0 ?? 0) vs libsndfile \(mismatch?.element.1 ?? 0)"
        )
    }

    @Test("the codec's own round trip: every 16-bit value, and 24-bit values across the range, come back exactly")
    func roundTrip() {
        let sixteen: [Float] = (-32768...32767).map { Float($0) / 32768 }
        let twentyFour: [Float] = stride(from: -8_388_608, to: 8_388_608, by: 97).map { Float($0) / 8_388_608 }
        let thirtyTwo: [Float] = stride(from: Int64(-2_147_483_648), to: 2_147_483_520, by: 65_537 * 128).map {
            Float($0) / 2_147_483_648
        }
        let cases: [(PCMCodec, [Float])] = [
            (PCMCodec(width: .int16, bigEndian: false), sixteen),
            (PCMCodec(width: .int24, bigEndian: true), twentyFour),
            (PCMCodec(width: .int24, bigEndian: false), twentyFour),
            (PCMCodec(width: .int32, bigEndian: false), thirtyTwo),
        ]
        for (codec, values) in cases {
            var bytes = [UInt8](repeating: 0, count: values.count * codec.bytesPerSample + 8)
            var back = [Float](repeating: 0, count: values.count)
            bytes.withUnsafeMutableBytes { raw in
                codec.encode(values, into: raw.baseAddress!, count: values.count)
                back.withUnsafeMutableBufferPointer {
                    codec.decode(raw.baseAddress!, into: $0.baseAddress!, count: values.count)
                }
            }
            #expect(back == values, "\(codec)")
        }
    }
}

@Suite("PCM block codec: reads into planes")
struct PCMPlanarReadTests {
    @Test(
        "a reader's planar reads, in odd sizes, mixed with interleaved reads and a seek back, are sample for sample libsndfile's float read; 1, 2 and 3 channels",
        arguments: codecCases)
    func planarSameAsLibsndfile(container: AudioContainer, encoding: SampleEncoding, order: ByteOrder) throws {
        for channels in [1, 2, 3] {
            let folder = TemporaryFolder()
            let samples = probes(
                count: 90_001 - 90_001 % channels, seed: UInt64(channels) &* 7 &+ UInt64(encoding.code))
            let frames = samples.count / channels
            let format = AudioFormat(
                container: container, encoding: encoding, byteOrder: order, sampleRate: 48_000,
                channelCount: channels)
            let path = folder.file("take")
            let writer = try AudioFileWriter(path: path, format: format, metadata: AudioMetadata())
            try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: frames) }
            try writer.close()
            let theirs = try libsndfileFloats(path, frames: frames, channels: channels)

            let reader = try AudioFileReader(path: path)
            #expect(reader.readsPlanes)
            let planes = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames + 3) }
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 40_000 * channels)
            defer {
                for plane in planes { plane.deallocate() }
                scratch.deallocate()
            }
            var mine = [Float](repeating: .nan, count: frames * channels)
            func planar(_ count: Int, at frame: Int) throws -> Int {
                let got = try planes.withUnsafeBufferPointer {
                    try reader.read(planes: $0.baseAddress!, offset: 3, frames: count, scratch: scratch)
                }
                for i in 0..<got { for c in 0..<channels { mine[(frame + i) * channels + c] = planes[c][3 + i] } }
                return got
            }
            var done = 0
            for (block, kind) in [(5, 0), (1, 0), (4096, 0), (3000, 1), (40_000, 0), (7, 1), (33_333, 0)]
            where done < frames {
                let count = min(block, frames - done)
                done +=
                    kind == 0
                    ? try planar(count, at: done)
                    : try mine.withUnsafeMutableBufferPointer {
                        try reader.read(into: $0.baseAddress! + done * channels, frames: count)
                    }
            }
            // Back to the middle: what was read ahead belongs to the old position.
            done = frames / 2
            try reader.seek(toFrame: Int64(done))
            while done < frames { done += try planar(min(4100, frames - done), at: done) }
            #expect(try planar(10, at: 0) == 0)
            let mismatch = zip(mine, theirs).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }
            #expect(
                mismatch == nil,
                "\(format): sample \(mismatch?.offset ?? -1): \(mismatch?.element.0 ?? 0) vs libsndfile \(mismatch?.element.1 ?? 0)"
            )
        }
    }
}
