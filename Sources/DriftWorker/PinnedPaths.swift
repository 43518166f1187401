internal import CLinux
import DriftCore
import DriftSupport
import Foundation

import struct SystemPackage.FilePath

/// A job's input file and output folder, opened beneath their roots with openat2(RESOLVE_BENEATH) and then used
/// only through `/proc/self/fd/N`, so that what was checked is what is read and written: a folder swapped for a
/// link between the check and the open cannot lead outside a root (the kernel refuses the open), and one swapped
/// later cannot redirect the pinned descriptors. Missing output folders are created one by one beneath the root
/// (mkdirat on a pinned parent), never through a path that links could redirect.
struct PinnedPaths {
    /// O_PATH (Linux): a descriptor that names a folder without opening it for reading; not exported to Swift.
    static let pathOnly: Int32 = 0o10_000_000
    private let input: Int32
    private let folder: Int32
    private let name: String

    /// Which side could not be pinned, and why.
    enum Failure: Error, CustomStringConvertible {
        case input(String)
        /// `retryable`: the folder may be there next time (deleted meanwhile, out of descriptors, permissions).
        case output(String, retryable: Bool)

        var description: String {
            switch self {
            case .input(let reason), .output(let reason, _): return reason
            }
        }
    }

    /// The input as the pipeline opens it.
    var inputPath: String { "/proc/self/fd/\(input)" }
    /// The output as the pipeline writes it (a temporary file in the pinned folder, renamed there).
    var outputPath: String { "/proc/self/fd/\(folder)/\(name)" }

    /// Pins `input` (resolved, inside one of `inputRoots`) and the folder of `output` (below `outputRoot`, free of
    /// `..`), creating missing output folders beneath the root.
    static func pin(input: String, inputRoots: [String], output: String, outputRoot: String) -> Result<
        PinnedPaths, Failure
    > {
        let inputDescriptor: Int32
        switch pinInput(input, inputRoots: inputRoots) {
        case .failure(let failure): return .failure(failure)
        case .success(let descriptor): inputDescriptor = descriptor
        }
        switch folder(of: output, beneath: outputRoot) {
        case .failure(let failure):
            Glibc.close(inputDescriptor)
            return .failure(failure)
        case .success(let folderDescriptor):
            return .success(
                PinnedPaths(
                    input: inputDescriptor, folder: folderDescriptor,
                    name: FilePath(output).lastComponent?.string ?? output))
        }
    }

    /// Opens a file to read (resolved, inside one of `inputRoots`) beneath its root; the caller closes the descriptor
    /// and reads it as `/proc/self/fd/N`.
    static func pinInput(_ input: String, inputRoots: [String]) -> Result<Int32, Failure> {
        // The input comes resolved; its root is the resolved root it lies strictly below (the deepest, when roots
        // nest), and the kernel checks the rest again as it opens.
        let path = FilePath(pathText: input)
        guard let root = PathRoots(inputRoots).resolved.filter({ path.isBelow($0) }).last,
            let relative = path.relative(to: root)
        else {
            return .failure(.input("outside the input roots"))
        }
        // Non-blocking, no controlling terminal: a FIFO or a device swapped in must not hang or touch anything.
        let inputDescriptor: Int32
        switch open(
            relative.pathText, beneath: root.pathText, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY,
            rootName: "the input root")
        {
        case .failure(let reason): return .failure(.input(reason.description))
        case .success(let descriptor): inputDescriptor = descriptor
        }
        var info = stat()
        guard fstat(inputDescriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(inputDescriptor)
            return .failure(.input("not a regular file"))
        }
        return .success(inputDescriptor)
    }

    /// Opens (creating as needed) the folder of `output` beneath `outputRoot`.
    static func folder(of output: String, beneath outputRoot: String) -> Result<Int32, Failure> {
        guard let real = FilePath(pathText: outputRoot).realPath() else {
            return .failure(.output("output root \(outputRoot) does not exist", retryable: true))
        }
        let realRoot = real.pathText
        let folder = FilePath(pathText: output).removingLastComponent()
        // The job names the output below its root as text (as given or resolved); the kernel then resolves it
        // beneath the real root. '..' is refused by its text before any lexical reading could hide it.
        guard !folder.components.contains(where: { $0.kind == .parentDirectory }) else {
            return .failure(.output("'..' in the output path", retryable: false))
        }
        guard let relative = folder.relative(to: FilePath(pathText: outputRoot)) ?? folder.relative(to: real) else {
            return .failure(.output("outside the output root \(outputRoot)", retryable: false))
        }
        let components = relative.pathText.split(separator: "/").map(String.init)
        var prefix = ""
        for component in components + [""] {
            let path = prefix.isEmpty ? "." : prefix
            switch open(path, beneath: realRoot, flags: pathOnly | O_DIRECTORY, rootName: "the output root") {
            case .failure(let reason):
                return .failure(.output(reason.description, retryable: !reason.description.contains("leads outside")))
            case .success(let parent):
                if component.isEmpty { return .success(parent) }  // the whole folder is open
                // Create the next folder inside the pinned parent (EEXIST is fine: the next open checks it).
                if PathText.withCString(component, { mkdirat(parent, $0, 0o755) }) != 0 && errno != EEXIST {
                    let reason = String(cString: strerror(errno))
                    Glibc.close(parent)
                    return .failure(.output("cannot create \(folder.pathText): \(reason)", retryable: true))
                }
                Glibc.close(parent)
                prefix += (prefix.isEmpty ? "" : "/") + component
            }
        }
        return .failure(.output("unreachable", retryable: false))
    }

    /// Opens `relative` beneath the folder `root` (resolved by the caller).
    static func open(_ relative: String, beneath root: String, flags: Int32, rootName: String) -> Result<
        Int32, ConfinementError
    > {
        let rootDescriptor = PathText.open(root, pathOnly | O_DIRECTORY | O_CLOEXEC)
        guard rootDescriptor >= 0 else {
            return .failure(ConfinementError("cannot open \(root): \(String(cString: strerror(errno)))"))
        }
        defer { Glibc.close(rootDescriptor) }
        let path = relative.drop { $0 == "/" }
        let descriptor = PathText.withCString(path.isEmpty ? "." : String(path)) {
            driftfix_open_beneath(rootDescriptor, $0, flags | O_CLOEXEC, 0)
        }
        guard descriptor >= 0 else {
            let code = errno
            return .failure(
                ConfinementError(
                    code == EXDEV || code == ELOOP
                        ? "leads outside \(rootName) \(root) (a link or '..' on the way)"
                        : code == ENOSYS
                            ? "this kernel has no openat2 (Linux 5.6 or later is needed)"
                            : String(cString: strerror(code))))
        }
        return .success(descriptor)
    }

    /// XXH3 of the regular file `name` in the pinned `folder`, opened without following a link at its name.
    static func checksum(of name: String, in folder: Int32) -> String? {
        let descriptor = PathText.withCString(
            name, { openat(folder, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) })
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(descriptor)
            return nil
        }
        return XXH3.file(descriptor: descriptor)
    }

    /// Replaces the descriptor paths in a message with the paths the job named, for the report.
    func describe(_ message: String, input original: String, output shown: String) -> String {
        message.replacingOccurrences(of: outputPath, with: shown)
            .replacingOccurrences(
                of: "/proc/self/fd/\(folder)/", with: (shown as NSString).deletingLastPathComponent + "/"
            )
            .replacingOccurrences(of: inputPath, with: original)
    }

    func close() {
        Glibc.close(input)
        Glibc.close(folder)
    }
}
