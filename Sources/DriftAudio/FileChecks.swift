import DriftCore
import Glibc

/// What sits at a path, as `lstat` sees it (a symbolic link is itself, not its target).
public enum FileKind: Equatable, Sendable, CustomStringConvertible {
    case regular, directory, symbolicLink, fifo, socket, characterDevice, blockDevice, other

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .other
        }
    }

    public var description: String {
        switch self {
        case .regular: return "a regular file"
        case .directory: return "a directory"
        case .symbolicLink: return "a symbolic link"
        case .fifo: return "a FIFO (named pipe)"
        case .socket: return "a socket"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .other: return "a special file"
        }
    }
}

// Checks on paths made before libsndfile (or FFmpeg) sees them, so each failure gets a precise cause instead of a
// library's generic "System error".
public enum FileChecks {
    /// Opens `path` for reading as a regular file: non-blocking and without a controlling terminal, so a FIFO or a
    /// device is refused by `fstat` instead of hanging the open or touching the device; then back to blocking reads.
    ///
    /// - Returns: the descriptor (the caller closes it) and the file's size.
    public static func openRegularFile(_ path: String) throws(AudioError) -> (descriptor: Int32, size: Int64) {
        let descriptor = PathText.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: throw AudioError(path: path, cause: .notFound)
            case EACCES, EPERM: throw AudioError(path: path, cause: .permissionDenied)
            case ENXIO: throw AudioError(path: path, cause: .notRegularFile(.socket))
            default: throw AudioError(path: path, cause: .readFailed(errnoText(code)))
            }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw AudioError(path: path, cause: .readFailed(errnoText(code)))
        }
        let kind = FileKind(mode: info.st_mode)
        guard kind == .regular else {
            close(descriptor)
            throw AudioError(path: path, cause: kind == .directory ? .isDirectory : .notRegularFile(kind))
        }
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        guard info.st_size > 0 else {
            close(descriptor)
            throw AudioError(path: path, cause: .emptyFile)
        }
        return (descriptor, Int64(info.st_size))
    }

    /// What is at `path` without following a final symbolic link; nil when nothing is there.
    static func kind(atNoFollow path: String) -> FileKind? {
        var info = stat()
        guard PathText.withCString(path, { lstat($0, &info) }) == 0 else { return nil }
        return FileKind(mode: info.st_mode)
    }

    /// Whether two paths name the same existing file (same device and inode).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard PathText.withCString(a, { stat($0, &sa) }) == 0, PathText.withCString(b, { stat($0, &sb) }) == 0 else {
            return false
        }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// Whole reads and writes at an offset (pread/pwrite until done, retried on EINTR), used to check and patch headers.
enum PositionedIO {
    static func read(_ descriptor: Int32, into base: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Bool {
        transfer(count) { done in pread(descriptor, base + done, count - done, off_t(offset) + off_t(done)) }
    }

    static func write(_ descriptor: Int32, from base: UnsafeRawPointer, count: Int, at offset: Int64) -> Bool {
        transfer(count) { done in pwrite(descriptor, base + done, count - done, off_t(offset) + off_t(done)) }
    }

    /// Writes `bytes` at `offset`.
    static func write(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int64) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            return write(descriptor, from: base, count: raw.count, at: offset)
        }
    }

    private static func transfer(_ count: Int, _ step: (Int) -> Int) -> Bool {
        var done = 0
        while done < count {
            let moved = step(done)
            if moved < 0 && errno == EINTR { continue }
            guard moved > 0 else { return false }
            done += moved
        }
        return true
    }
}
