import Foundation
import Synchronization

/// A Slurm command that failed: which, and what it said.
public struct SlurmError: Error, Sendable, CustomStringConvertible {
    public let command: String
    public let reason: String

    public var description: String { "\(command): \(reason)" }
}

/// Slurm's own commands (`sbatch`, `squeue`, `scancel`), run as child processes: they are the stable, documented
/// interface of every Slurm version, and they find the cluster the way the operator's shell does (`SLURM_CONF`, the
/// system's slurm.conf).
public struct SlurmClient: Sendable {
    /// Folder of the Slurm commands; nil: the PATH.
    public var binaries: String?
    /// How long one command may take before it is ended and reported as failed: a controller that does not answer
    /// must not stall the coordinator's look at its workers (the next look tries again).
    public var timeout: Duration

    public init(binaries: String? = nil, timeout: Duration = .seconds(30)) {
        self.binaries = binaries
        self.timeout = timeout
    }

    /// Submits `script` (on standard input) with `arguments`; the job's id (`sbatch --parsable`).
    public func submit(script: String, arguments: [String]) throws(SlurmError) -> Int {
        let output = try run("sbatch", ["--parsable"] + arguments, input: script)
        // --parsable prints "ID" or "ID;CLUSTER".
        guard let id = Int(output.split(separator: ";").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        else {
            throw SlurmError(command: "sbatch", reason: "unexpected answer \"\(output.prefix(200))\"")
        }
        return id
    }

    /// Every task of the jobs named `name`, ended ones included while the controller still knows them.
    public func tasks(named name: String) throws(SlurmError) -> [SlurmTask] {
        SlurmTask.parse(
            try run(
                "squeue",
                [
                    "--noheader", "--array", "--states=all", "--name=\(name)",
                    "--format=\(SlurmTask.squeueFormat)",
                ]))
    }

    /// Cancels every job named `name` (queued or running) of this user.
    public func cancel(named name: String) throws(SlurmError) {
        _ = try run("scancel", ["--name=\(name)", "--user=\(NSUserName())"])
    }

    /// Cancels one task (`4711_3`): its worker gets SIGTERM and drains.
    public func cancel(job: String) throws(SlurmError) {
        _ = try run("scancel", [job])
    }

    private func run(_ tool: String, _ arguments: [String], input: String? = nil) throws(SlurmError) -> String {
        let process = Process()
        if let binaries {
            process.executableURL = URL(fileURLWithPath: binaries + "/" + tool)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
        let output = Pipe()
        let errors = Pipe()
        let feed = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input == nil ? FileHandle.nullDevice : feed
        do {
            try process.run()
        } catch {
            throw SlurmError(
                command: tool, reason: "cannot run it (\(error.localizedDescription)); is Slurm's client installed?")
        }
        if let input {
            feed.fileHandleForWriting.write(Data(input.utf8))
            try? feed.fileHandleForWriting.close()
        }
        let expired = Expiry()
        let watchdog = DispatchWorkItem {
            expired.mark()
            if process.isRunning { process.terminate() }
        }
        let (seconds, attoseconds) = timeout.components
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)),
            execute: watchdog)
        // Both pipes are drained at once, before waiting: a child that fills either pipe would otherwise block.
        let complained = Collected()
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) {
            complained.set(errors.fileHandleForReading.readDataToEndOfFile())
        }
        let said = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        watchdog.cancel()
        if expired.happened {
            throw SlurmError(command: tool, reason: "no answer within \(seconds) s; ended it")
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = String(decoding: complained.value, as: UTF8.self).split(separator: "\n").last.map(String.init)
            throw SlurmError(command: tool, reason: text ?? "exit status \(process.terminationStatus)")
        }
        return String(decoding: said, as: UTF8.self)
    }
}

/// Set once by the watchdog, read after the child has ended.
private final class Expiry: Sendable {
    private let flag = Atomic(false)
    func mark() { flag.store(true, ordering: .releasing) }
    var happened: Bool { flag.load(ordering: .acquiring) }
}

/// What the standard-error reader collected.
private final class Collected: Sendable {
    private let data = Mutex(Data())
    func set(_ value: Data) { data.withLock { $0 = value } }
    var value: Data { data.withLock { $0 } }
}
