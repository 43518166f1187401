internal import CFFmpeg
import DriftAudio
import DriftCore

/// One audio stream of a demuxer, decoded to interleaved 32-bit floats in [-1, 1), in blocks as the caller asks.
/// Whatever the codec delivers (planar or packed, 8 to 64 bits, integer or float) is converted here, once per
/// frame. Belongs to one thread.
final class AudioDecoder {
    let demuxer: Demuxer
    let streamIndex: Int
    let channelCount: Int
    let sampleRate: Int
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet = Packet()
    private let frame: UnsafeMutablePointer<AVFrame>
    /// Decoded samples not yet handed out, interleaved.
    private var pending: [Float] = []
    private var pendingStart = 0
    private var sentEnd = false
    private var finished = false
    /// Frames handed out so far (after the container's start skip, which libavcodec applies).
    private(set) var delivered: Int64 = 0

    init(demuxer: Demuxer, streamIndex: Int) throws(AudioError) {
        self.demuxer = demuxer
        self.streamIndex = streamIndex
        demuxer.discardAll(except: [streamIndex])
        let stream = demuxer.stream(streamIndex)
        guard let parameters = stream.pointee.codecpar else {
            throw AudioError(path: demuxer.path, cause: .corrupt("stream \(streamIndex) has no codec parameters"))
        }
        guard let decoder = driftfix_avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw AudioError(
                path: demuxer.path,
                cause: .unsupported(
                    "no decoder for \(String(cString: driftfix_avcodec_get_name(parameters.pointee.codec_id))) in this FFmpeg build"
                ))
        }
        guard let context = driftfix_avcodec_alloc_context3(decoder) else {
            throw AudioError(path: demuxer.path, cause: .readFailed("out of memory"))
        }
        var code = driftfix_avcodec_parameters_to_context(context, parameters)
        if code >= 0 {
            context.pointee.pkt_timebase = stream.pointee.time_base
            context.pointee.thread_count = 1
            code = driftfix_avcodec_open2(context, decoder, nil)
        }
        guard code >= 0 else {
            var doomed: UnsafeMutablePointer<AVCodecContext>? = context
            driftfix_avcodec_free_context(&doomed)
            throw AudioError(path: demuxer.path, cause: .unsupported(FFmpeg.describe(code)))
        }
        codec = context
        frame = driftfix_av_frame_alloc()
        channelCount = Int(context.pointee.ch_layout.nb_channels)
        sampleRate = Int(context.pointee.sample_rate)
        guard channelCount > 0, channelCount <= 1024, sampleRate > 0, sampleRate <= 1_536_000 else {
            throw AudioError(
                path: demuxer.path,
                cause: .corrupt("implausible audio stream: \(channelCount) channels at \(sampleRate) Hz"))
        }
    }

    deinit {
        var doomedFrame: UnsafeMutablePointer<AVFrame>? = frame
        driftfix_av_frame_free(&doomedFrame)
        var doomed: UnsafeMutablePointer<AVCodecContext>? = codec
        driftfix_avcodec_free_context(&doomed)
    }

    /// Fills up to `frames` frames; returns how many, 0 at the end of the stream.
    ///
    /// - Throws: `AudioError.corrupt` with the position when a packet cannot be decoded: a damaged frame fails the
    ///   job rather than leaving a shorter or silently patched output.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(AudioError) -> Int {
        var written = 0
        while written < frames {
            let available = (pending.count - pendingStart) / channelCount
            if available > 0 {
                let take = min(available, frames - written)
                pending.withUnsafeBufferPointer { source in
                    (buffer + written * channelCount).update(
                        from: source.baseAddress! + pendingStart, count: take * channelCount)
                }
                pendingStart += take * channelCount
                written += take
                continue
            }
            guard try decodeMore() else { break }
        }
        delivered += Int64(written)
        return written
    }

    /// Decodes until at least one frame of samples is pending; false at the end of the stream.
    private func decodeMore() throws(AudioError) -> Bool {
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        while !finished {
            let received = driftfix_avcodec_receive_frame(codec, frame)
            if received >= 0 {
                append(frame)
                driftfix_av_frame_unref(frame)
                if !pending.isEmpty { return true }
                continue
            }
            if received == FFmpeg.endOfFile {
                finished = true
                break
            }
            guard received == FFmpeg.again else { throw damaged(received) }
            if sentEnd {
                finished = true
                break
            }
            // Feed the next packet of this stream (or the end).
            var fed = false
            while !fed {
                if try demuxer.read(into: packet.pointer) {
                    defer { packet.unref() }
                    guard Int(packet.pointer.pointee.stream_index) == streamIndex else { continue }
                    let sent = driftfix_avcodec_send_packet(codec, packet.pointer)
                    guard sent >= 0 || sent == FFmpeg.again else { throw damaged(sent, at: packet.pointer) }
                    fed = true
                } else {
                    _ = driftfix_avcodec_send_packet(codec, nil)
                    sentEnd = true
                    fed = true
                }
            }
        }
        return !pending.isEmpty
    }

    private func damaged(_ code: Int32, at packet: UnsafeMutablePointer<AVPacket>? = nil) -> AudioError {
        let stream = demuxer.stream(streamIndex)
        var position = ""
        if let packet, packet.pointee.pts != FFmpeg.noTimestamp {
            let seconds = Double(packet.pointee.pts) * av_q2d(stream.pointee.time_base)
            position = String(format: " at %.3f s", seconds)
        } else {
            position = String(format: " after %.3f s", Double(delivered) / Double(sampleRate))
        }
        return AudioError(
            path: demuxer.path, cause: .corrupt("audio cannot be decoded\(position): \(FFmpeg.describe(code))"))
    }

    /// Converts one decoded frame to interleaved floats at the end of `pending`.
    private func append(_ frame: UnsafeMutablePointer<AVFrame>) {
        let count = Int(frame.pointee.nb_samples)
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        guard count > 0, channels == channelCount, let planes = frame.pointee.extended_data else { return }
        let format = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = driftfix_av_sample_fmt_is_planar(format) != 0
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: count * channels))
        pending.withUnsafeMutableBufferPointer { out in
            let base = out.baseAddress! + start
            for channel in 0..<channels {
                let plane = planar ? planes[channel]! : planes[0]!
                let step = planar ? 1 : channels
                let offset = planar ? 0 : channel
                SampleConversion.toFloat(
                    plane, format: format, count: count, step: step, offset: offset,
                    into: base + channel, stride: channels)
            }
        }
    }
}

