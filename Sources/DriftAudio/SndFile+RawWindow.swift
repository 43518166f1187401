internal import CSndFile
import DriftCore
import Glibc

/// A window of a file - its audio data, from `start` for `length` bytes - that libsndfile reads as headerless RAW
/// audio through its virtual I/O interface. This is how a WAV whose 32-bit data size wrapped past 4 GiB is read to
/// its true end: libsndfile's own sample conversions, without its header's lie.
final class RawWindow: VirtualSoundFile {
    private let descriptor: Int32
    private let start: Int64

    /// Takes ownership of `descriptor`.
    init(descriptor: Int32, start: Int64, length: Int64) {
        self.descriptor = descriptor
        self.start = start
        super.init(length: length)
    }

    deinit {
        close(descriptor)
    }

    /// Opens the window as RAW audio of `encoding` in `order`, `channels` × `sampleRate`. The window must outlive the
    /// returned handle.
    func open(encoding: SampleEncoding, order: ContainerLayout.SampleByteOrder, sampleRate: Int, channels: Int)
        -> OpaquePointer?
    {
        var info = SF_INFO()
        info.format =
            Int32(SF_FORMAT_RAW) | encoding.code
            | (order == .little ? Int32(SF_ENDIAN_LITTLE) : Int32(SF_ENDIAN_BIG))
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        return try? open(.read, &info).get()
    }

    override func read(into buffer: UnsafeMutableRawPointer, count wanted: Int64, at position: Int64) -> Int64 {
        var done: Int64 = 0
        while done < wanted {
            let got = pread(descriptor, buffer + Int(done), Int(wanted - done), off_t(start + position + done))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            done += Int64(got)
        }
        return done
    }
}

/// `pread` access to an open file for the header walker.
struct DescriptorBytes: ByteReading {
    let descriptor: Int32
    let size: Int64

    func bytes(at offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset + Int64(count) <= size else { return nil }
        var result = [UInt8](repeating: 0, count: count)
        let complete = result.withUnsafeMutableBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }
            return PositionedIO.read(descriptor, into: base, count: count, at: offset)
        }
        guard complete else { return nil }
        return result
    }
}
