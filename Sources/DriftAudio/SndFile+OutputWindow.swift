internal import CSndFile
import DriftCore
import Glibc

/// The audio region of an output whose container driftfix lays out itself (`ChunkedLayout`), written by libsndfile as
/// headerless RAW audio through its virtual I/O: from `start` on, as far as the samples go. libsndfile converts
/// and clips; the container around the samples is driftfix's.
final class OutputWindow {
    private let descriptor: Int32
    private let start: Int64
    private var position: Int64 = 0
    /// Bytes of audio written so far (the furthest write).
    private(set) var length: Int64 = 0
    /// `errno` of the first failed write (ENOSPC on a full disk), or 0.
    private(set) var failure: Int32 = 0

    /// Writes into `descriptor` (which stays the caller's) from `start`.
    init(descriptor: Int32, start: Int64) {
        self.descriptor = descriptor
        self.start = start
    }

    /// A libsndfile handle writing RAW `encoding` samples in this byte order; the window must outlive it.
    func open(encoding: SampleEncoding, bigEndian: Bool, sampleRate: Int, channels: Int) -> OpaquePointer? {
        var info = SF_INFO()
        info.format = Int32(SF_FORMAT_RAW) | encoding.code | Int32(bigEndian ? SF_ENDIAN_BIG : SF_ENDIAN_LITTLE)
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in OutputWindow.from(user).length },
            seek: { offset, whence, user in OutputWindow.from(user).seek(offset, whence: whence) },
            read: { _, _, _ in 0 },
            write: { buffer, count, user in OutputWindow.from(user).write(buffer, count: count) },
            tell: { user in OutputWindow.from(user).position })
        let context = Unmanaged.passUnretained(self).toOpaque()
        return try? SndFile.open { sf_open_virtual(&io, Int32(SFM_WRITE), &info, context) }.get()
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> OutputWindow {
        guard let user else { preconditionFailure("libsndfile called a virtual I/O callback without its context") }
        return Unmanaged<OutputWindow>.fromOpaque(user).takeUnretainedValue()
    }

    private func seek(_ offset: sf_count_t, whence: Int32) -> sf_count_t {
        guard let target = virtualSeekTarget(offset, whence: whence, position: position, length: length) else {
            return -1
        }
        position = target
        return position
    }

    private func write(_ buffer: UnsafeRawPointer?, count: sf_count_t) -> sf_count_t {
        guard let buffer, count > 0 else { return 0 }
        var done: Int64 = 0
        while done < count {
            let moved = pwrite(descriptor, buffer + Int(done), Int(count - done), off_t(start + position + done))
            if moved < 0 && errno == EINTR { continue }
            guard moved > 0 else {
                if failure == 0 { failure = moved < 0 ? errno : ENOSPC }
                break
            }
            done += Int64(moved)
        }
        position += done
        length = max(length, position)
        return done
    }
}
