internal import CSndFile
import Glibc

/// Bytes libsndfile reads or writes through its virtual I/O interface instead of a file of its own: a view of a
/// file's chunks, a window of its audio data, the audio region of an output laid out by driftfix. A subclass moves the
/// bytes; opening, the callbacks, the position, the length and seeking are here, once.
class VirtualSoundFile {
    /// How many bytes there are (for an output: the furthest written).
    private(set) var length: Int64
    /// Where libsndfile reads or writes next.
    private(set) var position: Int64 = 0

    init(length: Int64) {
        self.length = length
    }

    /// Reads up to `count` bytes (at least 1, none past the end) at `offset` into `buffer`; how many it read, 0 for
    /// an error or an early end.
    func read(into buffer: UnsafeMutableRawPointer, count: Int64, at offset: Int64) -> Int64 { 0 }

    /// Writes `count` bytes (at least 1) from `buffer` at `offset`; how many it wrote (fewer: an error).
    func write(_ buffer: UnsafeRawPointer, count: Int64, at offset: Int64) -> Int64 { 0 }

    enum Mode {
        case read, write
    }

    /// Opens the bytes with libsndfile (`info`: zeros to read a header, or what RAW audio they hold). The file must
    /// outlive the returned handle.
    final func open(_ mode: Mode, _ info: inout SF_INFO) -> Result<OpaquePointer, SndFile.OpenError> {
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in VirtualSoundFile.from(user).length },
            seek: { offset, whence, user in VirtualSoundFile.from(user).seek(offset, whence: whence) },
            read: { buffer, count, user in VirtualSoundFile.from(user).read(into: buffer, count: count) },
            write: { buffer, count, user in VirtualSoundFile.from(user).write(buffer, count: count) },
            tell: { user in VirtualSoundFile.from(user).position })
        let context = Unmanaged.passUnretained(self).toOpaque()
        let code = Int32(mode == .read ? SFM_READ : SFM_WRITE)
        return SndFile.open { sf_open_virtual(&io, code, &info, context) }
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> VirtualSoundFile {
        guard let user else { preconditionFailure("libsndfile called a virtual I/O callback without its context") }
        return Unmanaged<VirtualSoundFile>.fromOpaque(user).takeUnretainedValue()
    }

    /// `whence`: SEEK_SET, SEEK_CUR or SEEK_END; -1 for another or for a position before the start.
    private func seek(_ offset: sf_count_t, whence: Int32) -> sf_count_t {
        let base: Int64
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = length
        default: return -1
        }
        guard base + offset >= 0 else { return -1 }
        position = base + offset
        return position
    }

    private func read(into buffer: UnsafeMutableRawPointer?, count: sf_count_t) -> sf_count_t {
        guard let buffer, count > 0, position < length else { return 0 }
        let done = read(into: buffer, count: min(count, length - position), at: position)
        position += done
        return done
    }

    private func write(_ buffer: UnsafeRawPointer?, count: sf_count_t) -> sf_count_t {
        guard let buffer, count > 0 else { return 0 }
        let done = write(buffer, count: count, at: position)
        position += done
        length = max(length, position)
        return done
    }
}
