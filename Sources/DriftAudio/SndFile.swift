internal import CSndFile
import DriftCore
import Foundation
import Glibc
import Synchronization

// Raw libsndfile calls and the conversions between C values and Swift types live here, in one place.
enum SndFile {
    /// A failed open reports through one process-wide variable (`sf_error(NULL)`), which every open resets to 0 as it
    /// begins (a text file called .wav was once "corrupt or truncated header (No Error.)" while other files were
    /// probed): every open runs under this lock, and a failure's error is read before it is released. An open that
    /// bypasses it (libsndfile called directly elsewhere in the process; a test once did) can still reset the error:
    /// a failure that finds 0 there says its reason was lost (`openFailure`), never "No Error.".
    private static let openLock = Mutex(())

    /// An open failure as libsndfile stated it: its code and text, and `errno` at the time.
    struct OpenError: Error {
        let code: Int32
        let text: String
        let systemErrno: Int32
    }

    /// Runs `open` (an `sf_open*` call) under the open lock; on failure, its error as it was right after the call.
    static func open(_ open: () -> OpaquePointer?) -> Result<OpaquePointer, OpenError> {
        openLock.withLock { _ in
            if let handle = open() { return .success(handle) }
            let systemErrno = errno
            let (code, text) = lastError(nil)
            return .failure(OpenError(code: code, text: text, systemErrno: systemErrno))
        }
    }

    /// libsndfile's last error for `handle` (or the global open error when nil), as code and text.
    static func lastError(_ handle: OpaquePointer?) -> (code: Int32, text: String) {
        let code = sf_error(handle)
        let text = sf_strerror(handle).map { String(cString: $0) } ?? "unknown libsndfile error \(code)"
        return (code, text)
    }

    /// Maps a failed `sf_open` to a cause.
    static func openFailure(path: String, _ error: OpenError) -> AudioError {
        let (code, text, systemErrno) = (error.code, error.text, error.systemErrno)
        let cause: AudioError.Cause
        switch Int(code) {
        case SF_ERR_NO_ERROR:
            cause = .readFailed(
                "libsndfile refused it and its reason was lost: libsndfile was opened elsewhere in this process at that "
                    + "moment")
        case SF_ERR_UNRECOGNISED_FORMAT:
            cause = .notAudio("libsndfile does not recognise its format")
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

    /// The data size a header claimed when libsndfile found the file shorter, from its parse log
    /// ("data : 2880000 (should be 99920)"); nil when the sizes agreed.
    static func claimedDataBytes(_ handle: OpaquePointer) -> Int64? {
        var log = [CChar](repeating: 0, count: 16 * 1024)
        let length = log.withUnsafeMutableBufferPointer { buffer in
            Int(sf_command(handle, Int32(SFC_GET_LOG_INFO), buffer.baseAddress, Int32(buffer.count - 1)))
        }
        guard length > 0 else { return nil }
        // "    data : 1000 (should be 800)": by bytes, as every file of a scan is asked (the standard library's
        // generic substring search cost more than opening the file).
        let bytes = log.prefix(length).map { UInt8(bitPattern: $0) }
        let marker = Array("(should be".utf8)
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            defer { start = end + 1 }
            let line = bytes[start..<end]
            guard line.indices.contains(where: { line[$0...].starts(with: marker) }),
                let colon = line.firstIndex(of: UInt8(ascii: ":"))
            else { continue }
            let chunk = String(decoding: line[..<colon], as: UTF8.self).trimmedWhitespace
            guard chunk == "data" || chunk == "SSND" else { continue }
            let rest = line[(colon + 1)...]
            let number = String(
                decoding: rest[..<(rest.firstIndex(of: UInt8(ascii: "(")) ?? rest.endIndex)], as: UTF8.self)
            if let claimed = Int64(number.trimmedWhitespace) { return claimed }
        }
        return nil
    }

    /// The channel positions libsndfile read from the file's header (WAVEX mask, CAF layout, ...), if it has any.
    static func readChannelMap(_ handle: OpaquePointer, channels: Int) -> [Int32]? {
        var map = [Int32](repeating: 0, count: channels)
        let found = map.withUnsafeMutableBytes { raw in
            sf_command(handle, Int32(SFC_GET_CHANNEL_MAP_INFO), raw.baseAddress, Int32(raw.count))
        }
        return found == SF_TRUE ? map : nil
    }

    /// Asks libsndfile to write these channel positions; false when the container cannot say them.
    static func writeChannelMap(_ handle: OpaquePointer, _ positions: [Int32]) -> Bool {
        var map = positions
        return map.withUnsafeMutableBytes { raw in
            sf_command(handle, Int32(SFC_SET_CHANNEL_MAP_INFO), raw.baseAddress, Int32(raw.count))
        } == SF_TRUE
    }

    /// The block converter for `handle`'s integer samples in the file's byte order; nil where libsndfile converts
    /// (floats, 8-bit, compressed encodings).
    static func codec(_ handle: OpaquePointer, encoding: SampleEncoding) -> PCMCodec? {
        // libsndfile's own answer to "are the file's bytes the other way round from this machine's".
        let swapped = sf_command(handle, Int32(SFC_RAW_DATA_NEEDS_ENDSWAP), nil, 0) == SF_TRUE
        #if _endian(big)
            return PCMCodec(encoding: encoding, bigEndian: !swapped)
        #else
            return PCMCodec(encoding: encoding, bigEndian: swapped)
        #endif
    }

    static func setClipping(_ handle: OpaquePointer) {
        // Resampling makes inter-sample peaks above full scale; without clipping libsndfile wraps them around
        // when converting float to integer samples, which turns a small over into a full-scale click.
        _ = sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }
}

extension SndFile {
    /// The payload of the first chunk named `id` (a WAV or AIFF chunk libsndfile kept while parsing, such as `iXML`),
    /// or nil when there is none or it is larger than `limit` bytes.
    static func readChunk(_ handle: OpaquePointer, id: String, limit: Int) -> [UInt8]? {
        var info = SF_CHUNK_INFO()
        let idBytes = Array(id.utf8.prefix(63))
        withUnsafeMutableBytes(of: &info.id) { raw in
            for (index, byte) in idBytes.enumerated() { raw[index] = byte }
        }
        info.id_size = UInt32(idBytes.count)
        guard let iterator = sf_get_chunk_iterator(handle, &info) else { return nil }
        var sized = SF_CHUNK_INFO()
        guard Int(sf_get_chunk_size(iterator, &sized)) == SF_ERR_NO_ERROR, sized.datalen > 0,
            Int(sized.datalen) <= limit
        else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: Int(sized.datalen))
        let status = bytes.withUnsafeMutableBytes { raw -> Int32 in
            sized.data = raw.baseAddress
            return sf_get_chunk_data(iterator, &sized)
        }
        return Int(status) == SF_ERR_NO_ERROR ? bytes : nil
    }
}
