internal import CFFmpeg
import DriftAudio
import DriftSupport

extension MediaRewriter {
    /// A replaced stream's encoder, its silent lead-in (whole codec frames in MP4/MOV) and how to open more of it
    /// (segments).
    struct OpenedEncoder {
        let encoder: AudioEncoder
        let replacement: Replacement
        let lead: Int
        let make: SegmentedAudioEncoder.Make
        let aac: Bool
    }

    func openEncoder(for replacement: Replacement, plan: MediaOutputPlan, iso: Bool) throws(AudioError)
        -> OpenedEncoder
    {
        let globalHeader = (output.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0
        let stream = input.stream(replacement.stream)
        let source = input.describe(stream: replacement.stream)
        // The new audio starts where the input's did relative to the other streams.
        var start: Int64 = 0
        if stream.pointee.start_time != FFmpeg.noTimestamp, stream.pointee.start_time > 0 {
            start = driftfix_av_rescale_q(
                stream.pointee.start_time, stream.pointee.time_base,
                AVRational(num: 1, den: Int32(replacement.sampleRate)))
        }
        var layout = stream.pointee.codecpar.pointee.ch_layout
        if let channels = replacement.channelCount, channels != Int(layout.nb_channels) {
            // The stream's own layout is left alone (it may own a channel map): a new default one of that width.
            var fresh = AVChannelLayout()
            driftfix_av_channel_layout_default(&fresh, Int32(channels))
            layout = fresh
        }
        // Opened first to learn the codec's frame size; the lead-in only changes the first timestamp.
        var encoder = try AudioEncoder(
            codecName: plan.encoder, sampleRate: replacement.sampleRate, layout: &layout,
            bitRate: source.bitRate, bitsPerSample: replacement.bitsPerSample ?? source.bitsPerSample,
            globalHeader: globalHeader, firstTimestamp: start, displayPath: displayPath)
        var lead = 0
        if iso && encoder.priming > 0 && encoder.frameSize > 0 {
            let size = Int64(encoder.frameSize)
            lead = Int((size - replacement.targetFrames % size) % size)
            if lead > 0 {
                encoder = try AudioEncoder(
                    codecName: plan.encoder, sampleRate: replacement.sampleRate, layout: &layout,
                    bitRate: source.bitRate, bitsPerSample: replacement.bitsPerSample ?? source.bitsPerSample,
                    globalHeader: globalHeader, firstTimestamp: start - Int64(lead), displayPath: displayPath)
            }
        }
        encoder.firstSample = start
        let (name, rate, bitRate, bits, display) = (
            plan.encoder, replacement.sampleRate, source.bitRate,
            replacement.bitsPerSample ?? source.bitsPerSample,
            displayPath
        )
        // Each segment's encoder copies the layout on its own thread: a C struct whose channel map (if any) belongs
        // to the input stream, which outlives the encoders and is only read.
        let kept = Handover(value: layout)
        let make: SegmentedAudioEncoder.Make = { (timestamp: Int64) throws(AudioError) -> AudioEncoder in
            var layout = kept.value
            return try AudioEncoder(
                codecName: name, sampleRate: rate, layout: &layout, bitRate: bitRate,
                bitsPerSample: bits, globalHeader: globalHeader, firstTimestamp: timestamp,
                displayPath: display)
        }
        return OpenedEncoder(
            encoder: encoder, replacement: replacement, lead: lead, make: make, aac: plan.encoder == "aac")
    }

    /// The output's streams in the input's order: replaced ones encoded, the others copied where the container can
    /// hold them (and said where not). Returns the replaced streams' tracks by input index.
    func addStreams(_ encoders: [Int: OpenedEncoder]) throws(AudioError) -> [Int: Track] {
        let sameFamily =
            MediaContainer(demuxer: input.demuxerName)
            == MediaContainer(demuxer: plan.muxer == "ipod" ? "mov" : plan.muxer)
        var made: [Int: Track] = [:]
        for index in 0..<input.streamCount {
            let from = input.stream(index)
            if encoders[index] == nil {
                let described = input.describe(stream: index)
                let fits =
                    driftfix_avformat_query_codec(
                        output.pointee.oformat, from.pointee.codecpar.pointee.codec_id, FF_COMPLIANCE_NORMAL) == 1
                guard fits else {
                    droppedStreams.append("stream \(index) (\(described.kind.rawValue), \(described.codec))")
                    continue
                }
            }
            guard let to = driftfix_avformat_new_stream(output, nil) else {
                throw AudioError(path: displayPath, cause: .writeFailed("out of memory"))
            }
            if let opened = encoders[index] {
                let (encoder, replacement, lead) = (opened.encoder, opened.replacement, opened.lead)
                driftfix_avcodec_parameters_from_context(to.pointee.codecpar, encoder.context)
                to.pointee.time_base = AVRational(num: 1, den: Int32(replacement.sampleRate))
                // AAC packets join cleanly (see SegmentedAudioEncoder); other codecs carry state across packets
                // (MP3's bit reservoir, FLAC's whole-stream MD5, Opus's and Vorbis's prediction): one pass.
                let segmented =
                    threads > 1 && opened.aac && replacement.targetFrames > 2 * SegmentedAudioEncoder.segmentFrames
                let coder: any StreamEncoder =
                    segmented
                    ? SegmentedAudioEncoder(
                        first: encoder, firstTimestamp: encoder.firstSample - Int64(lead), make: opened.make,
                        threads: threads)
                    : encoder
                made[index] = Track(
                    input: index, encoder: coder, output: to, target: replacement.targetFrames, leadIn: lead)
            } else {
                driftfix_avcodec_parameters_copy(to.pointee.codecpar, from.pointee.codecpar)
                // Another container family names codecs by its own tags.
                if !sameFamily { to.pointee.codecpar.pointee.codec_tag = 0 }
                to.pointee.time_base = from.pointee.time_base
                to.pointee.avg_frame_rate = from.pointee.avg_frame_rate
                to.pointee.r_frame_rate = from.pointee.r_frame_rate
                to.pointee.sample_aspect_ratio = from.pointee.sample_aspect_ratio
                MediaRewriter.copySideData(from: from, to: to)
                copied[index] = to
            }
            to.pointee.disposition = from.pointee.disposition
            driftfix_av_dict_copy(&to.pointee.metadata, from.pointee.metadata, 0)
        }
        return made
    }

    /// Opens the output through its descriptor and writes the header (MP4/MOV: edit lists in the audio's time scale).
    func writeHeader(iso: Bool, sampleRate: Int) throws(AudioError) {
        var options: OpaquePointer?
        defer { driftfix_av_dict_free(&options) }
        if iso {
            // Edit lists in the audio's own time scale: exact to the sample.
            driftfix_av_dict_set(&options, "movie_timescale", "\(sampleRate)", 0)
            if input.indexFirst { driftfix_av_dict_set(&options, "movflags", "+faststart", 0) }
        }
        var io: UnsafeMutablePointer<AVIOContext>?
        var code = driftfix_avio_open(&io, "file:/proc/self/fd/\(descriptor)", AVIO_FLAG_WRITE)
        if code >= 0 {
            output.pointee.pb = io
            code = driftfix_avformat_write_header(output, &options)
        }
        guard code >= 0 else {
            if output.pointee.pb != nil { driftfix_avio_closep(&output.pointee.pb) }
            throw AudioError(path: displayPath, cause: FFmpeg.writeCause(code))
        }
    }
}
