import DriftAudio

/// Which library reads a file. libsndfile reads what it knows (WAV/BWF/RF64, AIFF, CAF, FLAC, Ogg, MP3...) with its
/// header checks (a header that hides or invents audio is refused, never read past); FFmpeg reads media containers
/// (M4A/MP4/MOV, Matroska/WebM, MXF, ADTS, AVI, MPEG-TS) and what libsndfile cannot decode inside a container it
/// knows (AAC in CAF) or in a file without a telling extension.
public enum LibraryRoute {
    /// Extensions read through FFmpeg without asking libsndfile.
    public static let mediaExtensions: Set<String> = [
        "m4a", "m4b", "mp4", "m4v", "mov", "3gp", "mkv", "mka", "webm", "mxf", "aac", "adts", "avi", "ts", "mts",
        "m2ts",
    ]

    /// Whether `path` is read through FFmpeg.
    public static func usesFFmpeg(_ path: String) -> Bool {
        let ext =
            path.split(separator: "/").last.map { name in
                name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
            } ?? ""
        if mediaExtensions.contains(ext) { return true }
        // libsndfile's own containers stay with libsndfile, whose refusals stand; CAF may hold a codec it lacks.
        if let type = FileType(extension: ext), type != .caf { return false }
        do {
            _ = try AudioFileReader(path: path)
            return false
        } catch {
            switch error.cause {
            case .notAudio, .unsupported:
                return (try? MediaProbe.probe(path))?.audioStreams.isEmpty == false
            default:
                return false
            }
        }
    }
}
