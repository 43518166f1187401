internal import CFFmpeg
import DriftAudio
import DriftCore
import Glibc

/// What a rewritten media file will hold: the repaired audio stream's codec, and what the container could not keep.
public struct MediaOutputPlan: Sendable, Equatable {
    /// libavformat's muxer for the destination's extension (`ipod` for .m4a, `mp4`, `mov`, `matroska`, `webm`...).
    public var muxer: String
    /// libavcodec's encoder for the repaired stream.
    public var encoder: String
    /// The repaired stream's codec name as probes report it (`aac`, `alac`, `opus`...).
    public var codec: String
    /// Lossy codecs lose a generation with every re-encode: said in the report row.
    public var lossy: Bool
}

/// Writes a media file that is the input with one audio stream replaced by new samples: every other stream (video,
/// other audio, subtitles, timecode, data) is copied packet for packet with its timestamps, and the file's metadata,
/// chapters, stream tags, dispositions and side data (a phone video's rotation) are kept.
///
/// The new audio keeps the input stream's codec, channel layout and bit rate (or depth) unless told otherwise, and is
/// written so that a decoder delivers exactly the frames given: in MP4/MOV an AAC stream gets a silent lead-in that
/// makes its length a whole number of codec frames, hidden by the edit list with the encoder's priming, so no
/// padding is decoded after the last sample. Copied packets are interleaved as the new audio advances, so memory stays
/// bounded by the interleaving window, not the file.
public final class MediaRewriter: AudioSink {
    /// An audio stream of the input to replace: its new rate and exact length.
    public struct Replacement: Sendable {
        public var stream: Int
        public var sampleRate: Int
        public var targetFrames: Int64
        /// Channels of the new audio where they differ from the stream's (another recording's audio put in its
        /// place); nil keeps the stream's layout.
        public var channelCount: Int?
        /// The new audio's precision for a lossless encoder where the stream's says nothing (a lossy scratch track
        /// replaced by a 24-bit recording); nil: the stream's.
        public var bitsPerSample: Int?

        public init(stream: Int, sampleRate: Int, targetFrames: Int64) {
            self.stream = stream
            self.sampleRate = sampleRate
            self.targetFrames = targetFrames
        }
    }

    public let displayPath: String
    /// Frames of the first replaced stream accepted so far (the one `write` receives).
    public private(set) var framesWritten: Int64 = 0
    public let plan: MediaOutputPlan
    /// Streams of the input the output container cannot hold (dropped, and said).
    public private(set) var droppedStreams: [String] = []
    /// Input stream index → output stream index, for the copied streams.
    public var copiedStreams: [Int: Int] { copied.mapValues { Int($0.pointee.index) } }
    /// Input stream index → output stream index, for the replaced streams.
    public var replacedStreams: [Int: Int] { tracks.reduce(into: [:]) { $0[$1.input] = Int($1.output.pointee.index) } }
    /// Segments the first replaced stream was encoded in, on threads of their own (1: one pass).
    public var encodedSegments: Int { (tracks.first?.encoder as? SegmentedAudioEncoder)?.segmentCount ?? 1 }
    /// The first replaced stream's index in the output.
    public var audioStreamIndex: Int { Int(tracks[0].output.pointee.index) }

    /// One replaced stream: its encoder, its output stream, and (beyond the first) the source it is pulled from.
    private final class Track {
        let input: Int
        let encoder: any StreamEncoder
        let output: UnsafeMutablePointer<AVStream>
        let target: Int64
        var leadIn: Int
        var written: Int64 = 0
        var source: AudioSource?

        init(input: Int, encoder: any StreamEncoder, output: UnsafeMutablePointer<AVStream>, target: Int64, leadIn: Int)
        {
            self.input = input
            self.encoder = encoder
            self.output = output
            self.target = target
            self.leadIn = leadIn
        }
    }