/// libavutil sample formats to floats in [-1, 1).
enum SampleConversion {
    static func toFloat(
        _ plane: UnsafeMutablePointer<UInt8>, format: AVSampleFormat, count: Int, step: Int, offset: Int,
        into out: UnsafeMutablePointer<Float>, stride: Int
    ) {
        let packed = driftfix_av_get_packed_sample_fmt(format)
        switch packed {
        case AV_SAMPLE_FMT_U8:
            for i in 0..<count { out[i * stride] = (Float(plane[i * step + offset]) - 128) / 128 }
        case AV_SAMPLE_FMT_S16:
            plane.withMemoryRebound(to: Int16.self, capacity: count * step) { s in
                for i in 0..<count { out[i * stride] = Float(s[i * step + offset]) / 32768 }
            }
        case AV_SAMPLE_FMT_S32:
            plane.withMemoryRebound(to: Int32.self, capacity: count * step) { s in
                for i in 0..<count { out[i * stride] = Float(Double(s[i * step + offset]) / 2_147_483_648) }
            }
        case AV_SAMPLE_FMT_S64:
            plane.withMemoryRebound(to: Int64.self, capacity: count * step) { s in
                for i in 0..<count { out[i * stride] = Float(Double(s[i * step + offset]) / 9_223_372_036_854_775_808) }
            }
        case AV_SAMPLE_FMT_FLT:
            plane.withMemoryRebound(to: Float.self, capacity: count * step) { s in
                for i in 0..<count { out[i * stride] = s[i * step + offset] }
            }
        case AV_SAMPLE_FMT_DBL:
            plane.withMemoryRebound(to: Double.self, capacity: count * step) { s in
                for i in 0..<count { out[i * stride] = Float(s[i * step + offset]) }
            }
        default:
            for i in 0..<count { out[i * stride] = 0 }
        }
    }
}

extension SampleConversion {
    /// Interleaved floats into `frame` (any packed or planar format), starting at sample `offset`. Integer formats
    /// round to nearest and clip at full scale.
    static func fromFloat(
        _ samples: UnsafePointer<Float>, frames: Int, channels: Int,
        into frame: UnsafeMutablePointer<AVFrame>, at offset: Int
    ) {
        let format = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = driftfix_av_sample_fmt_is_planar(format) != 0
        guard let planes = frame.pointee.extended_data else { return }
        func integer(_ value: Float, scale: Double, low: Double, high: Double) -> Double {
            min(high, max(low, (Double(value) * scale).rounded()))
        }
        for channel in 0..<channels {
            guard let plane = planar ? planes[channel] : planes[0] else { continue }
            let step = planar ? 1 : channels
            let first = planar ? offset : offset * channels + channel
            switch driftfix_av_get_packed_sample_fmt(format) {
            case AV_SAMPLE_FMT_FLT:
                plane.withMemoryRebound(to: Float.self, capacity: (first + frames * step)) { out in
                    for i in 0..<frames { out[first + i * step] = samples[i * channels + channel] }
                }
            case AV_SAMPLE_FMT_DBL:
                plane.withMemoryRebound(to: Double.self, capacity: (first + frames * step)) { out in
                    for i in 0..<frames { out[first + i * step] = Double(samples[i * channels + channel]) }
                }
            case AV_SAMPLE_FMT_S16:
                plane.withMemoryRebound(to: Int16.self, capacity: (first + frames * step)) { out in
                    for i in 0..<frames {
                        out[first + i * step] = Int16(
                            integer(samples[i * channels + channel], scale: 32768, low: -32768, high: 32767))
                    }
                }
            case AV_SAMPLE_FMT_S32:
                plane.withMemoryRebound(to: Int32.self, capacity: (first + frames * step)) { out in
                    for i in 0..<frames {
                        out[first + i * step] = Int32(
                            integer(
                                samples[i * channels + channel], scale: 2_147_483_648,
                                low: -2_147_483_648, high: 2_147_483_647))
                    }
                }
            case AV_SAMPLE_FMT_U8:
                for i in 0..<frames {
                    plane[first + i * step] = UInt8(
                        integer(samples[i * channels + channel], scale: 128, low: -128, high: 127) + 128)
                }
            default:
                break
            }
        }
    }
}
