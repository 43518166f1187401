internal import CFFmpeg
import DriftAudio
import DriftCore
import Glibc

/// Reads what a media file holds through libavformat, from its headers and packets (no decoding): the scan's view.
/// Workers decode and count (`EncodedAudioReader`); for well-formed files both agree, and tests prove it per codec.
public enum MediaProbe {
    /// The container and streams of `path`.
    ///
    /// - Throws: `AudioError` naming the file and the cause (missing, not a media file, corrupt...).
    public static func probe(_ path: String) throws(AudioError) -> MediaInfo {
        let demuxer = try Demuxer(path: path)
        return info(of: demuxer)
    }

    static func info(of demuxer: Demuxer) -> MediaInfo {
        let container = MediaContainer(demuxer: demuxer.demuxerName)
        return MediaInfo(
            path: demuxer.path, container: container,
            streams: (0..<demuxer.streamCount).map { demuxer.describe(stream: $0) },
            indexFirst: demuxer.indexFirst,
            tags: Demuxer.tags(demuxer.context.pointee.metadata))
    }

    /// Frames of audio stream `stream` (the first audio stream when nil) as a decoder will deliver them, counted from
    /// the packets: each packet's samples, less what the container says to skip at the start (encoder priming,
    /// an edit list) and to discard at the end, and trimmed to the container's stated duration when that cuts off
    /// less than one codec frame of padding (as Apple's players apply an MP4 edit list).
    ///
    /// - Throws: `AudioError` when the file has no such stream or its packets cannot be read.
    public static func audioFrames(_ path: String, stream: Int? = nil) throws(AudioError) -> (
        stream: MediaStream, frames: Int64
    ) {
        let demuxer = try Demuxer(path: path)
        let index = try AudioStreamChoice.index(in: demuxer, requested: stream)
        demuxer.discardAll(except: [index])
        let av = demuxer.stream(index)
        let described = demuxer.describe(stream: index)
        let rate = Int64(av.pointee.codecpar.pointee.sample_rate)
        let packet = Packet()
        var samples: Int64 = 0
        var skipped: Int64 = 0
        var discarded: Int64 = 0
        while try demuxer.read(into: packet.pointer) {
            defer { packet.unref() }
            guard Int(packet.pointer.pointee.stream_index) == index else { continue }
            var count = Int64(driftfix_av_get_audio_frame_duration2(av.pointee.codecpar, packet.pointer.pointee.size))
            if count <= 0, packet.pointer.pointee.duration > 0 {
                count = driftfix_av_rescale_q(
                    packet.pointer.pointee.duration, av.pointee.time_base, AVRational(num: 1, den: Int32(rate)))
            }
            samples += count
            let (start, end) = SkipSamples.of(packet.pointer)
            skipped += start
            discarded += end
        }
        if skipped == 0 && described.codec == "opus" {
            // Opus decoders drop the stream's pre-skip themselves; Matroska states it as the codec delay, not as a
            // packet's skip.
            let padding = Int64(av.pointee.codecpar.pointee.initial_padding)
            skipped = padding > 0 ? padding : OpusHead.preSkip(av.pointee.codecpar)
        }
        let decoded = max(0, samples - skipped - discarded)
        let frames = EndTrim.apply(decoded: decoded, stream: av, frameSize: described.frameSize)
        return (described, frames)
    }

    /// How far apart a file's own audio and video may end when nothing is wrong: one codec frame of its first audio
    /// stream plus one picture of its first video stream (each stream can only end on a whole frame).
    public static func endGranularity(_ path: String) throws(AudioError) -> Rational {
        let info = try probe(path)
        var total = Rational(0, 1)
        if let audio = info.audioStreams.first {
            // PCM has no codec frame; an unknown frame size counts as AAC's 1024.
            let frame =
                audio.frameDuration
                ?? (audio.isLossless ? nil : audio.sampleRate.map { Rational(1024, Int64(max(1, $0))) })
            if let frame { total = Rational.sum(total, frame) }
        }
        if let video = info.videoStreams.first, let picture = video.frameDuration {
            total = Rational.sum(total, picture)
        }
        return total
    }

