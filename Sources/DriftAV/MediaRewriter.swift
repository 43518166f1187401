internal import CFFmpeg
import DriftAudio
import DriftCore
import Glibc

public import struct SystemPackage.FilePath

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

    package let displayPath: String
    public var destination: FilePath { FilePath(pathText: displayPath) }
    /// Frames of the first replaced stream accepted so far (the one `write` receives).
    public private(set) var framesWritten: Int64 = 0
    public let plan: MediaOutputPlan
    /// Streams of the input the output container cannot hold (dropped, and said).
    public internal(set) var droppedStreams: [String] = []
    /// Input stream index → output stream index, for the copied streams.
    public var copiedStreams: [Int: Int] { copied.mapValues { Int($0.pointee.index) } }
    /// Input stream index → output stream index, for the replaced streams.
    public var replacedStreams: [Int: Int] { tracks.reduce(into: [:]) { $0[$1.input] = Int($1.output.pointee.index) } }
    /// Segments the first replaced stream was encoded in, on threads of their own (1: one pass).
    public var encodedSegments: Int { (tracks.first?.encoder as? SegmentedAudioEncoder)?.segmentCount ?? 1 }
    /// The first replaced stream's index in the output.
    public var audioStreamIndex: Int { Int(tracks[0].output.pointee.index) }

    /// One replaced stream: its encoder, its output stream, and (beyond the first) the source it is pulled from.
    final class Track {
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
    let descriptor: Int32
    let input: Demuxer
    let output: UnsafeMutablePointer<AVFormatContext>
    private var tracks: [Track] = []
    /// Input stream index → output stream, for copied streams.
    var copied: [Int: UnsafeMutablePointer<AVStream>] = [:]
    /// Made at first use: a stored property's initial value would call FFmpeg before `init` opened the input (the
    /// libraries are loaded there).
    private lazy var copyPacket = Packet()
    /// `copyPacket` holds a packet read but not yet written (it lies after the new audio's time so far).
    private var copyPending = false
    private var copyExhausted = false
    private var closed = false
    private var block: [Float] = []
    /// Threads an AAC stream may be encoded on, in segments (`SegmentedAudioEncoder`).
    let threads: Int
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
        let allocated = driftfix_avformat_alloc_output_context2(&context, nil, plan.muxer, path)
        guard allocated >= 0, let context else {
            Glibc.close(fd)
            if ownsName { PathText.withCString(path, { unlink($0) }) }
            throw AudioError(path: displayPath, cause: .unsupported("no \(plan.muxer) muxer in this FFmpeg build"))
        }
        output = context
        do {
            try build(replacing: replacing, plans: plans)
        } catch {
            driftfix_avformat_free_context(context)
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
        driftfix_av_dict_copy(&output.pointee.metadata, input.context.pointee.metadata, 0)
        MediaRewriter.copyChapters(from: input.context, to: output)
        input.discardAll(except: Set(copied.keys))
        try writeHeader(iso: iso, sampleRate: replacing[0].sampleRate)
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
        if !closed, output.pointee.pb != nil { driftfix_avio_closep(&output.pointee.pb) }
        driftfix_avformat_free_context(output)
        Glibc.close(descriptor)
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
        driftfix_av_packet_rescale_ts(
            packet, AVRational(num: 1, den: Int32(track.encoder.sampleRate)), track.output.pointee.time_base)
        let code = driftfix_av_interleaved_write_frame(output, packet)
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
            driftfix_av_packet_rescale_ts(packet, source.pointee.time_base, target.pointee.time_base)
            packet.pointee.pos = -1
            let code = driftfix_av_interleaved_write_frame(output, packet)  // takes the packet's data, leaves it blank
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
        var code = driftfix_av_write_trailer(output)
        let flushed = driftfix_avio_closep(&output.pointee.pb)
        closed = true
        if code >= 0 { code = flushed }
        guard code >= 0 else { throw AudioError(path: displayPath, cause: FFmpeg.writeCause(code)) }
        guard fsync(descriptor) == 0 else {
            throw AudioError(path: displayPath, cause: AudioFileWriter.cause(forErrno: errno))
        }
    }
}
