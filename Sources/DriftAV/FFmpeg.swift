internal import CFFmpeg
import DriftAudio
import Glibc

/// FFmpeg's libraries, loaded at first use (a process that only reads WAV never maps them) and set up once: quiet
/// (their log goes to a callback that keeps the last error line for our messages, never to standard error).
enum FFmpeg {
    /// Why the libraries could not be loaded (nil: loaded).
    private static let missing: String? = {
        driftfix_av_load() == 0 ? nil : String(cString: driftfix_av_load_error())
    }()

    /// Whether the libraries are loaded (loading them on the first call).
    static var available: Bool { missing == nil }

    /// Loads the libraries if need be, before any FFmpeg call made about `path`.
    ///
    /// - Throws: `AudioError` naming `path`: FFmpeg's libraries are not installed (or not the version built against).
    static func prepare(for path: String) throws(AudioError) {
        if let missing {
            throw AudioError(path: path, cause: .unsupported("FFmpeg's libraries could not be loaded: \(missing)"))
        }
        driftfix_av_clear_message()
    }

    static let again = driftfix_averror_eagain()
    static let endOfFile = driftfix_averror_eof()
    static let noTimestamp = driftfix_av_nopts()

    /// FFmpeg's text for an error code, with the last message it logged on this thread when that adds detail.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        driftfix_av_strerror(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let message = String(cString: driftfix_av_message())
        return message.isEmpty || message == text ? text : "\(text): \(message)"
    }

    /// The cause for a failed write: the disk, the permissions, or FFmpeg's own words.
    static func writeCause(_ code: Int32) -> AudioError.Cause {
        if code == driftfix_averror_enospc() { return .diskFull }
        if code == driftfix_averror_erofs() || code == -EACCES || code == -EPERM {
            return .destinationNotWritable(describe(code))
        }
        return .writeFailed(describe(code))
    }
}
