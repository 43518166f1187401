internal import CPCM
import DriftCore

/// Integer PCM samples in a file's byte layout, converted to and from 32-bit floats a block at a time, with
/// libsndfile's own arithmetic: its normalised reads, and its clipped writes (as `SFC_SET_CLIPPING` asks: scaled to
/// 32 bits, clipped, rounded to nearest even, the top bytes kept).
///
/// libsndfile converts through an internal buffer of a few kilobytes, one `read`/`write` call each; the readers and
/// writers move a whole block's bytes through `sf_read_raw`/`sf_write_raw` instead and convert them here (vectorised
/// C loops, `CPCM`), so libsndfile still owns the container (header, chunks, frame count). The floats and bytes are the ones
/// libsndfile gives (tested against it, sample for sample).
public struct PCMCodec: Sendable, Equatable {
    public enum Width: Int, Sendable {
        case int16 = 2
        case int24 = 3
        case int32 = 4
    }

    public let width: Width
    /// Whether the file stores the most significant byte first (AIFF, big-endian CAF).
    public let bigEndian: Bool

    public init(width: Width, bigEndian: Bool) {
        self.width = width
        self.bigEndian = bigEndian
    }

    /// The codec for `encoding` (16-, 24- or 32-bit integers), nil for anything else.
    init?(encoding: SampleEncoding, bigEndian: Bool) {
        switch encoding {
        case .pcm16: self.init(width: .int16, bigEndian: bigEndian)
        case .pcm24: self.init(width: .int24, bigEndian: bigEndian)
        case .pcm32: self.init(width: .int32, bigEndian: bigEndian)
        default: return nil
        }
    }

    public var bytesPerSample: Int { width.rawValue }

    /// `count` samples from `bytes` as floats in [-1, 1). `bytes` must have 4 readable bytes past the last sample
    /// (`RawBuffer` keeps them): the 24-bit loop loads a word per sample.
    public func decode(_ bytes: UnsafeRawPointer, into samples: UnsafeMutablePointer<Float>, count: Int) {
        driftfix_pcm_decode(
            bytes.assumingMemoryBound(to: UInt8.self), samples, count, Int32(width.rawValue),
            bigEndian ? 1 : 0)
    }

    /// `frames` frames of `channels` channels from `bytes` into one plane per channel, each from `offset`: the
    /// values `decode` gives, parted as a planar converter holds them (24-bit stereo in one pass). The same slack.
    public func decode(
        _ bytes: UnsafeRawPointer, planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frames: Int,
        channels: Int
    ) {
        planes.withMemoryRebound(to: UnsafeMutablePointer<Float>?.self, capacity: channels) { rebound in
            driftfix_pcm_decode_planar(
                bytes.assumingMemoryBound(to: UInt8.self), rebound, offset, frames, Int32(channels),
                Int32(width.rawValue), bigEndian ? 1 : 0)
        }
    }

    /// `count` floats into `bytes` (with 4 writable bytes past the last sample), clipped to the integer range. NaN is written as the most negative value, as
    /// libsndfile writes it.
    public func encode(_ samples: UnsafePointer<Float>, into bytes: UnsafeMutableRawPointer, count: Int) {
        driftfix_pcm_encode(
            samples, bytes.assumingMemoryBound(to: UInt8.self), count, Int32(width.rawValue),
            bigEndian ? 1 : 0)
    }
}
