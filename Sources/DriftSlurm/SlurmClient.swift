import Foundation

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

    public init(binaries: String? = nil) {
        self.binaries = binaries
    }

    /// Submits `script` (on standard input) with `arguments`; the job's id (`sbatch --parsable`).
    public func submit(script: String, arguments: [String]) throws(SlurmError) -> Int {
        let output = try run("sbatch", ["--parsable"] + arguments, input: script)
        // --parsable prints "ID" or "ID;CLUSTER".
        guard let id = Int(output.split(separator: ";").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw SlurmError(command: "sbatch", reason: "unexpected answer \"\(output.prefix(200))\"")
        }
        return id
    }

    /// Every task of the jobs named `name`, ended ones included while the controller still knows them.
    public func tasks(named name: String) throws(SlurmError) -> [SlurmTask] {
        SlurmTask.parse(try run("squeue", ["--noheader", "--array", "--states=all", "--name=\(name)",
                                           "--format=\(SlurmTask.squeueFormat)"]))
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
            throw SlurmError(command: tool, reason: "cannot run it (\(error.localizedDescription)); is Slurm's client installed?")
        }
        if let input {
            feed.fileHandleForWriting.write(Data(input.utf8))
            try? feed.fileHandleForWriting.close()
        }
        // Read both to the end before waiting: a full pipe would otherwise block the child.
        let said = output.fileHandleForReading.readDataToEndOfFile()
        let complained = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = String(decoding: complained, as: UTF8.self).split(separator: "\n").last.map(String.init)
            throw SlurmError(command: tool, reason: text ?? "exit status \(process.terminationStatus)")
        }
        return String(decoding: said, as: UTF8.self)
    }
}
