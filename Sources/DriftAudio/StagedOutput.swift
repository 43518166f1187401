internal import CLinux
import DriftCore
import Glibc

/// An output written under a hidden temporary name beside its destination and renamed into place only once
/// verified, so a crash or an error never leaves a half-written file under the final name.
///
/// The rename never replaces anything but a regular file: a device, FIFO, socket or symbolic link at the destination
/// is refused before any work, and checked again atomically at the rename (`renameat2` with `RENAME_EXCHANGE`, the
/// displaced entry inspected and put back if it is not a regular file). The temporary file is deleted when the
/// output is dropped uncommitted, and - once `removeOnSignals` is installed - when the process dies of a signal.
///
/// The temporary file is created here, exclusively, and locked (`flock`) until it is renamed or deleted: the lock is
/// how sweeps tell a live writer from a dead one (`WriterLock`). Writers write it through `writableDescriptor()`.
public final class StagedOutput {
    /// What the destination may already be.
    public enum Replacement: Sendable {
        /// Nothing: an existing file is refused (`driftfix process` without `--overwrite`).
        case never
        /// Nothing, or a regular file, which is replaced (repair runs replacing their own outputs).
        case regularFile
    }

    /// The final path.
    public let destination: String
    /// The temporary file beside it (same folder, so the rename is atomic).
    public let temporaryPath: String
    private let replacement: Replacement
    private var committed = false
    private var cleanupSlot: Int32
    /// Holds the writer's lock on the temporary file; -1 once committed.
    private var lockDescriptor: Int32

    /// Prepares to write `destination`.
    ///
    /// - Parameter input: a file that must not be overwritten (the recording being repaired).
    /// - Throws: `AudioError` when the destination folder is missing or not writable, when the destination is the
    ///   input itself, a directory, not a regular file, or (with `.never`) exists.
    public init(destination: String, protecting input: String? = nil, replacing replacement: Replacement = .regularFile)
        throws(AudioError)
    {
        self.destination = destination
        self.replacement = replacement
        if let input, FileChecks.sameFile(input, destination) || input == destination {
            throw AudioError(path: destination, cause: .wouldOverwriteInput)
        }
        let (folder, name) = StagedOutput.split(destination)
        var info = stat()
        guard PathText.withCString(folder, { stat($0, &info) }) == 0 else {
            let code = errno
            throw AudioError(
                path: destination,
                cause: code == EACCES
                    ? .destinationNotWritable(FileChecks.errnoText(code)) : .destinationMissing)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw AudioError(path: destination, cause: .destinationMissing)
        }
        guard PathText.withCString(folder, { access($0, W_OK | X_OK) }) == 0 else {
            throw AudioError(path: destination, cause: .destinationNotWritable(FileChecks.errnoText(errno)))
        }
        try StagedOutput.checkReplaceable(destination, replacement)
        let host = TemporaryName.hostTag
        StagedOutput.removeStale(folder: folder, name: name, host: host)
        var attempts = 0
        while true {
            let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let path = folder + "/" + TemporaryName.make(for: name, host: host, pid: getpid(), tag: tag)
            // Known to the signal cleanup before it exists: a signal between the create and the registration would
            // otherwise leave the file behind. The name is this process's own (pid and a random tag).
            let slot = PathText.withCString(path, { driftfix_cleanup_add($0) })
            switch WriterLock.create(path) {
            case .success(let descriptor):
                temporaryPath = path
                lockDescriptor = descriptor
                cleanupSlot = slot
            case .failure(let error) where (error.code == EEXIST || error.code == EAGAIN) && attempts < 16:
                driftfix_cleanup_remove(slot)
                attempts += 1  // a name taken by chance, or swept before it was locked: another name
                continue
            case .failure(let error):
                driftfix_cleanup_remove(slot)
                throw AudioError(path: destination, cause: AudioFileWriter.cause(forErrno: error.code))
            }
            break
        }
    }

