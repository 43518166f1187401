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
    // Read both pipes before waiting, so a chatty child cannot block on a full pipe.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
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
