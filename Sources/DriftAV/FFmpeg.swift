internal import CFFmpeg
import DriftAudio
import Glibc

/// FFmpeg's libraries, set up once: quiet (their log goes to a callback that keeps the last error line for our
/// messages, never to standard error).
enum FFmpeg {
    private static let setUp: Void = { driftfix_av_quiet() }()

    static func prepare() {
        _ = setUp
        driftfix_av_clear_message()
    }

    static let again = driftfix_averror_eagain()
    static let endOfFile = driftfix_averror_eof()
    static let noTimestamp = driftfix_av_nopts()

    /// FFmpeg's text for an error code, with the last message it logged on this thread when that adds detail.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
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
