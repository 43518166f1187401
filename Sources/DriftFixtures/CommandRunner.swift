import Foundation
import Synchronization

/// The outcome of running a program to its end.
public struct CommandResult: Sendable {
    /// The exit status, or the signal number when `signaled`.
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let signaled: Bool
    /// The program was still running at its deadline and was killed (`stderr` ends with what it was doing).
    public let timedOut: Bool

    /// Non-empty lines of standard error.
    public var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs the `driftfix` executable built beside the test bundle (or `$DRIFTFIX_BIN`), at most `seconds`.
public func driftfix(_ arguments: [String], environment: [String: String] = [:], seconds: Double = 300) throws
    -> CommandResult
{
    try runChild(driftfixPath(), arguments, environment: environment, seconds: seconds)
}

public func driftfixPath() -> String {
    if let override = ProcessInfo.processInfo.environment["DRIFTFIX_BIN"] { return override }
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var folder = bundle.deletingLastPathComponent()
    // Swift Testing runs the test bundle from .build/<triple>/debug/; the executable is built beside it.
    for _ in 0..<3 {
        let candidate = folder.appendingPathComponent("driftfix").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    return ".build/debug/driftfix"
}

/// Runs a program (ffmpeg, ffprobe, ...) and returns its standard output, trimmed of surrounding white space.
public func runTool(_ path: String, _ arguments: [String], seconds: Double = 300) throws -> String {
    try Child(path, arguments, stderr: .discard).wait(seconds: seconds).stdout.trimmingCharacters(
        in: .whitespacesAndNewlines)
}

/// The pid of a process that no longer runs: a child that has exited and been reaped (for leftovers of dead writers).
public func deadProcessID() throws -> Int32 {
    let child = try Child("/bin/true", [], stdout: .discard, stderr: .discard)
    _ = child.wait(seconds: 30)
    return child.pid
}

/// Runs the `driftfix` executable as `nobody` (uid and gid 65534, no groups) through util-linux's `setpriv`: how the
/// tests meet a permission denial when they run as root, who reads any file. The executable is run from a copy in a
/// world-readable temporary folder, since a checkout under a private home folder cannot be entered by `nobody`.
public func driftfixAsNobody(_ arguments: [String], seconds: Double = 300) throws -> CommandResult {
    try runChild(
        "/usr/bin/setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", try nobodysDriftfix()] + arguments, seconds: seconds)
}

private let nobodysCopy = Mutex<String?>(nil)

private func nobodysDriftfix() throws -> String {
    try nobodysCopy.withLock { copy in
        if let copy { return copy }
        let folder = FileManager.default.temporaryDirectory.path + "/driftfix-nobody-\(getpid())"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let path = folder + "/driftfix"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: driftfixPath(), toPath: path)
        chmod(path, 0o755)
        copy = path
        return path
    }
}
