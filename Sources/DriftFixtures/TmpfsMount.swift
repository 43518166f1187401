import Foundation

/// A small tmpfs mounted for a test: a real full disk or a real read-only file system, no fakes.
/// Needs root (CI here runs as root); tests that use it are skipped with a reason elsewhere.
public final class TmpfsMount: Sendable {  // immutable after init
    public let path: String

    /// Whether this process may mount file systems.
    public static let available: Bool = {
        guard getuid() == 0 else { return false }
        guard let probe = try? TmpfsMount(kibibytes: 64) else { return false }
        _ = probe
        return true
    }()

    private let ownsFolder: Bool

    /// A tmpfs of `kibibytes` at `folder` (created if needed, kept after unmounting), or at a new temporary folder.
    public init(kibibytes: Int, readOnly: Bool = false, at folder: String? = nil) throws {
        path =
            folder ?? FileManager.default.temporaryDirectory.path
            + "/driftfix-tmpfs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ownsFolder = folder == nil
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let options = "size=\(kibibytes)k" + (readOnly ? ",ro" : "")
        guard run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path]) == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    deinit {
        _ = run("/bin/umount", [path])
        if ownsFolder { try? FileManager.default.removeItem(atPath: path) }
    }

    public func file(_ name: String) -> String { path + "/" + name }

    public func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// Runs a program and returns its exit status (-1 when it cannot start or does not end within a minute).
@discardableResult
public func run(_ program: String, _ arguments: [String]) -> Int32 {
    guard let result = try? Child(program, arguments, stdout: .discard, stderr: .discard).wait(seconds: 60),
        !result.timedOut, !result.signaled
    else { return -1 }
    return result.status
}
