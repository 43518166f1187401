import DriftAV
import DriftAudio
import DriftCore
import Foundation

import struct SystemPackage.FilePath

/// A reference's duration, exact, and where it came from.
public struct ReferenceDuration: Sendable, Equatable {
    public let seconds: Rational
    /// "edit list", "media header", "fragments", "audio header", "sidecar", "video timestamps"...
    public let source: String
    /// The finest step the source can state (a Matroska file's 1/1000 s timestamps): the duration is no more
    /// precise than this. Nil where it is exact to the sample or the container's own time scale.
    public var resolution: Rational? = nil
}

/// Reads a reference's duration: MP4/MOV boxes (own parser, exact rationals), an audio file's header (libsndfile), a
/// sidecar file, or through FFmpeg for any other container (Matroska/WebM, MXF, AVI, MPEG-TS...: the video stream's
/// timestamps, or an audio stream's packets).
public enum ReferenceProbe {
    /// Extensions read as ISO base media (QuickTime/MP4) files.
    public static let movieExtensions: Set<String> = ["mov", "mp4", "m4v", "m4a", "3gp", "mqv"]
    /// The sidecar extension: a text file giving the duration exactly.
    public static let sidecarExtension = "duration"

    /// The duration of the reference at `path`.
    public static func duration(of path: String, movieHeaderFallback: Bool = false) -> Result<
        ReferenceDuration, MediaError
    > {
        let ext = FilePath.lowercasedExtension(of: path) ?? ""
        if ext == sidecarExtension { return sidecar(path) }
        if movieExtensions.contains(ext) { return movie(path, movieHeaderFallback: movieHeaderFallback) }
        if AudioInput.library(for: path) == .ffmpeg { return media(path) }
        do {
            let reader = try AudioFileReader(path: path)
            return .success(
                ReferenceDuration(
                    seconds: Rational(reader.frameCount, Int64(reader.format.sampleRate)), source: "audio header"))
        } catch {
            return .failure(MediaError(path: path, reason: "\(error.cause)"))
        }
    }

    /// Through FFmpeg: the first video stream's presentation duration, or the first audio stream's decoded length.
    static func media(_ path: String) -> Result<ReferenceDuration, MediaError> {
        do {
            let info = try MediaProbe.probe(path)
            if !info.videoStreams.isEmpty {
                let video = try MediaProbe.videoDuration(path)
                // A time base of 1/1000 s (Matroska) states the end only to the millisecond.
                let coarse = video.resolution.numerator * 10_000 > video.resolution.denominator
                // The report row says how precise the reference is: "video timestamps (to 1/1000 s)".
                let stated = coarse ? " (to \(video.resolution.numerator)/\(video.resolution.denominator) s)" : ""
                return .success(
                    ReferenceDuration(
                        seconds: video.seconds, source: video.source + stated,
                        resolution: coarse ? video.resolution : nil))
            }
            guard !info.audioStreams.isEmpty else {
                return .failure(MediaError(path: path, reason: "no video or audio stream to take a duration from"))
            }
            let audio = try MediaProbe.audioFrames(path)
            guard let rate = audio.stream.sampleRate, rate > 0, audio.frames > 0 else {
                return .failure(MediaError(path: path, reason: "the audio stream has no samples"))
            }
            return .success(
                ReferenceDuration(seconds: Rational(audio.frames, Int64(rate)), source: "\(audio.stream.codec) packets")
            )
        } catch {
            return .failure(MediaError(path: path, reason: "\(error.cause)"))
        }
    }

    static func movie(_ path: String, movieHeaderFallback: Bool) -> Result<ReferenceDuration, MediaError> {
        do {
            let file = try FileBytes(path: path)
            guard file.size > 0 else { return .failure(MediaError(path: path, reason: "empty file (0 bytes)")) }
            let info = try MovieParser.parse(file)
            switch info.presentationDuration(movieHeaderFallback: movieHeaderFallback) {
            case .success(let (seconds, source)):
                guard seconds.numerator > 0 else { return .failure(MediaError(path: path, reason: "zero duration")) }
                return .success(ReferenceDuration(seconds: seconds, source: source))
            case .failure(let error):
                return .failure(MediaError(path: path, reason: error.description))
            }
        } catch let error as MediaError {
            return .failure(error)
        } catch let error as MovieError {
            return .failure(MediaError(path: path, reason: error.description))
        } catch {
            return .failure(MediaError(path: path, reason: "\(error)"))
        }
    }

    /// A sidecar holds one duration line: seconds as a decimal (`3600.0375`) or a fraction (`108108/30`), or
    /// frames at a rate (`172800000@48000`). Blank lines and `#` comments are ignored.
    static func sidecar(_ path: String) -> Result<ReferenceDuration, MediaError> {
        guard let data = PathText.contents(of: path) else {
            return .failure(
                MediaError(
                    path: path, reason: FilePath(pathText: path).exists ? "cannot be read" : "no such file"
                ))
        }
        guard data.count <= 4096 else { return .failure(MediaError(path: path, reason: "sidecar larger than 4 KiB")) }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map {
                $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            }
            .map { String($0.trimmedWhitespace) }
            .filter { !$0.isEmpty }
        guard lines.count == 1, let line = lines.first else {
            return .failure(MediaError(path: path, reason: "expected exactly one duration line, found \(lines.count)"))
        }
        do {
            let seconds: Rational
            if let at = line.firstIndex(of: "@") {
                guard let frames = Int64(line[..<at].trimmedWhitespace),
                    let rate = Int64(line[line.index(after: at)...].trimmedWhitespace), frames > 0,
                    rate > 0
                else { return .failure(MediaError(path: path, reason: "'\(line)' is not FRAMES@RATE")) }
                seconds = Rational(frames, rate)
            } else {
                seconds = try Rational(parsing: line)
            }
            guard seconds.numerator > 0 else {
                return .failure(MediaError(path: path, reason: "duration must be positive"))
            }
            return .success(ReferenceDuration(seconds: seconds, source: "sidecar"))
        } catch {
            return .failure(MediaError(path: path, reason: error.description))
        }
    }
}
