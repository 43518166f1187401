import Foundation

/// The outcome of running the built `driftfix` binary.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Non-empty lines of standard error.
    public var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs the `driftfix` executable built beside the test bundle (or `$DRIFTFIX_BIN`).
public func driftfix(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: driftfixPath())
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { _, new in new }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Both pipes are drained at once (standard error on a thread of its own), so a child that fills either one
    // cannot block while the other is read.
    let errors = PipeDrain(err.fileHandleForReading)
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = errors.wait()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
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

/// Reads a pipe to its end on a thread of its own.
final class PipeDrain: @unchecked Sendable {  // `data` is written once by the thread, read after `done` is signalled
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
        thread.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// Runs a program (ffmpeg, ffprobe, ...) and returns its standard output, trimmed of surrounding white space.
public func runTool(_ path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The pid of a process that no longer runs: a child that has exited and been reaped (for leftovers of dead writers).
public func deadProcessID() throws -> Int32 {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/true")
    try child.run()
    child.waitUntilExit()
    return child.processIdentifier
}
