import Glibc

/// An output written under a hidden temporary name beside its destination and renamed into place only once
/// verified, so a crash or an error never leaves a half-written file under the final name.
///
/// Dropping a `StagedOutput` that was not committed deletes the temporary file.
public final class StagedOutput {
    /// The final path.
    public let destination: String
    /// The temporary file beside it (same folder, so the rename is atomic).
    public let temporaryPath: String
    private var committed = false

    /// Prepares to write `destination`.
    ///
    /// - Parameter input: a file that must not be overwritten (the recording being repaired).
    /// - Throws: `AudioError` when the destination folder is missing or not writable, or when the destination is
    ///   the input itself.
    public init(destination: String, protecting input: String? = nil) throws(AudioError) {
        self.destination = destination
        if let input, FileChecks.sameFile(input, destination) || input == destination {
            throw AudioError(path: destination, cause: .wouldOverwriteInput)
        }
        let (folder, name) = StagedOutput.split(destination)
        var info = stat()
        guard stat(folder, &info) == 0 else {
            let code = errno
            throw AudioError(path: destination, cause: code == EACCES
                ? .destinationNotWritable(FileChecks.errnoText(code)) : .destinationMissing)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw AudioError(path: destination, cause: .destinationMissing) }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw AudioError(path: destination, cause: .destinationNotWritable(FileChecks.errnoText(errno)))
        }
        if stat(destination, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw AudioError(path: destination, cause: .isDirectory)
        }
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let host = StagedOutput.hostTag
        temporaryPath = folder + "/." + name + ".driftfix-\(host)-\(getpid())-\(tag).tmp"
        StagedOutput.removeStale(folder: folder, name: name, host: host)
    }

    /// This machine's name, made safe for a file name.
    static let hostTag: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return safe.isEmpty ? "host" : String(safe.prefix(32))
    }()

    /// Deletes temporary files for the same destination left by a process of this machine that no longer runs
    /// (a worker killed mid-job): they can never be completed, and nobody else would clean them up.
    static func removeStale(folder: String, name: String, host: String) {
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        let prefix = "." + name + ".driftfix-" + host + "-"
        while let entry = readdir(directory) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard entryName.hasPrefix(prefix), entryName.hasSuffix(".tmp") else { continue }
            let rest = entryName.dropFirst(prefix.count)
            guard let pid = Int32(rest.prefix { $0 != "-" }), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + entryName) }
        }
    }

    deinit {
        if !committed { discard() }
    }

    /// Renames the temporary file over the destination and makes the rename durable.
    public func commit() throws(AudioError) {
        guard rename(temporaryPath, destination) == 0 else {
            let code = errno
            discard()
            throw AudioError(path: destination, cause: AudioFileWriter.cause(forErrno: code))
        }
        committed = true
        // The rename is only durable once the folder entry is on disk.
        let folderFD = open(StagedOutput.split(destination).folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            fsync(folderFD)
            close(folderFD)
        }
    }

    /// Deletes the temporary file if it exists.
    public func discard() {
        unlink(temporaryPath)
    }

    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }
}