    private let path: String
    private let descriptor: Int32
    private let input: Demuxer
    private let output: UnsafeMutablePointer<AVFormatContext>
    private var tracks: [Track] = []
    /// Input stream index → output stream, for copied streams.
    private var copied: [Int: UnsafeMutablePointer<AVStream>] = [:]
    private let copyPacket = Packet()
    /// `copyPacket` holds a packet read but not yet written (it lies after the new audio's time so far).
    private var copyPending = false
    private var copyExhausted = false
    private var closed = false
    private var block: [Float] = []
    /// Threads an AAC stream may be encoded on, in segments (`SegmentedAudioEncoder`).
    private let threads: Int
    /// The end of the first replaced stream's audio handed to the muxer so far, in seconds: copied streams follow it
    /// (a segmented encoder hands on packets a segment at a time, behind the samples it was given).
    private var audioSeconds = -Double.infinity

    /// Creates `path` (which must not exist) as `input` with audio stream `stream` replaced.
    public convenience init(
        input inputPath: String, stream: Int, path: String, displayPath: String, sampleRate: Int,
        targetFrames: Int64, encoderName: String? = nil
    ) throws(AudioError) {
        try self.init(
            input: inputPath,
            replacing: [Replacement(stream: stream, sampleRate: sampleRate, targetFrames: targetFrames)],
            path: path, displayPath: displayPath, encoderName: encoderName)
    }

    /// Creates `path` (which must not exist) as `input` with the audio streams `replacing` replaced. The first receives
    /// `write`; each further one pulls from the source given to `attach`, in step with the first.
    ///
    /// - Parameters:
    ///   - displayPath: the final name: its extension chooses the container, and messages use it.
    ///   - encoderName: another encoder than the input codec's (`--format` choices); nil keeps the codec.
    /// - Throws: `AudioError` naming the destination and the cause (a container that cannot hold the codec exactly,
    ///   a missing encoder, a write error).
    public convenience init(
        input inputPath: String, replacing: [Replacement], path: String, displayPath: String,
        encoderName: String? = nil
    ) throws(AudioError) {
        try self.init(
            input: inputPath, replacing: replacing, target: .create(path: path, displayPath: displayPath),
            encoderName: encoderName, threads: 1)
    }

    /// Writes `staged`'s temporary file (created and locked by it) as `input` with the audio streams `replacing`
    /// replaced; the staged output's destination chooses the container.
    /// - Parameter threads: threads an AAC stream of a long file may be encoded on, in segments (1: one pass).
    public convenience init(
        input inputPath: String, replacing: [Replacement], staged: StagedOutput,
        encoderName: String? = nil, threads: Int = 1
    ) throws(AudioError) {
        try self.init(
            input: inputPath, replacing: replacing, target: .staged(staged), encoderName: encoderName, threads: threads)
    }

    /// Where the new file goes: a new file at a path, or a staged output's temporary file.
    private enum Target {
        case create(path: String, displayPath: String)
        case staged(StagedOutput)
    }

