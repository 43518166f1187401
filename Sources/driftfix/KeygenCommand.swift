import ArgumentParser
import DriftKit
import Foundation

import struct SystemPackage.FilePath

/// `driftfix keygen`: a CURVE key pair for a coordinator or a worker.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a CURVE key pair: NAME.key (secret, mode 0600) and NAME.pub (public).",
        discussion: """
            The coordinator's NAME.pub goes to every worker (--server-key); each worker's NAME.pub goes into the \
            coordinator's allowlist folder (--allow). Secret key files that others can read are refused when used. \
            Exit code 0, 1 when a file exists (use --force) or cannot be written.
            """
    )

    @Argument(help: "Name of the key pair (e.g. coordinator, worker-host3).")
    var name: String

    @Option(help: ArgumentHelp("Folder to write into (created if needed, mode 0700).", valueName: "dir"))
    var out: String = "."

    @Flag(help: "Replace existing key files of that name.")
    var force = false

    func validate() throws {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw ValidationError("the name must be a plain file name (no '/', not hidden)")
        }
    }

    func run() throws {
        let folder = Paths.absolute(out)
        if !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw failure("\(folder): cannot create the folder (\(error.localizedDescription))")
            }
        }
        let pair = try CurveKeyPair.generate()
        do {
            try CurveKeyFile.write(pair, name: name, folder: FilePath(pathText: folder), replace: force)
        } catch {
            throw failure(error)
        }
        print("public key \(pair.publicKey)")
        FileHandle.standardError.write(
            Data("driftfix: wrote \(folder)/\(name).key (secret, 0600) and \(folder)/\(name).pub\n".utf8))
    }
}
