internal import CFFmpeg
import DriftAudio
import DriftCore
import Glibc

/// An open input file in libavformat: its streams and its packets, read in file order. Belongs to one thread.
final class Demuxer {
    /// The path in messages.
    let path: String
    let context: UnsafeMutablePointer<AVFormatContext>
    let fileSize: Int64

    /// Opens `path` after the same checks as the libsndfile path: a regular, readable, non-empty file (a FIFO or a
    /// device is refused, never opened).
    ///
    /// - Throws: `AudioError` naming the file and the cause.
    init(path: String) throws(AudioError) {
        try FFmpeg.prepare(for: path)
        let (descriptor, size) = try FileChecks.openRegularFile(path)
        defer { close(descriptor) }
        // libavformat opens the very file that was checked, through the checked descriptor.
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let code = driftfix_avformat_open_input(&opened, "file:/proc/self/fd/\(descriptor)", nil, nil)
        guard code >= 0, let opened else {
            throw AudioError(path: path, cause: .notAudio("FFmpeg: \(FFmpeg.describe(code))"))
        }
        let found = driftfix_avformat_find_stream_info(opened, nil)
        guard found >= 0 else {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = opened
            driftfix_avformat_close_input(&doomed)
            throw AudioError(path: path, cause: .corrupt(FFmpeg.describe(found)))
        }
        self.path = path
        context = opened
        fileSize = size
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFormatContext>? = context
        driftfix_avformat_close_input(&doomed)
    }

    var streamCount: Int { Int(context.pointee.nb_streams) }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> {
        precondition(index >= 0 && index < streamCount)
        return context.pointee.streams[index]!
    }

    var demuxerName: String { String(cString: context.pointee.iformat.pointee.name) }

    /// Whether an MP4/MOV file keeps its index (`moov`) before the media data ("fast start").
    var indexFirst: Bool {
        MediaContainer(demuxer: demuxerName) == .isoMedia && IsoTopLevel.indexBeforeData(path: path)
    }

    /// Reads only `keep`: libavformat skips the other streams' packets without handing them over.
    func discardAll(except keep: Set<Int>) {
        for index in 0..<streamCount {
            stream(index).pointee.discard = keep.contains(index) ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }

    /// The next packet (any stream not discarded) into `packet`; false at the end of the file.
    ///
    /// - Throws: `AudioError.readFailed` when the file cannot be read further (not the end).
    func read(into packet: UnsafeMutablePointer<AVPacket>) throws(AudioError) -> Bool {
        let code = driftfix_av_read_frame(context, packet)
        if code == FFmpeg.endOfFile { return false }
        guard code >= 0 else { throw AudioError(path: path, cause: .readFailed(FFmpeg.describe(code))) }
        return true
    }

    /// Describes stream `index` in domain terms.
    func describe(stream index: Int) -> MediaStream {
        let stream = stream(index)
        let parameters = stream.pointee.codecpar.pointee
        let kind: MediaStream.Kind
        switch parameters.codec_type {
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .other
        }
        var described = MediaStream(
            index: index, kind: kind, codec: String(cString: driftfix_avcodec_get_name(parameters.codec_id)),
            timeBase: Rational(Int64(stream.pointee.time_base.num), Int64(max(1, stream.pointee.time_base.den))))
        described.isAttachedPicture = (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
        if kind == .audio {
            described.sampleRate = Int(parameters.sample_rate)
            described.channelCount = Int(parameters.ch_layout.nb_channels)
            var layout = parameters.ch_layout
            var buffer = [CChar](repeating: 0, count: 64)
            if driftfix_av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 {
                described.channelLayout = String(
                    decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            if parameters.bit_rate > 0 { described.bitRate = Int(parameters.bit_rate) }
            let bits =
                parameters.bits_per_raw_sample > 0 ? parameters.bits_per_raw_sample : parameters.bits_per_coded_sample
            if bits > 0 { described.bitsPerSample = Int(bits) }
            if parameters.frame_size > 0 { described.frameSize = Int(parameters.frame_size) }
        }
        if kind == .video {
            let rate =
                stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            if rate.num > 0 && rate.den > 0 { described.frameRate = Rational(Int64(rate.num), Int64(rate.den)) }
        }
        described.tags = Demuxer.tags(stream.pointee.metadata)
        return described
    }

    /// The entries of an FFmpeg dictionary.
    static func tags(_ dictionary: OpaquePointer?) -> [String: String] {
        var tags: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = driftfix_av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            tags[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            entry = next
        }
        return tags
    }
}

/// A packet owned by its holder.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() {
        pointer = driftfix_av_packet_alloc()
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVPacket>? = pointer
        driftfix_av_packet_free(&doomed)
    }

    func unref() { driftfix_av_packet_unref(pointer) }
}
