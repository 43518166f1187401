internal import CSndFile
import Glibc

/// The position a libsndfile virtual-I/O seek asks for (`whence`: SEEK_SET, SEEK_CUR or SEEK_END), or nil for an
/// unknown `whence` or a position before the start, which the callback answers with -1.
func virtualSeekTarget(_ offset: sf_count_t, whence: Int32, position: Int64, length: Int64) -> Int64? {
    let base: Int64
    switch whence {
    case SEEK_SET: base = 0
    case SEEK_CUR: base = position
    case SEEK_END: base = length
    default: return nil
    }
    let target = base + offset
    return target >= 0 ? target : nil
}
