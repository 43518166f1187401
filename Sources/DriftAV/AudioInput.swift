import DriftAudio
import DriftCore

import struct SystemPackage.FilePath

/// The one place that decides which library reads an audio input and that opens and counts it.
///
/// libsndfile reads what it knows (WAV/BWF/RF64, AIFF, CAF, FLAC, Ogg, MP3...) with its header checks (a header that
/// hides or invents audio is refused, never read past); FFmpeg reads media containers (M4A/MP4/MOV, Matroska/WebM,
/// MXF, ADTS, AVI, MPEG-TS) and what libsndfile cannot decode inside a container it knows (AAC in CAF) or in a file
/// without a telling extension.
///
/// A length comes two ways, each for its use: `length(of:)` is exact (libsndfile's header, which it checks against the
/// file, or FFmpeg's decoded count) and is what repairs and verification rely on; the scan's view of a whole tree
/// (DriftMedia's `RecordingProbe`) and `stillHolds` read headers and packets without decoding (`MediaProbe.audioFrames`).
/// For well-formed files both agree (tests prove it per codec); where they could differ, the exact one decides.
public enum AudioInput {
    /// The library that reads a file.
    public enum Library: Sendable, Equatable {
        case libsndfile
        case ffmpeg
    }

    /// Extensions read through FFmpeg without asking libsndfile.
    public static let mediaExtensions: Set<String> = [
        "m4a", "m4b", "mp4", "m4v", "mov", "3gp", "mkv", "mka", "webm", "mxf", "aac", "adts", "avi", "ts", "mts",
        "m2ts",
    ]

    /// The library that reads `path`.
    public static func library(for path: String) -> Library {
        let ext = FilePath.lowercasedExtension(of: path) ?? ""
        if mediaExtensions.contains(ext) { return .ffmpeg }
        // libsndfile's own containers stay with libsndfile, whose refusals stand; CAF may hold a codec it lacks.
        if let type = FileType(extension: ext), type != .caf { return .libsndfile }
        do {
            _ = try AudioFileReader(path: path)
            return .libsndfile
        } catch {
            switch error.cause {
            case .notAudio, .unsupported:
                return (try? MediaProbe.probe(path))?.audioStreams.isEmpty == false ? .ffmpeg : .libsndfile
            default:
                return .libsndfile
            }
        }
    }

    /// The exact frames `path` holds and its sample rate: libsndfile's checked header, or FFmpeg's decoded count.
    public static func length(of path: String, stream: Int? = nil) throws(AudioError) -> (
        frames: Int64, sampleRate: Int
    ) {
        switch library(for: path) {
        case .libsndfile:
            let reader = try AudioFileReader(path: path)
            return (reader.frameCount, reader.format.sampleRate)
        case .ffmpeg:
            let reader = try EncodedAudioReader(path: path, stream: stream)
            return (reader.frameCount, reader.sampleRate)
        }
    }

    /// Whether an output written and verified earlier still holds `frames` frames: libsndfile's reopened and checked
    /// header for what it writes; for compressed media, the packets' count (its size and time, checked by the caller,
    /// show it unchanged since it was decoded and verified; decoding every output each night would cost a repair).
    public static func stillHolds(_ path: String, frames: Int64) -> Bool {
        switch library(for: path) {
        case .libsndfile: return (try? AudioFileVerifier.verify(path: path, expectedFrames: frames))?.passed == true
        case .ffmpeg: return (try? MediaProbe.audioFrames(path))?.frames == frames
        }
    }

    /// `path`'s audio for analysis that reads it to the end (content measurement): its sample rate, and how to open
    /// it from its start as often as the analysis needs. A media file is decoded once per opening, without the
    /// counting pass an exact length needs.
    public static func stream(_ path: String, stream: Int? = nil) throws(AudioError) -> (
        sampleRate: Int, open: () throws(AudioError) -> any AudioSource
    ) {
        switch library(for: path) {
        case .libsndfile:
            let probe = try AudioFileReader(path: path)
            return (probe.format.sampleRate, { () throws(AudioError) in try AudioFileReader(path: path) })
        case .ffmpeg:
            let probe = try DecodedAudioStream(path: path, stream: stream)
            return (probe.sampleRate, { () throws(AudioError) in try DecodedAudioStream(path: path, stream: stream) })
        }
    }
}
