import Glibc

// Checks on paths made before libsndfile sees them, so each failure gets a precise cause instead of
// libsndfile's generic "System error".
enum FileChecks {
    /// The size of a readable regular file, or the reason it cannot be read as one.
    static func readableFileSize(_ path: String) throws(AudioError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: throw AudioError(path: path, cause: .notFound)
            case EACCES: throw AudioError(path: path, cause: .permissionDenied)
            default: throw AudioError(path: path, cause: .readFailed(String(cString: strerror(code))))
            }
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw AudioError(path: path, cause: .isDirectory) }
        guard access(path, R_OK) == 0 else { throw AudioError(path: path, cause: .permissionDenied) }
        if info.st_size == 0 { throw AudioError(path: path, cause: .emptyFile) }
        return Int64(info.st_size)
    }

    /// Whether two paths name the same existing file (same device and inode).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
