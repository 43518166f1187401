internal import CFFmpeg
import DriftAudio
import DriftCore

/// One audio stream being encoded from interleaved 32-bit floats, in the codec's own frame size and sample format.
/// Packets come out in stream order with timestamps in samples (time base 1/sample rate). Belongs to one thread.
final class AudioEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let channelCount: Int
    let sampleRate: Int
    /// Samples per encoded frame (the codec's, or a block for PCM).
    let frameSize: Int
    /// The encoder's own priming samples (AAC 1024, Opus 312): the container's edit list or pre-skip hides them.
    var priming: Int { Int(context.pointee.initial_padding) }
    private let display: String
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet = Packet()
    private var filled = 0
    private var nextTimestamp: Int64
    private var flushed = false
    /// The timestamp the caller's first sample gets (after any lead-in).
    var firstSample: Int64 = 0

    /// Opens an encoder for `codecName` with the stream's rate and channel layout.
    ///
    /// - Parameters:
    ///   - layout: the channel layout to keep (copied from the input stream).
    ///   - bitRate: for lossy codecs: the source's rate, so a repair does not change the file's size class.
    ///   - bitsPerSample: for lossless codecs: 16 or 24/32, the source's precision.
    ///   - firstTimestamp: the first sample's timestamp (negative for a lead-in the edit list hides).
    init(
        codecName: String, sampleRate: Int, layout: UnsafePointer<AVChannelLayout>, bitRate: Int?, bitsPerSample: Int?,
        globalHeader: Bool, firstTimestamp: Int64, displayPath: String
    ) throws(AudioError) {
        display = displayPath
        guard let codec = driftfix_avcodec_find_encoder_by_name(codecName) else {
            throw AudioError(path: displayPath, cause: .unsupported("this FFmpeg build has no \(codecName) encoder"))
        }
        guard let context = driftfix_avcodec_alloc_context3(codec) else {
            throw AudioError(path: displayPath, cause: .writeFailed("out of memory"))
        }
        self.context = context
        context.pointee.sample_rate = Int32(sampleRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        driftfix_av_channel_layout_copy(&context.pointee.ch_layout, layout)
        context.pointee.sample_fmt = AudioEncoder.sampleFormat(for: codec, bits: bitsPerSample)
        if let bitsPerSample, bitsPerSample > 16, driftfix_av_get_bytes_per_sample(context.pointee.sample_fmt) == 4,
            driftfix_av_sample_fmt_is_planar(context.pointee.sample_fmt) != 0 || codecName == "alac"
        {
            context.pointee.bits_per_raw_sample = Int32(min(bitsPerSample, 32))
        }
        if let bitRate, bitRate > 0 { context.pointee.bit_rate = Int64(bitRate) }
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        context.pointee.thread_count = 1
        let opened = driftfix_avcodec_open2(context, codec, nil)
        guard opened >= 0 else {
            var doomed: UnsafeMutablePointer<AVCodecContext>? = context
            driftfix_avcodec_free_context(&doomed)
            throw AudioError(
                path: displayPath,
                cause: .unsupported("cannot open the \(codecName) encoder: \(FFmpeg.describe(opened))"))
        }
        channelCount = Int(context.pointee.ch_layout.nb_channels)
        self.sampleRate = sampleRate
        let size = Int(context.pointee.frame_size)
        let variable = (codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE) != 0
        frameSize = size > 0 && !variable ? size : 4096
        frame = driftfix_av_frame_alloc()
        nextTimestamp = firstTimestamp
        try allocateFrame()
    }

    deinit {
        var doomedFrame: UnsafeMutablePointer<AVFrame>? = frame
        driftfix_av_frame_free(&doomedFrame)
        var doomed: UnsafeMutablePointer<AVCodecContext>? = context
        driftfix_avcodec_free_context(&doomed)
    }

    /// The encoder's sample format: floats for lossy codecs that take them, else integers wide enough for the source.
    private static func sampleFormat(for codec: UnsafePointer<AVCodec>, bits: Int?) -> AVSampleFormat {
        var supported: [AVSampleFormat] = []
        if var formats = codec.pointee.sample_fmts {
            while formats.pointee != AV_SAMPLE_FMT_NONE {
                supported.append(formats.pointee)
                formats += 1
            }
        }
        guard !supported.isEmpty else { return AV_SAMPLE_FMT_FLTP }
        let wide = (bits ?? 16) > 16
        let order: [AVSampleFormat] =
            wide
            ? [
                AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S32P, AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_DBLP,
                AV_SAMPLE_FMT_DBL,
            ]
            : [
                AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S16P, AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S32P,
                AV_SAMPLE_FMT_S32,
            ]
        return order.first(where: supported.contains) ?? supported[0]
    }

    private func allocateFrame() throws(AudioError) {
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.format = context.pointee.sample_fmt.rawValue
        frame.pointee.sample_rate = context.pointee.sample_rate
        driftfix_av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        let code = driftfix_av_frame_get_buffer(frame, 0)
        guard code >= 0 else { throw AudioError(path: display, cause: .writeFailed(FFmpeg.describe(code))) }
    }

    /// Encodes `frames` interleaved frames; `emit` receives each finished packet (timestamps in samples).
    func encode(
        _ samples: UnsafePointer<Float>, frames: Int,
        emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void
    ) throws(AudioError) {
        var done = 0
        while done < frames {
            if filled == 0 {
                let writable = driftfix_av_frame_make_writable(frame)
                guard writable >= 0 else {
                    throw AudioError(path: display, cause: .writeFailed(FFmpeg.describe(writable)))
                }
            }
            let take = min(frameSize - filled, frames - done)
            SampleConversion.fromFloat(
                samples + done * channelCount, frames: take, channels: channelCount,
                into: frame, at: filled)
            filled += take
            done += take
            if filled == frameSize { try send(count: filled, emit: emit) }
        }
    }

    /// Encodes the last, partial frame and drains the encoder.
    func finish(emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void) throws(AudioError) {
        guard !flushed else { return }
        if filled > 0 { try send(count: filled, emit: emit) }
        flushed = true
        let code = driftfix_avcodec_send_frame(context, nil)
        guard code >= 0 || code == FFmpeg.endOfFile else {
            throw AudioError(path: display, cause: .writeFailed(FFmpeg.describe(code)))
        }
        try drain(emit: emit)
    }

    private func send(count: Int, emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void) throws(AudioError)
    {
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.pts = nextTimestamp
        nextTimestamp += Int64(count)
        let code = driftfix_avcodec_send_frame(context, frame)
        guard code >= 0 else {
            throw AudioError(path: display, cause: .writeFailed("encoding failed: \(FFmpeg.describe(code))"))
        }
        filled = 0
        frame.pointee.nb_samples = Int32(frameSize)
        try drain(emit: emit)
    }

    private func drain(emit: (UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Void) throws(AudioError) {
        while true {
            let code = driftfix_avcodec_receive_packet(context, packet.pointer)
            if code == FFmpeg.again || code == FFmpeg.endOfFile { return }
            guard code >= 0 else {
                throw AudioError(path: display, cause: .writeFailed("encoding failed: \(FFmpeg.describe(code))"))
            }
            try emit(packet.pointer)
            packet.unref()
        }
    }
}
