import Glibc

/// Removes the temporary files of dead writers from an output tree: after a crash that killed every driftfix
/// process at once (power loss, the OOM killer, a container stopped with SIGKILL) nobody else ever would.
public enum StaleTemporaryFiles {
    /// What a sweep found and did.
    public struct Sweep: Equatable, Sendable {
        /// Paths deleted.
        public var removed: [String] = []
        /// Temporary files left because their writer may still run (this machine: its process lives; another
        /// machine: written since the oldest open lease).
        public var kept: [String] = []
        /// Paths that could not be deleted, with the reason.
        public var failed: [(path: String, reason: String)] = []

        public static func == (a: Sweep, b: Sweep) -> Bool {
            a.removed == b.removed && a.kept == b.kept && a.failed.map(\.path) == b.failed.map(\.path)
        }
    }

    /// Walks `root` (never following links, skipping the journal's `.driftfix` folder) and deletes every temporary
    /// file of driftfix's shape whose writer is gone: on this machine, a process that no longer runs; on another
    /// machine, a file last written before `otherHostsBefore` (the oldest lease still open in the journal: no job
    /// that could still be running began earlier), or any when nil (no job is out at all).
    public static func sweep(root: String, otherHostsBefore cutoff: Double?) -> Sweep {
        var result = Sweep()
        var stack = [root]
        while let folder = stack.popLast() {
            guard let directory = opendir(folder) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let path = folder == "/" ? "/" + name : folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                let kind = FileKind(mode: info.st_mode)
                if kind == .directory {
                    if !(folder == root && name == ".driftfix") { stack.append(path) }
                    continue
                }
                guard kind == .regular, let parsed = TemporaryName(parsing: name) else { continue }
                let dead: Bool
                if parsed.host == TemporaryName.hostTag {
                    dead = parsed.pid != getpid() && !TemporaryName.isAlive(parsed.pid)
                } else {
                    let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                    dead = cutoff.map { modified < $0 } ?? true
                }
                guard dead else {
                    result.kept.append(path)
                    continue
                }
                if unlink(path) == 0 || errno == ENOENT {
                    result.removed.append(path)
                } else {
                    result.failed.append((path, String(cString: strerror(errno))))
                }
            }
        }
        result.removed.sort()
        result.kept.sort()
        return result
    }
}

extension StaleTemporaryFiles {
    /// Removes the temporary files one writer left beside `destination` (`.NAME.driftfix-HOST-PID-*.tmp`): called
    /// when the writer lost its job (killed, silent, cut off), so its junk goes at once rather than at the next
    /// night's sweep. A writer on this machine whose process still runs is left alone (it may be hung, not dead; its
    /// file goes when it exits or at the next sweep); one on another machine can no longer deliver, so its file goes.
    public static func removeLeftovers(beside destination: String, writerHost: String, writerPID: Int32) -> Sweep {
        var result = Sweep()
        let host = TemporaryName.tag(forHost: writerHost)
        if host == TemporaryName.hostTag && (writerPID == getpid() || TemporaryName.isAlive(writerPID)) { return result }
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard let directory = opendir(folder) else { return result }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let parsed = TemporaryName(parsing: entryName), parsed.destinationName == name, parsed.host == host,
                  parsed.pid == writerPID else { continue }
            let path = folder == "/" ? "/" + entryName : folder + "/" + entryName
            var info = stat()
            guard lstat(path, &info) == 0, FileKind(mode: info.st_mode) == .regular else { continue }
            if unlink(path) == 0 || errno == ENOENT {
                result.removed.append(path)
            } else {
                result.failed.append((path, String(cString: strerror(errno))))
            }
        }
        return result
    }
}
