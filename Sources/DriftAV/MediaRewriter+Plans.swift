internal import CFFmpeg
import DriftAudio

extension MediaRewriter {
    /// The media containers driftfix writes through FFmpeg, by extension.
    public static let extensions = ["m4a", "mp4", "mov", "m4v", "mkv", "mka", "webm", "mxf", "aac"]

    /// Whether a file named `*.ext` is written as a media file through FFmpeg.
    public static func writes(extension ext: String) -> Bool { extensions.contains(ext.lowercased()) }

    /// The output plan for `source` written under `displayPath`'s extension, or why it cannot be exact.
    static func plan(for source: MediaStream, displayPath: String, encoderName: String?) throws(AudioError)
        -> MediaOutputPlan
    {
        guard let format = driftfix_av_guess_format(nil, displayPath, nil) else {
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
        guard FFmpeg.available, let format = driftfix_av_guess_format(nil, displayPath, nil) else { return nil }
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
        if codec.hasPrefix("pcm_") { return driftfix_avcodec_find_encoder_by_name(codec) != nil ? codec : nil }
        return preferred[codec]?.first { driftfix_avcodec_find_encoder_by_name($0) != nil }
    }

    static func codecName(ofEncoder encoder: String) -> String {
        guard let found = driftfix_avcodec_find_encoder_by_name(encoder) else { return encoder }
        return String(cString: driftfix_avcodec_get_name(found.pointee.id))
    }

    static func copySideData(from: UnsafeMutablePointer<AVStream>, to: UnsafeMutablePointer<AVStream>) {
        for index in 0..<Int(from.pointee.nb_side_data) {
            let item = from.pointee.side_data[index]
            guard let data = item.data, item.size > 0,
                let target = driftfix_av_stream_new_side_data(to, item.type, item.size)
            else { continue }
            target.update(from: data, count: item.size)
        }
    }

    static func copyChapters(
        from input: UnsafeMutablePointer<AVFormatContext>, to output: UnsafeMutablePointer<AVFormatContext>
    ) {
        let count = Int(input.pointee.nb_chapters)
        guard count > 0, let chapters = driftfix_av_calloc(count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.size)
        else {
            return
        }
        let list = chapters.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: count)
        var made = 0
        for index in 0..<count {
            guard let from = input.pointee.chapters[index],
                let copy = driftfix_av_mallocz(MemoryLayout<AVChapter>.size)?.bindMemory(
                    to: AVChapter.self, capacity: 1)
            else { continue }
            copy.pointee.id = from.pointee.id
            copy.pointee.time_base = from.pointee.time_base
            copy.pointee.start = from.pointee.start
            copy.pointee.end = from.pointee.end
            driftfix_av_dict_copy(&copy.pointee.metadata, from.pointee.metadata, 0)
            list[made] = copy
            made += 1
        }
        output.pointee.chapters = list
        output.pointee.nb_chapters = UInt32(made)
    }
}
