import ArgumentParser
import DriftKit
import Foundation
import Logging

/// The `driftfix` command: repairs lip-sync drift in recordings.
struct Driftfix: AsyncParsableCommand {
    /// The release (Debian packages take their version from here: scripts/package.sh).
    static let version = "0.3.0"

    static let configuration = CommandConfiguration(
        commandName: "driftfix",
        abstract: "Repair audio/video drift: make each recording exactly as long as its reference.",
        discussion: """
            Exit codes: 0 all good; 1 a file failed, was refused or did not verify; 2 usage or configuration error.

            The manual: /usr/share/doc/driftfix/docs/ (docs/ in the source): guide.md (the commands by task), \
            operations.md (running a fleet), formats.md, measuring-by-sound.md, reports.md, performance.md. The \
            configuration reference is the commented /etc/driftfix/driftfix.yaml (config/driftfix.yaml).
            """,
        version: "\(version) (revision \(sourceRevision))",
        subcommands: [
            ScanCommand.self, MeasureCommand.self, SyncCommand.self, RepairCommand.self, WorkerCommand.self,
            HistoryCommand.self, KeygenCommand.self,
            ProcessCommand.self, VerifyCommand.self,
        ]
    )
}

/// Exit codes scripts can rely on.
enum ExitStatus {
    static let success: Int32 = 0
    /// A file failed, was refused, or did not verify.
    static let failure: Int32 = 1
    /// Bad usage or configuration.
    static let usage: Int32 = 2
}

@main
enum DriftfixMain {
    static func main() async {
        LoggingSystem.bootstrap(
            { label, provider in
                var handler = OneLineLogHandler(
                    StreamLogHandler.standardError(label: label, metadataProvider: provider))
                handler.logLevel =
                    ProcessInfo.processInfo.environment["DRIFTFIX_LOG_LEVEL"]
                    .flatMap(Logger.Level.init(rawValue:)) ?? .notice
                return handler
            }, metadataProvider: LogContext.metadataProvider)
        do {
            // The arguments' bytes as text that loses none of them (a root named in bytes that are not UTF-8).
            let arguments = (1..<Int(CommandLine.argc)).compactMap { index in
                CommandLine.unsafeArgv[index].map {
                    PathText.text(
                        UnsafeBufferPointer(
                            start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0)))
                }
            }
            var command = try Driftfix.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // ArgumentParser uses 64 for usage errors; driftfix promises 2.
            if Driftfix.exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((Driftfix.fullMessage(for: error) + "\n").utf8))
                exit(ExitStatus.usage)
            }
            Driftfix.exit(withError: error)
        }
    }
}

/// Prints one line naming the file and the cause, and ends the command with exit code 1.
func failure(_ error: Error) -> ExitCode {
    failure("\(error)")
}

/// Prints `message` as one line (control characters in file names escaped) and ends the command with exit code 1.
func failure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("driftfix: \(message.escapedForTerminal)\n".utf8))
    return ExitCode(ExitStatus.failure)
}