    deinit {
        if !committed { discard() }
        driftfix_cleanup_remove(cleanupSlot)
        // Released last, so the file is never seen unlocked while it still has its name.
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// A new descriptor for writing the temporary file (the caller closes it). The lock stays with this output, so
    /// closing the writer's descriptor does not release it: the file stays claimed through verification and commit.
    public func writableDescriptor() throws(AudioError) -> Int32 {
        guard !committed, lockDescriptor >= 0 else {
            preconditionFailure("the staged output \(destination) is already committed")
        }
        let copy = fcntl(lockDescriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw AudioError(path: destination, cause: AudioFileWriter.cause(forErrno: errno)) }
        return copy
    }

    /// Installs signal handlers that delete every pending temporary file before the process dies of the signal.
    ///
    /// - Parameter terminating: also SIGINT, SIGTERM and SIGHUP, for commands without a graceful stop of their own
    ///   (`process`); workers and coordinators handle those themselves and call `removeAllPending()` when they must
    ///   quit at once.
    public static func removeOnSignals(terminating: Bool) {
        driftfix_cleanup_install(terminating ? 1 : 0)
    }

    /// Deletes every pending temporary file of this process now (before an immediate exit).
    public static func removeAllPending() {
        driftfix_cleanup_run()
    }

    /// Refuses a destination that is not nothing or (when allowed) a regular file.
    private static func checkReplaceable(_ destination: String, _ replacement: Replacement) throws(AudioError) {
        switch FileChecks.kind(atNoFollow: destination) {
        case nil: return
        case .regular?:
            if replacement == .never { throw AudioError(path: destination, cause: .destinationExists) }
        case .directory?: throw AudioError(path: destination, cause: .isDirectory)
        case let kind?: throw AudioError(path: destination, cause: .destinationNotRegular(kind))
        }
    }

    /// Deletes temporary files for the same destination left by writers of this machine that are gone (a worker
    /// killed mid-job): they can never be completed, and nobody else would clean them up.
    static func removeStale(folder: String, name: String, host: String) {
        guard let directory = PathText.withCString(folder, { opendir($0) }) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = StaleTemporaryFiles.entryName(entry)
            guard let parsed = TemporaryName(parsing: entryName),
                parsed.destinationName == TemporaryName.token(for: name),
                parsed.host == host
            else { continue }
            _ = StaleTemporaryFiles.removeIfAbandoned(folder + "/" + entryName, writer: parsed, otherHostGone: false)
        }
    }

    /// Renames the temporary file over the destination and makes the rename durable.
    public func commit() throws(AudioError) {
        if let why = PublishFence.current?.refusal() {
            discard()
            throw AudioError(path: destination, cause: .fenced(why))
        }
        do {
            try place()
        } catch {
            discard()
            throw error
        }
        committed = true
        driftfix_cleanup_remove(cleanupSlot)
        cleanupSlot = -1
        close(lockDescriptor)
        lockDescriptor = -1
        // The rename is only durable once the folder entry is on disk.
        let folderFD = PathText.open(StagedOutput.split(destination).folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            fsync(folderFD)
            close(folderFD)
        }
    }

    /// Puts the temporary file at the destination: into an empty name without ever replacing what appeared there
    /// meanwhile, or over a regular file by an atomic exchange whose displaced entry is checked (and put back when it
    /// is not a regular file). File systems without `renameat2` flags (NFS, some FUSE) fall back to link/unlink for
    /// an empty name and to a checked rename over a regular file.
    private func place() throws(AudioError) {
        func failure(_ code: Int32) -> AudioError {
            AudioError(path: destination, cause: AudioFileWriter.cause(forErrno: code))
        }
        for _ in 0..<4 {  // a name that appears or disappears meanwhile is looked at again
            try StagedOutput.checkReplaceable(destination, replacement)
            if FileChecks.kind(atNoFollow: destination) == nil {
                if PathText.withCStrings(temporaryPath, destination, { driftfix_rename_noreplace($0, $1) }) == 0 {
                    return
                }
                let code = errno
                if code == EEXIST { continue }
                guard code == EINVAL || code == ENOSYS else { throw failure(code) }
                if PathText.withCStrings(temporaryPath, destination, { link($0, $1) }) == 0 {
                    _ = PathText.withCString(temporaryPath, { unlink($0) })
                    return
                }
                if errno == EEXIST { continue }
                // Neither renameat2 flags nor hard links: a plain rename right after the check.
                if FileChecks.kind(atNoFollow: destination) == nil
                    && PathText.withCStrings(temporaryPath, destination, { rename($0, $1) }) == 0
                {
                    return
                }
                throw failure(errno)
            }
            if PathText.withCStrings(temporaryPath, destination, { driftfix_rename_exchange($0, $1) }) == 0 {
                // The temporary name now holds what was at the destination: it must be the regular file checked.
                let displaced = FileChecks.kind(atNoFollow: temporaryPath)
                if displaced == .regular {
                    _ = PathText.withCString(temporaryPath, { unlink($0) })
                    return
                }
                _ = PathText.withCStrings(temporaryPath, destination, { driftfix_rename_exchange($0, $1) })
                throw AudioError(path: destination, cause: .destinationNotRegular(displaced ?? .other))
            }
            let code = errno
            if code == ENOENT { continue }
            guard code == EINVAL || code == ENOSYS else { throw failure(code) }
            if FileChecks.kind(atNoFollow: destination) == .regular
                && PathText.withCStrings(temporaryPath, destination, { rename($0, $1) }) == 0
            {
                return
            }
            throw failure(errno)
        }
        throw AudioError(path: destination, cause: .writeFailed("the destination kept changing while it was replaced"))
    }

    /// Deletes the temporary file if it exists.
    public func discard() {
        _ = PathText.withCString(temporaryPath, { unlink($0) })
    }

    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }
}
