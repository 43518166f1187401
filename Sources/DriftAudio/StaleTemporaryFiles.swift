import DriftCore
import Glibc

/// Removes the temporary files of dead writers from an output tree: after a crash that killed every driftfix
/// process at once (power loss, the OOM killer, a container stopped with SIGKILL) nobody else ever would.
///
/// A writer on this machine is judged by its lock (`WriterLock`): a file whose lock can be taken has no writer, so it
/// goes, whatever became of the pid in its name (a zombie, a pid reused by another process). A file written on another
/// machine is kept while its lock is seen held; otherwise it goes once no job that could still be writing it remains
/// (on network file systems locks may not cross machines, so the lease time decides there).
public enum StaleTemporaryFiles {
    /// What a sweep found and did.
    public struct Sweep: Equatable, Sendable {
        /// Paths deleted.
        public var removed: [String] = []
        /// Temporary files left because their writer may still run (this machine: it holds its lock; another
        /// machine: it holds its lock, or wrote since the oldest open lease).
        public var kept: [String] = []
        /// Paths that could not be deleted, with the reason.
        public var failed: [(path: String, reason: String)] = []

        public static func == (a: Sweep, b: Sweep) -> Bool {
            a.removed == b.removed && a.kept == b.kept && a.failed.map(\.path) == b.failed.map(\.path)
        }

        mutating func add(_ path: String, _ verdict: Verdict) {
            switch verdict {
            case .removed: removed.append(path)
            case .kept: kept.append(path)
            case .failed(let reason): failed.append((path, reason))
            }
        }
    }

    /// Walks `root` (never following links, skipping the journal's `.driftfix` folder) and deletes every temporary
    /// file of driftfix's shape whose writer is gone: on this machine, one whose lock can be taken; on another
    /// machine, one whose lock is free (or cannot be seen) and that was last written before `otherHostsBefore` (the
    /// oldest lease still open in the journal: no job that could still be running began earlier), or any when nil (no
    /// job is out at all).
    public static func sweep(root: String, otherHostsBefore cutoff: Double?) -> Sweep {
        var result = Sweep()
        var stack = [root]
        while let folder = stack.popLast() {
            guard let directory = PathText.withCString(folder, { opendir($0) }) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = entryName(entry)
                if name == "." || name == ".." { continue }
                let path = folder == "/" ? "/" + name : folder + "/" + name
                var info = stat()
                guard PathText.withCString(path, { lstat($0, &info) }) == 0 else { continue }
                let kind = FileKind(mode: info.st_mode)
                if kind == .directory {
                    if !(folder == root && name == ".driftfix") { stack.append(path) }
                    continue
                }
                guard kind == .regular, let parsed = TemporaryName(parsing: name) else { continue }
                let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                let otherHostGone = cutoff.map { modified < $0 } ?? true
                result.add(path, removeIfAbandoned(path, writer: parsed, otherHostGone: otherHostGone))
            }
        }
        result.removed.sort()
        result.kept.sort()
        return result
    }

    /// What became of one temporary file.
    enum Verdict {
        case removed, kept
        case failed(String)
    }

    /// Deletes the temporary file at `path` if its writer is gone. On this machine the lock decides (the pid, with
    /// zombies counted dead, where the file system cannot lock). Another machine's file goes when its lock is not
    /// seen held and `otherHostGone` says no lease could still cover it.
    static func removeIfAbandoned(_ path: String, writer: TemporaryName, otherHostGone: Bool) -> Verdict {
        let local = writer.host == TemporaryName.hostTag
        switch WriterLock.probe(path) {
        case .gone: return .removed
        case .held: return .kept
        case .abandoned(let descriptor):
            guard local || otherHostGone else {
                close(descriptor)
                return .kept
            }
            switch WriterLock.remove(path, locked: descriptor) {
            case .success: return .removed
            case .failure(let error): return .failed(error.text)
            }
        case .undecided:
            let gone = local ? writer.pid != getpid() && !ProcessLiveness.isRunning(writer.pid) : otherHostGone
            guard gone else { return .kept }
            if PathText.withCString(path, { unlink($0) }) == 0 || errno == ENOENT { return .removed }
            return .failed(String(cString: strerror(errno)))
        }
    }

    static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { raw in
            PathText.text(raw.prefix { $0 != 0 })
        }
    }
}

extension StaleTemporaryFiles {
    /// Removes the temporary files one writer left beside `destination` (`.NAME.driftfix-HOST-PID-*.tmp`): called
    /// when the writer lost its job (killed, silent, cut off), so its junk goes at once rather than at the night's
    /// closing sweep. A writer on this machine that still holds its lock is left alone (it may be hung, not dead; its
    /// file goes once it has exited); one on another machine can no longer deliver, so its file goes.
    public static func removeLeftovers(beside destination: String, writerHost: String, writerPID: Int32) -> Sweep {
        var result = Sweep()
        let host = TemporaryName.tag(forHost: writerHost)
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard let directory = PathText.withCString(folder, { opendir($0) }) else { return result }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = entryName(entry)
            guard let parsed = TemporaryName(parsing: entryName),
                parsed.destinationName == TemporaryName.token(for: name), parsed.host == host,
                parsed.pid == writerPID
            else { continue }
            let path = folder == "/" ? "/" + entryName : folder + "/" + entryName
            var info = stat()
            guard PathText.withCString(path, { lstat($0, &info) }) == 0, FileKind(mode: info.st_mode) == .regular else {
                continue
            }
            if host == TemporaryName.hostTag {
                result.add(path, removeIfAbandoned(path, writer: parsed, otherHostGone: true))
            } else if PathText.withCString(path, { unlink($0) }) == 0 || errno == ENOENT {
                result.removed.append(path)
            } else {
                result.failed.append((path, String(cString: strerror(errno))))
            }
        }
        return result
    }
}