    private init(
        input inputPath: String, replacing: [Replacement], target: Target, encoderName: String?,
        threads: Int
    ) throws(AudioError) {
        precondition(!replacing.isEmpty, "at least one stream to replace")
        self.threads = threads
        let path: String
        let ownsName: Bool
        switch target {
        case .create(let newPath, let displayPath):
            path = newPath
            self.displayPath = displayPath
            ownsName = true
        case .staged(let staged):
            path = staged.temporaryPath
            displayPath = staged.destination
            ownsName = false
        }
        self.path = path
        input = try Demuxer(path: inputPath)
        var plans: [MediaOutputPlan] = []
        for replacement in replacing {
            let source = input.describe(stream: replacement.stream)
            guard source.kind == .audio else {
                throw AudioError(
                    path: inputPath, cause: .unsupported("stream \(replacement.stream) is not an audio stream"))
            }
            plans.append(try MediaRewriter.plan(for: source, displayPath: displayPath, encoderName: encoderName))
        }
        plan = plans[0]

        let fd: Int32
        if case .staged(let staged) = target {
            fd = try staged.writableDescriptor()
        } else {
            fd = PathText.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw AudioError(path: displayPath, cause: AudioFileWriter.cause(forErrno: errno)) }
        }
        descriptor = fd
        var context: UnsafeMutablePointer<AVFormatContext>?
        let allocated = avformat_alloc_output_context2(&context, nil, plan.muxer, path)
        guard allocated >= 0, let context else {
            Glibc.close(fd)
            if ownsName { PathText.withCString(path, { unlink($0) }) }
            throw AudioError(path: displayPath, cause: .unsupported("no \(plan.muxer) muxer in this FFmpeg build"))
        }
        output = context
        do {
            try build(replacing: replacing, plans: plans)
        } catch {
            avformat_free_context(context)
            Glibc.close(fd)
            if ownsName { PathText.withCString(path, { unlink($0) }) }
            throw error
        }
    }

    /// Adds the streams, writes the header.
    private func build(replacing: [Replacement], plans: [MediaOutputPlan]) throws(AudioError) {
        let iso = ["mp4", "ipod", "mov"].contains(plan.muxer)
        var encoders: [Int: OpenedEncoder] = [:]
        for (replacement, plan) in zip(replacing, plans) {
            encoders[replacement.stream] = try openEncoder(for: replacement, plan: plan, iso: iso)
        }
        let made = try addStreams(encoders)
        tracks = replacing.compactMap { made[$0.stream] }
        guard tracks.count == replacing.count else {
            throw AudioError(path: displayPath, cause: .writeFailed("could not add the audio streams"))
        }
        av_dict_copy(&output.pointee.metadata, input.context.pointee.metadata, 0)
        MediaRewriter.copyChapters(from: input.context, to: output)
        input.discardAll(except: Set(copied.keys))
        try writeHeader(iso: iso, sampleRate: replacing[0].sampleRate)
    }

    /// A replaced stream's encoder, its silent lead-in (whole codec frames in MP4/MOV) and how to open more of it
    /// (segments).
    private struct OpenedEncoder {
        let encoder: AudioEncoder
        let replacement: Replacement
        let lead: Int
        let make: SegmentedAudioEncoder.Make
        let aac: Bool
    }

    private func openEncoder(for replacement: Replacement, plan: MediaOutputPlan, iso: Bool) throws(AudioError)
        -> OpenedEncoder
    {
        let globalHeader = (output.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0
        let stream = input.stream(replacement.stream)
        let source = input.describe(stream: replacement.stream)
        // The new audio starts where the input's did relative to the other streams.
        var start: Int64 = 0
        if stream.pointee.start_time != FFmpeg.noTimestamp, stream.pointee.start_time > 0 {
            start = av_rescale_q(
                stream.pointee.start_time, stream.pointee.time_base,
                AVRational(num: 1, den: Int32(replacement.sampleRate)))
        }
        var layout = stream.pointee.codecpar.pointee.ch_layout
        if let channels = replacement.channelCount, channels != Int(layout.nb_channels) {
            // The stream's own layout is left alone (it may own a channel map): a new default one of that width.
            var fresh = AVChannelLayout()
            av_channel_layout_default(&fresh, Int32(channels))
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
        let kept = Owned(layout)  // the input stream's layout, which outlives the encoders
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
    private func addStreams(_ encoders: [Int: OpenedEncoder]) throws(AudioError) -> [Int: Track] {
        let sameFamily =
            MediaContainer(demuxer: input.demuxerName)
            == MediaContainer(demuxer: plan.muxer == "ipod" ? "mov" : plan.muxer)
        var made: [Int: Track] = [:]
        for index in 0..<input.streamCount {
            let from = input.stream(index)
            if encoders[index] == nil {
                let described = input.describe(stream: index)
                let fits =
                    avformat_query_codec(
                        output.pointee.oformat, from.pointee.codecpar.pointee.codec_id, FF_COMPLIANCE_NORMAL) == 1
                guard fits else {
                    droppedStreams.append("stream \(index) (\(described.kind.rawValue), \(described.codec))")
                    continue
                }
            }
            guard let to = avformat_new_stream(output, nil) else {
                throw AudioError(path: displayPath, cause: .writeFailed("out of memory"))
            }
            if let opened = encoders[index] {
                let (encoder, replacement, lead) = (opened.encoder, opened.replacement, opened.lead)
                avcodec_parameters_from_context(to.pointee.codecpar, encoder.context)
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
                avcodec_parameters_copy(to.pointee.codecpar, from.pointee.codecpar)
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
            av_dict_copy(&to.pointee.metadata, from.pointee.metadata, 0)
        }
        return made
    }

    /// Opens the output through its descriptor and writes the header (MP4/MOV: edit lists in the audio's time scale).
    private func writeHeader(iso: Bool, sampleRate: Int) throws(AudioError) {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if iso {
            // Edit lists in the audio's own time scale: exact to the sample.
            av_dict_set(&options, "movie_timescale", "\(sampleRate)", 0)
            if input.indexFirst { av_dict_set(&options, "movflags", "+faststart", 0) }
        }
        var io: UnsafeMutablePointer<AVIOContext>?
        var code = avio_open(&io, "file:/proc/self/fd/\(descriptor)", AVIO_FLAG_WRITE)
        if code >= 0 {
            output.pointee.pb = io
            code = avformat_write_header(output, &options)
        }
        guard code >= 0 else {
            if output.pointee.pb != nil { avio_closep(&output.pointee.pb) }
            throw AudioError(path: displayPath, cause: FFmpeg.writeCause(code))
        }
    }

    /// Gives replaced stream `stream` (not the first) the source it is encoded from; it must deliver exactly that
    /// stream's target frames.
    public func attach(_ source: AudioSource, toStream stream: Int) {
        guard let track = tracks.dropFirst().first(where: { $0.input == stream }) else {
            preconditionFailure("stream \(stream) is not one of the further replaced streams")
        }
        track.source = source
    }

    deinit {
        if !closed, output.pointee.pb != nil { avio_closep(&output.pointee.pb) }
        avformat_free_context(output)
        Glibc.close(descriptor)
    }

    /// The media containers driftfix writes through FFmpeg, by extension.
    public static let extensions = ["m4a", "mp4", "mov", "m4v", "mkv", "mka", "webm", "mxf", "aac"]

    /// Whether a file named `*.ext` is written as a media file through FFmpeg.
    public static func writes(extension ext: String) -> Bool { extensions.contains(ext.lowercased()) }

    /// The output plan for `source` written under `displayPath`'s extension, or why it cannot be exact.
    static func plan(for source: MediaStream, displayPath: String, encoderName: String?) throws(AudioError)
        -> MediaOutputPlan
    {
        guard let format = av_guess_format(nil, displayPath, nil) else {
            throw AudioError(
                path: displayPath, cause: .unsupported("no container is known for this file name's extension"))
        }
        let muxer = String(cString: format.pointee.name)
        let codec = encoderName.map(MediaRewriter.codecName(ofEncoder:)) ?? source.codec
        let encoder = encoderName ?? MediaRewriter.encoderName(forCodec: codec)
        guard let encoder else {
            throw AudioError(
                path: displayPath,
                cause: .unsupported(
                    "driftfix cannot re-encode \(codec); choose another output with --format (flac, wav)"))
        }
        let matroska = ["matroska", "webm"].contains(muxer)
        let iso = ["mp4", "ipod", "mov"].contains(muxer)
        // Where the container has no way to say "the last frame ends early", a decoder delivers the codec's padding:
        // the output could not hold the exact length, so it is refused before any work.
        let inexact =
            (codec == "aac" && (matroska || muxer == "adts")) || (codec == "opus" && iso)
            || (codec == "vorbis" && matroska) || (codec == "mp3" && muxer != "mp3") || codec == "ac3"
            || codec == "eac3"
        if inexact {
            throw AudioError(
                path: displayPath,
                cause: .unsupported(
                    "\(codec) in \(muxer) cannot end on an exact sample (the decoder plays the codec's padding); "
                        + "write it as .m4a/.mp4/.mov (AAC), .webm/.mka/.ogg (Opus), or a lossless copy with --format flac or wav"
                ))
        }
        let lossless = codec.hasPrefix("pcm_") || ["alac", "flac"].contains(codec)
        return MediaOutputPlan(muxer: muxer, encoder: encoder, codec: codec, lossy: !lossless)
    }

    /// The lossless encoder a container named like `displayPath` holds exactly (PCM in MOV and MXF, ALAC in MP4,
    /// FLAC in Matroska); nil where there is none (WebM).
    public static func losslessEncoder(for displayPath: String) -> String? {
        guard let format = av_guess_format(nil, displayPath, nil) else { return nil }
        switch String(cString: format.pointee.name) {
        case "mov", "mxf": return "pcm_s24le"
        case "mp4", "ipod": return "alac"
        case "matroska": return "flac"
        default: return nil
        }
    }

    /// libavcodec's encoder for a codec driftfix re-encodes.
    static func encoderName(forCodec codec: String) -> String? {
        let preferred: [String: [String]] = [
            "aac": ["aac"], "alac": ["alac"], "flac": ["flac"], "opus": ["libopus", "opus"], "vorbis": ["libvorbis"],
            "mp3": ["libmp3lame"],
        ]
        if codec.hasPrefix("pcm_") { return avcodec_find_encoder_by_name(codec) != nil ? codec : nil }
        return preferred[codec]?.first { avcodec_find_encoder_by_name($0) != nil }
    }

    static func codecName(ofEncoder encoder: String) -> String {
        guard let found = avcodec_find_encoder_by_name(encoder) else { return encoder }
        return String(cString: avcodec_get_name(found.pointee.id))
    }

    private static func copySideData(from: UnsafeMutablePointer<AVStream>, to: UnsafeMutablePointer<AVStream>) {
        for index in 0..<Int(from.pointee.nb_side_data) {
            let item = from.pointee.side_data[index]
            guard let data = item.data, item.size > 0, let target = av_stream_new_side_data(to, item.type, item.size)
            else { continue }
            target.update(from: data, count: item.size)
        }
    }

    private static func copyChapters(
        from input: UnsafeMutablePointer<AVFormatContext>, to output: UnsafeMutablePointer<AVFormatContext>
    ) {
        let count = Int(input.pointee.nb_chapters)
        guard count > 0, let chapters = av_calloc(count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.size) else {
            return
        }
        let list = chapters.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: count)
        var made = 0
        for index in 0..<count {
            guard let from = input.pointee.chapters[index],
                let copy = av_mallocz(MemoryLayout<AVChapter>.size)?.bindMemory(to: AVChapter.self, capacity: 1)
            else { continue }
            copy.pointee.id = from.pointee.id
            copy.pointee.time_base = from.pointee.time_base
            copy.pointee.start = from.pointee.start
            copy.pointee.end = from.pointee.end
            av_dict_copy(&copy.pointee.metadata, from.pointee.metadata, 0)
            list[made] = copy
            made += 1
        }
        output.pointee.chapters = list
        output.pointee.nb_chapters = UInt32(made)
    }

    /// Appends `frames` frames of the first replaced stream, the further replaced streams' frames up to the same
    /// point, and the copied streams' packets up to the same time.
    public func write(_ buffer: UnsafePointer<Float>, frames: Int) throws(AudioError) {
        let first = tracks[0]
        try encode(first, buffer, frames: frames)
        framesWritten = first.written
        let progress = Double(first.written) / Double(max(1, first.target))
        for track in tracks.dropFirst() {
            try pull(track, upTo: min(track.target, Int64((Double(track.target) * progress).rounded(.down))))
        }
        let seconds = Double(first.encoder.firstSample + first.written) / Double(first.encoder.sampleRate)
        try copyPackets(upTo: first.encoder is SegmentedAudioEncoder ? min(seconds, audioSeconds) : seconds)
    }

    private func encode(_ track: Track, _ buffer: UnsafePointer<Float>, frames: Int) throws(AudioError) {
        let emit = { (packet: UnsafeMutablePointer<AVPacket>) throws(AudioError) in try self.writeAudio(packet, track) }
        if track.leadIn > 0 {
            // Silence the edit list hides: it makes the stream a whole number of codec frames.
            let lead = track.leadIn
            track.leadIn = 0
            let silence = [Float](repeating: 0, count: lead * track.encoder.channelCount)
            try silence.withUnsafeBufferPointer { samples throws(AudioError) in
                try track.encoder.encode(samples.baseAddress!, frames: lead, emit: emit)
            }
        }
        try track.encoder.encode(buffer, frames: frames, emit: emit)
        track.written += Int64(frames)
    }

    /// Encodes a further stream's frames from its source until it has `frames` in all.
    private func pull(_ track: Track, upTo frames: Int64) throws(AudioError) {
        guard let source = track.source else { return }
        let blockFrames = 8192
        if block.count < blockFrames * track.encoder.channelCount {
            block = [Float](repeating: 0, count: blockFrames * track.encoder.channelCount)
        }
        while track.written < frames {
            let want = Int(min(Int64(blockFrames), frames - track.written))
            let got: Int
            do {
                got = try block.withUnsafeMutableBufferPointer { try source.read(into: $0.baseAddress!, frames: want) }
            } catch let error as AudioError {
                throw error
            } catch {
                throw AudioError(path: displayPath, cause: .writeFailed("stream \(track.input): \(error)"))
            }
            guard got > 0 else {
                throw AudioError(
                    path: displayPath,
                    cause: .writeFailed(
                        "stream \(track.input) delivered \(track.written) of \(track.target) frames"))
            }
            try block.withUnsafeBufferPointer { samples throws(AudioError) in
                try encode(track, samples.baseAddress!, frames: got)
            }
        }
    }

    private func writeAudio(_ packet: UnsafeMutablePointer<AVPacket>, _ track: Track) throws(AudioError) {
        if track === tracks[0], packet.pointee.pts != FFmpeg.noTimestamp {
            audioSeconds = Double(packet.pointee.pts + packet.pointee.duration) / Double(track.encoder.sampleRate)
        }
        packet.pointee.stream_index = track.output.pointee.index
        av_packet_rescale_ts(
            packet, AVRational(num: 1, den: Int32(track.encoder.sampleRate)), track.output.pointee.time_base)
        let code = av_interleaved_write_frame(output, packet)
        guard code >= 0 else { throw AudioError(path: displayPath, cause: FFmpeg.writeCause(code)) }
    }

    /// Copies the other streams' packets whose time is before `seconds` (all of them when nil).
    private func copyPackets(upTo seconds: Double?) throws(AudioError) {
        guard !copied.isEmpty else { return }
        while !copyExhausted {
            if !copyPending {
                guard try input.read(into: copyPacket.pointer) else {
                    copyExhausted = true
                    return
                }
                copyPending = true
            }
            let packet = copyPacket.pointer
            guard let target = copied[Int(packet.pointee.stream_index)] else {
                copyPacket.unref()
                copyPending = false
                continue
            }
            let source = input.stream(Int(packet.pointee.stream_index))
            if let seconds {
                let time = packet.pointee.dts != FFmpeg.noTimestamp ? packet.pointee.dts : packet.pointee.pts
                if time != FFmpeg.noTimestamp && Double(time) * av_q2d(source.pointee.time_base) > seconds { return }
            }
            packet.pointee.stream_index = target.pointee.index
            av_packet_rescale_ts(packet, source.pointee.time_base, target.pointee.time_base)
            packet.pointee.pos = -1
            let code = av_interleaved_write_frame(output, packet)  // takes the packet's data, leaves it blank
            copyPacket.unref()
            copyPending = false
            guard code >= 0 else { throw AudioError(path: displayPath, cause: FFmpeg.writeCause(code)) }
        }
    }

    /// Finishes the further streams, drains the encoders, copies what is left of the other streams, and finishes the
    /// file.
    public func close() throws(AudioError) {
        guard !closed else { return }
        for track in tracks.dropFirst() { try pull(track, upTo: track.target) }
        for track in tracks {
            try track.encoder.finish { (packet: UnsafeMutablePointer<AVPacket>) throws(AudioError) in
                try self.writeAudio(packet, track)
            }
        }
        try copyPackets(upTo: nil)
        var code = av_write_trailer(output)
        let flushed = avio_closep(&output.pointee.pb)
        closed = true
        if code >= 0 { code = flushed }
        guard code >= 0 else { throw AudioError(path: displayPath, cause: FFmpeg.writeCause(code)) }
        guard fsync(descriptor) == 0 else {
            throw AudioError(path: displayPath, cause: AudioFileWriter.cause(forErrno: errno))
        }
    }
}
