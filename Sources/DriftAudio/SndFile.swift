internal import CSndFile
import Glibc

// Raw libsndfile calls and the conversions between C values and Swift types live here, in one place.
enum SndFile {
    /// libsndfile's last error for `handle` (or the global open error when nil), as code and text.
    static func lastError(_ handle: OpaquePointer?) -> (code: Int32, text: String) {
        let code = sf_error(handle)
        let text = sf_strerror(handle).map { String(cString: $0) } ?? "unknown libsndfile error \(code)"
        return (code, text)
    }

    /// Maps a failed `sf_open` to a cause, reading libsndfile's error state right after the call.
    static func openFailure(path: String, systemErrno: Int32) -> AudioError {
        let (code, text) = lastError(nil)
        let cause: AudioError.Cause
        switch Int(code) {
        case SF_ERR_UNRECOGNISED_FORMAT:
            cause = .notAudio("format not recognised")
        case SF_ERR_MALFORMED_FILE:
            cause = .corrupt(text)
        case SF_ERR_UNSUPPORTED_ENCODING:
            cause = .unsupported(text)
        case SF_ERR_SYSTEM:
            cause = systemErrno == EACCES ? .permissionDenied : .readFailed(text)
        default:
            // libsndfile reports many header problems with specific codes above 4 ("Error in WAV file..."):
            // they are all damage to the file's structure.
            cause = .corrupt(text)
        }
        return AudioError(path: path, cause: cause)
    }

    static func readTags(_ handle: OpaquePointer) -> [AudioTag: String] {
        var tags: [AudioTag: String] = [:]
        for tag in AudioTag.allCases {
            if let value = sf_get_string(handle, tag.rawValue) {
                let text = String(cString: value)
                if !text.isEmpty { tags[tag] = text }
            }
        }
        return tags
    }

    /// Writes the tags the container accepts; returns the ones it refused.
    static func writeTags(_ handle: OpaquePointer, _ tags: [AudioTag: String]) -> [AudioTag] {
        var refused: [AudioTag] = []
        for (tag, value) in tags.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if sf_set_string(handle, tag.rawValue, value) != 0 { refused.append(tag) }
        }
        return refused
    }

    static func readChannelMap(_ handle: OpaquePointer, channels: Int) -> [Int32]? {
        var map = [Int32](repeating: 0, count: channels)
        let ok = map.withUnsafeMutableBytes { bytes in
            sf_command(handle, Int32(SFC_GET_CHANNEL_MAP_INFO), bytes.baseAddress, Int32(bytes.count))
        }
        return ok == SF_TRUE ? map : nil
    }

    static func writeChannelMap(_ handle: OpaquePointer, _ map: [Int32]) -> Bool {
        var copy = map
        return copy.withUnsafeMutableBytes { bytes in
            sf_command(handle, Int32(SFC_SET_CHANNEL_MAP_INFO), bytes.baseAddress, Int32(bytes.count))
        } == SF_TRUE
    }

    static func setClipping(_ handle: OpaquePointer) {
        // Resampling makes inter-sample peaks above full scale; without clipping libsndfile wraps them around
        // when converting float to integer samples, which turns a small over into a full-scale click.
        _ = sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }
}
