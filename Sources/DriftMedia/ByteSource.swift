import DriftCore
import Foundation

/// Random-access bytes: a file read with `pread` (headers only, never the media data) or a buffer in memory
/// (tests and fuzzing).
public protocol ByteSource {
    /// Total size in bytes.
    var size: Int64 { get }
    /// Exactly `count` bytes at `offset`, or nil when they are not all there.
    func read(at offset: Int64, count: Int) throws(MediaError) -> [UInt8]?
}

/// Bytes in memory.
public struct MemoryBytes: ByteSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: Int64 { Int64(bytes.count) }

    public func read(at offset: Int64, count: Int) throws(MediaError) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset + Int64(count) <= size else { return nil }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

/// A file read by offset; the descriptor is closed when the value is released.
public final class FileBytes: ByteSource {
    public let path: String
    public let size: Int64
    private let descriptor: Int32

    /// Opens `path` read-only.
    public init(path: String) throws(MediaError) {
        self.path = path
        let fd = PathText.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MediaError(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw MediaError(path: path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw MediaError(path: path, reason: "not a regular file")
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit {
        close(descriptor)
    }

    public func read(at offset: Int64, count: Int) throws(MediaError) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset + Int64(count) <= size else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw MediaError(path: path, reason: "read failed: \(String(cString: strerror(errno)))")
            }
            if got == 0 { return nil }
            done += got
        }
        return buffer
    }
}

/// A reference that cannot be probed: names the file and the cause.
public struct MediaError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}
