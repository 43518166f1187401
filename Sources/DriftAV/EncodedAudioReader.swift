internal import CFFmpeg
import DriftAudio
import DriftCore

/// Reads one audio stream of a media file through FFmpeg (AAC, ALAC, Opus, Vorbis, MP3, FLAC, PCM... in MP4, MOV,
/// M4A, Matroska, WebM, MXF, CAF, ADTS...), decoded to interleaved floats in blocks.
///
/// Its length is a decoded sample count, never a header's claim: opening the file decodes the stream once and
/// counts what the decoder delivers after the container's start skip (encoder priming, an edit list), less the
/// encoder's padding after the container's stated end (less than one codec frame; FFmpeg 5.1 leaves it, Apple's
/// players do not play it). Reading then decodes again, from the start, and delivers exactly that many frames.
/// Memory stays one codec frame plus the caller's block, whatever the file's length.
public final class EncodedAudioReader: SeekableAudioSource {
    public let path: String
    /// The container and all its streams.
    public let info: MediaInfo
    /// The stream being read.
    public let stream: MediaStream
    public let frameCount: Int64
    public let channelCount: Int
    public let sampleRate: Int
    private var decoder: AudioDecoder
    private var position: Int64 = 0
    private var scratch: [Float] = []

    /// Opens audio stream `stream` of `path` (the first audio stream when nil) and counts its frames by decoding.
    ///
    /// - Throws: `AudioError` naming the file and the cause: not a media file, no audio stream, no decoder for its
    ///   codec, an undecodable frame (with its position), no frames.
    public init(path: String, stream requested: Int? = nil) throws(AudioError) {
        let demuxer = try Demuxer(path: path)
        let index = try AudioStreamChoice.index(in: demuxer, requested: requested)
        info = MediaProbe.info(of: demuxer)
        stream = demuxer.describe(stream: index)
        let counting = try AudioDecoder(demuxer: demuxer, streamIndex: index)
        channelCount = counting.channelCount
        sampleRate = counting.sampleRate
        scratch = [Float](repeating: 0, count: 8192 * channelCount)
        var decoded: Int64 = 0
        while true {
            let got = try scratch.withUnsafeMutableBufferPointer { buffer throws(AudioError) in
                try counting.read(into: buffer.baseAddress!, frames: 8192)
            }
            if got == 0 { break }
            decoded += Int64(got)
        }
        frameCount = EndTrim.apply(decoded: decoded, stream: demuxer.stream(index), frameSize: stream.frameSize)
        guard frameCount > 0 else { throw AudioError(path: path, cause: .noFrames) }
        // A file cut short (a recorder that lost power, a copy that stopped) decodes to less than its index states:
        // refused, never repaired short.
        if let stated = EndTrim.statedFrames(demuxer.stream(index)) {
            let slack = Int64(stream.frameSize ?? 1024) * 2
            if decoded + slack < stated {
                throw AudioError(path: path, cause: .truncated(claimedFrames: stated, availableFrames: decoded))
            }
        }
        self.path = path
        decoder = try AudioDecoder(demuxer: Demuxer(path: path), streamIndex: index)
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(AudioError) -> Int {
        let wanted = Int(min(Int64(frames), frameCount - position))
        guard wanted > 0 else { return 0 }
        let got = try decoder.read(into: buffer, frames: wanted)
        guard got > 0 else {
            throw AudioError(path: path, cause: .truncated(claimedFrames: frameCount, availableFrames: position))
        }
        position += Int64(got)
        return got
    }

    /// Moves to `frame` exactly: forward by decoding and dropping, backward by decoding again from the start.
    public func seek(toFrame frame: Int64) throws(AudioError) {
        precondition(frame >= 0 && frame <= frameCount, "seek outside the stream")
        if frame < position {
            decoder = try AudioDecoder(demuxer: Demuxer(path: path), streamIndex: stream.index)
            position = 0
        }
        while position < frame {
            let step = Int(min(8192, frame - position))
            _ = try scratch.withUnsafeMutableBufferPointer { buffer throws(AudioError) in
                try read(into: buffer.baseAddress!, frames: step)
            }
        }
    }
}

@available(*, unavailable, message: "an FFmpeg decoder belongs to one thread at a time")
extension EncodedAudioReader: Sendable {}

/// One audio stream decoded once, front to back, for analysis that reads to the end and needs no length up front
/// (content measurement): it skips `EncodedAudioReader`'s counting pass, which would double the decoding.
///
/// The container's start skip (priming, an edit list) is applied as everywhere, so timing is exact; the end may
/// carry the last codec frame's padding (under one frame). `frameCount` is the container's stated length, an
/// estimate that `read` does not enforce.
public final class DecodedAudioStream: AudioSource {
    public let path: String
    public let channelCount: Int
    public let sampleRate: Int
    /// The stated length (an estimate; 0 when the container states none).
    public let frameCount: Int64
    private let decoder: AudioDecoder

    /// Opens audio stream `stream` of `path` (the first audio stream when nil).
    ///
    /// - Throws: `AudioError` naming the file and the cause (not a media file, no audio stream, no decoder).
    public init(path: String, stream requested: Int? = nil) throws(AudioError) {
        let demuxer = try Demuxer(path: path)
        let index = try AudioStreamChoice.index(in: demuxer, requested: requested)
        decoder = try AudioDecoder(demuxer: demuxer, streamIndex: index)
        channelCount = decoder.channelCount
        sampleRate = decoder.sampleRate
        frameCount = EndTrim.statedFrames(demuxer.stream(index)) ?? 0
        self.path = path
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(AudioError) -> Int {
        try decoder.read(into: buffer, frames: frames)
    }
}

@available(*, unavailable, message: "an FFmpeg decoder belongs to one thread at a time")
extension DecodedAudioStream: Sendable {}
