internal import CSndFile
import DriftCore
import Glibc

/// The audio region of an output whose container driftfix lays out itself (`ChunkedLayout`), written by libsndfile as
/// headerless RAW audio through its virtual I/O: from `start` on, as far as the samples go. libsndfile converts
/// and clips; the container around the samples is driftfix's.
final class OutputWindow: VirtualSoundFile {
    private let descriptor: Int32
    private let start: Int64
    /// `errno` of the first failed write (ENOSPC on a full disk), or 0.
    private(set) var failure: Int32 = 0

    /// Writes into `descriptor` (which stays the caller's) from `start`.
    init(descriptor: Int32, start: Int64) {
        self.descriptor = descriptor
        self.start = start
        super.init(length: 0)
    }

    /// A libsndfile handle writing RAW `encoding` samples in this byte order; the window must outlive it.
    func open(encoding: SampleEncoding, bigEndian: Bool, sampleRate: Int, channels: Int) -> OpaquePointer? {
        var info = SF_INFO()
        info.format = Int32(SF_FORMAT_RAW) | encoding.code | Int32(bigEndian ? SF_ENDIAN_BIG : SF_ENDIAN_LITTLE)
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        return try? open(.write, &info).get()
    }

    override func write(_ buffer: UnsafeRawPointer, count: Int64, at offset: Int64) -> Int64 {
        var done: Int64 = 0
        while done < count {
            let moved = pwrite(descriptor, buffer + Int(done), Int(count - done), off_t(start + offset + done))
            if moved < 0 && errno == EINTR { continue }
            guard moved > 0 else {
                if failure == 0 { failure = moved < 0 ? errno : ENOSPC }
                break
            }
            done += Int64(moved)
        }
        return done
    }
}
