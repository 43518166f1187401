import Glibc

/// The name of a temporary output file, `.NAME.driftfix-HOST-PID-TAG.tmp`: hidden, beside its destination NAME,
/// and saying which process of which machine writes it, so that leftovers of dead processes can be told from files
/// still being written.
public struct TemporaryName: Equatable, Sendable {
    /// The final file's name.
    public let destinationName: String
    /// The writer's machine (`hostTag`).
    public let host: String
    public let pid: Int32

    /// This machine's name, made safe for a file name (letters and digits; anything else becomes `_`).
    public static let hostTag: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let safe = name.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }
        return safe.isEmpty ? "host" : String(safe.prefix(32))
    }()

    static func make(for name: String, host: String, pid: Int32, tag: String) -> String {
        "." + name + ".driftfix-\(host)-\(pid)-\(tag).tmp"
    }

    /// Parses a file name; nil unless it has exactly the temporary-file shape.
    public init?(parsing fileName: String) {
        guard fileName.hasPrefix("."), fileName.hasSuffix(".tmp") else { return nil }
        let body = fileName.dropFirst().dropLast(4)
        // From the end: TAG (hex), PID (digits), HOST (no '-'), then ".driftfix" ending the destination's name.
        let parts = body.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4 else { return nil }
        let tag = parts[parts.count - 1]
        let pidText = parts[parts.count - 2]
        let host = parts[parts.count - 3]
        let head = parts[..<(parts.count - 3)].joined(separator: "-")
        guard !tag.isEmpty, tag.allSatisfy(\.isHexDigit), let pid = Int32(pidText), pid > 0,
              !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
              head.hasSuffix(".driftfix"), head.count > ".driftfix".count else { return nil }
        destinationName = String(head.dropLast(".driftfix".count))
        self.host = String(host)
        self.pid = pid
    }

    /// Whether a process with this pid runs on this machine (a pid reused by another process counts as alive: its
    /// files are left alone).
    public static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }
}

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