    /// The presentation duration of the first video stream, exact as its timestamps allow: from the first
    /// picture's presentation time to the end of the last one, in the stream's time base (MXF and AVI: the
    /// stream's stated length in edit units). Also the time base, which is the precision.
    ///
    /// - Throws: `AudioError` when the file has no video stream or no timestamps to measure.
    public static func videoDuration(_ path: String) throws(AudioError) -> (
        seconds: Rational, resolution: Rational, source: String
    ) {
        let demuxer = try Demuxer(path: path)
        let info = info(of: demuxer)
        guard let video = info.videoStreams.first else {
            throw AudioError(path: path, cause: .unsupported("no video stream"))
        }
        let av = demuxer.stream(video.index)
        let base = av.pointee.time_base
        let resolution = Rational(Int64(base.num), Int64(base.den))
        if info.container == .mxf || info.container == .avi, av.pointee.duration > 0 {
            return (
                Rational(av.pointee.duration * Int64(base.num), Int64(base.den)), resolution,
                "\(info.container) stream length"
            )
        }
        demuxer.discardAll(except: [video.index])
        let packet = Packet()
        var first = Int64.max
        var end = Int64.min
        while try demuxer.read(into: packet.pointer) {
            defer { packet.unref() }
            let p = packet.pointer.pointee
            guard Int(p.stream_index) == video.index else { continue }
            let time = p.pts != FFmpeg.noTimestamp ? p.pts : p.dts
            guard time != FFmpeg.noTimestamp else { continue }
            first = min(first, time)
            var duration = p.duration
            if duration <= 0, let rate = video.frameRate, rate.numerator > 0 {
                // One picture at the stated frame rate, in time-base ticks.
                duration = Int64(
                    (Int128(rate.denominator) * Int128(base.den) / (Int128(rate.numerator) * Int128(base.num))))
            }
            end = max(end, time + duration)
        }
        guard first != Int64.max, end > first else {
            throw AudioError(path: path, cause: .unsupported("the video stream has no timestamps"))
        }
        return (Rational((end - first) * Int64(base.num), Int64(base.den)), resolution, "video timestamps")
    }
}

/// Which audio stream a job reads.
enum AudioStreamChoice {
    /// `requested`, or the first audio stream that is not a picture.
    static func index(in demuxer: Demuxer, requested: Int?) throws(AudioError) -> Int {
        let audio = (0..<demuxer.streamCount).filter {
            demuxer.stream($0).pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
        }
        if let requested {
            guard audio.contains(requested) else {
                throw AudioError(path: demuxer.path, cause: .unsupported("stream \(requested) is not an audio stream"))
            }
            return requested
        }
        guard let first = audio.first else {
            throw AudioError(path: demuxer.path, cause: .noAudioStream)
        }
        return first
    }
}

/// The `AV_PKT_DATA_SKIP_SAMPLES` side data: samples to skip at the start of a packet and to discard at its end.
enum SkipSamples {
    static func of(_ packet: UnsafeMutablePointer<AVPacket>) -> (start: Int64, end: Int64) {
        var size: Int = 0
        guard let data = driftfix_av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 10 else {
            return (0, 0)
        }
        func le32(_ offset: Int) -> Int64 {
            Int64(
                UInt32(data[offset]) | UInt32(data[offset + 1]) << 8 | UInt32(data[offset + 2]) << 16 | UInt32(
                    data[offset + 3]) << 24)
        }
        return (le32(0), le32(4))
    }
}

/// The `OpusHead` an Opus stream's extradata carries.
enum OpusHead {
    /// Samples (at 48 kHz) the decoder drops at the start.
    static func preSkip(_ parameters: UnsafeMutablePointer<AVCodecParameters>) -> Int64 {
        guard parameters.pointee.extradata_size >= 12, let data = parameters.pointee.extradata,
            String(decoding: UnsafeBufferPointer(start: data, count: 8), as: UTF8.self) == "OpusHead"
        else { return 0 }
        return Int64(UInt16(data[10]) | UInt16(data[11]) << 8)
    }
}

/// The end of an audio stream as its container states it: a decoder delivers the encoder's padding after the last
/// real sample (FFmpeg 5.1 applies an MP4 edit list's start but not its end); when the stream's stated duration
/// ends less than one codec frame before the decoded end, that remainder is padding and is cut.
enum EndTrim {
    /// The stream's length as its container states it, in samples, when it states one.
    static func statedFrames(_ stream: UnsafeMutablePointer<AVStream>) -> Int64? {
        let rate = stream.pointee.codecpar.pointee.sample_rate
        guard stream.pointee.duration > 0, stream.pointee.duration != FFmpeg.noTimestamp, rate > 0 else { return nil }
        return driftfix_av_rescale_q(stream.pointee.duration, stream.pointee.time_base, AVRational(num: 1, den: rate))
    }

    static func apply(decoded: Int64, stream: UnsafeMutablePointer<AVStream>, frameSize: Int?) -> Int64 {
        let rate = stream.pointee.codecpar.pointee.sample_rate
        guard stream.pointee.duration > 0, stream.pointee.duration != FFmpeg.noTimestamp, rate > 0 else {
            return decoded
        }
        let stated = driftfix_av_rescale_q(
            stream.pointee.duration, stream.pointee.time_base, AVRational(num: 1, den: rate))
        let frame = Int64(frameSize ?? 0)
        guard frame > 0, stated < decoded, decoded - stated < frame else { return decoded }
        return stated
    }
}

/// The order of the top-level boxes of an MP4/MOV file.
enum IsoTopLevel {
    /// Whether `moov` comes before `mdat`.
    static func indexBeforeData(path: String) -> Bool {
        let descriptor = PathText.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 16)
        for _ in 0..<64 {
            guard pread(descriptor, &header, 16, off_t(offset)) >= 8 else { return false }
            var size = Int64(header[0]) << 24 | Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if type == "moov" { return true }
            if type == "mdat" { return false }
            if size == 1 {
                size = header[8..<16].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            }
            guard size >= 8 else { return false }
            offset += size
        }
        return false
    }
}
