import DriftCore
import Glibc

/// How driftfix tells a temporary file whose writer still lives from the leftover of a dead one.
///
/// Every writer holds an exclusive `flock` on its own temporary file from the moment it creates the file until the
/// file is renamed into place or deleted. The kernel drops the lock when the writer's last descriptor closes, which
/// happens however the writer ends: a killed process that is still a zombie (its parent or init has not reaped it yet)
/// has already closed its descriptors, and a process that later reuses the writer's pid holds no lock on the file. So
/// whoever can take the lock knows the writer is gone, and deletes the file while holding it; the pid in the file's
/// name is there for people reading a directory listing.
///
/// Where a file system cannot lock (`flock` fails with `ENOLCK` or `EINVAL`: some FUSE file systems, NFS mounted with
/// `nolock`) the decision falls back to the writer's pid, with zombies counted as dead (`ProcessLiveness`).
enum WriterLock {
    /// What taking a temporary file's lock without waiting said about its writer.
    enum Probe {
        /// Another descriptor holds the lock: the writer lives (or, on a network file system, a writer elsewhere).
        case held
        /// The lock was taken: the writer is gone. The descriptor holds the lock until it is closed.
        case abandoned(descriptor: Int32)
        /// Nothing is at the path any more.
        case gone
        /// The file could not be opened or locked here (no permission, no lock support): the lock cannot tell.
        case undecided
    }

    /// Creates `path` exclusively (never through a link) and takes its lock, waiting if a sweep holds it for a moment.
    ///
    /// - Returns: the descriptor holding the lock (the caller closes it once the file is renamed or deleted), or the
    ///   `errno` of the failure; `EAGAIN` when a sweep removed the new file before its lock was taken (pick another
    ///   name and try again).
    static func create(_ path: String) -> Result<Int32, Errno> {
        let descriptor = PathText.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return .failure(Errno(errno)) }
        var locked = false
        while true {
            if flock(descriptor, LOCK_EX) == 0 {
                locked = true
                break
            }
            // No lock support on this file system: the writer is then known by its pid alone.
            if errno != EINTR { break }
        }
        // Between the exclusive create and the lock, a sweep may have taken the lock of this still-empty file and
        // deleted it: the descriptor then names a file that no longer has a name.
        var info = stat()
        if locked && fstat(descriptor, &info) == 0 && info.st_nlink == 0 {
            close(descriptor)
            return .failure(Errno(EAGAIN))
        }
        return .success(descriptor)
    }

    /// Tries to take the lock of the temporary file at `path` without waiting (never following a link).
    static func probe(_ path: String) -> Probe {
        let descriptor = PathText.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? .gone : .undecided }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return .abandoned(descriptor: descriptor) }
        let code = errno
        close(descriptor)
        return code == EWOULDBLOCK ? .held : .undecided
    }

    /// Deletes the abandoned file at `path` whose lock `descriptor` holds, then releases the lock. The name is checked
    /// to still be the locked file, so a file put at that name meanwhile is never deleted.
    static func remove(_ path: String, locked descriptor: Int32) -> Result<Void, Errno> {
        defer { close(descriptor) }
        var named = stat()
        var locked = stat()
        guard PathText.withCString(path, { lstat($0, &named) }) == 0 else {
            return errno == ENOENT ? .success(()) : .failure(Errno(errno))
        }
        guard fstat(descriptor, &locked) == 0 else { return .failure(Errno(errno)) }
        guard named.st_dev == locked.st_dev && named.st_ino == locked.st_ino else { return .success(()) }
        if PathText.withCString(path, { unlink($0) }) == 0 || errno == ENOENT { return .success(()) }
        return .failure(Errno(errno))
    }
}

/// An `errno` value, as a Swift error.
struct Errno: Error, Equatable {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var text: String { String(cString: strerror(code)) }
}

/// Whether a process on this machine still runs, for the rare file systems where a writer's lock cannot be seen.
public enum ProcessLiveness {
    /// Whether `pid` names a running process: one that exists and is not a zombie (killed or exited, and waiting to be
    /// reaped by a parent or an init that has not got round to it; `kill(pid, 0)` still succeeds on one).
    public static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        return state(of: pid).map { $0 != "Z" && $0 != "X" } ?? true
    }

    /// The process's state letter from `/proc/PID/stat` (R, S, D, T, Z, X, …); nil when it cannot be read.
    public static func state(of pid: Int32) -> Character? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        // "PID (COMMAND) STATE ...": the command may hold spaces and parentheses, so look after the last ')'.
        let bytes = buffer[..<count]
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return nil }
        return Character(Unicode.Scalar(bytes[close + 2]))
    }
}
