internal import CSafeOpen
import Foundation

/// A job's input file and output folder, opened beneath their roots with openat2(RESOLVE_BENEATH) and then used
/// only through `/proc/self/fd/N`, so that what was checked is what is read and written: a folder swapped for a
/// link between the check and the open cannot lead outside a root (the kernel refuses the open), and one swapped
/// later cannot redirect the pinned descriptors.
struct PinnedPaths {
    /// O_PATH (Linux): a descriptor that names a folder without opening it for reading; not exported to Swift.
    static let pathOnly: Int32 = 0o10_000_000
    private let input: Int32
    private let folder: Int32
    private let name: String

    /// The input as the pipeline opens it.
    var inputPath: String { "/proc/self/fd/\(input)" }
    /// The output as the pipeline writes it (a temporary file in the pinned folder, renamed there).
    var outputPath: String { "/proc/self/fd/\(folder)/\(name)" }

    /// Pins `input` (resolved, inside one of `inputRoots`) and the folder of `output` (resolved, inside
    /// `outputRoot`).
    static func pin(input: String, inputRoots: [String], output: String, outputRoot: String) -> Result<PinnedPaths, ConfinementError> {
        let realInputRoots = inputRoots.compactMap(Confinement.realPath)
        guard let root = realInputRoots.first(where: { Confinement.inside(input, $0) && input != $0 }) else {
            return .failure(ConfinementError("outside the input roots"))
        }
        let inputDescriptor: Int32
        switch open(String(input.dropFirst(root.count)), beneath: root, flags: O_RDONLY) {
        case .failure(let error): return .failure(error)
        case .success(let descriptor): inputDescriptor = descriptor
        }
        guard let realOutputRoot = Confinement.realPath(outputRoot) else {
            Glibc.close(inputDescriptor)
            return .failure(ConfinementError("output root \(outputRoot) does not exist"))
        }
        let folder = (output as NSString).deletingLastPathComponent
        guard Confinement.inside(folder, realOutputRoot) else {
            Glibc.close(inputDescriptor)
            return .failure(ConfinementError("outside the output root \(outputRoot)"))
        }
        let relative = String(folder.dropFirst(realOutputRoot.count))
        switch open(relative.isEmpty ? "." : relative, beneath: realOutputRoot, flags: Self.pathOnly | O_DIRECTORY) {
        case .failure(let error):
            Glibc.close(inputDescriptor)
            return .failure(error)
        case .success(let folderDescriptor):
            return .success(PinnedPaths(input: inputDescriptor, folder: folderDescriptor, name: (output as NSString).lastPathComponent))
        }
    }

    /// Opens `relative` beneath the folder `root` (both resolved by the caller).
    static func open(_ relative: String, beneath root: String, flags: Int32) -> Result<Int32, ConfinementError> {
        let rootDescriptor = Glibc.open(root, Self.pathOnly | O_DIRECTORY | O_CLOEXEC)
        guard rootDescriptor >= 0 else { return .failure(ConfinementError("cannot open \(root): \(String(cString: strerror(errno)))")) }
        defer { Glibc.close(rootDescriptor) }
        let path = relative.drop { $0 == "/" }
        let descriptor = driftfix_open_beneath(rootDescriptor, path.isEmpty ? "." : String(path), flags | O_CLOEXEC, 0)
        guard descriptor >= 0 else {
            let code = errno
            let reason = code == EXDEV || code == ELOOP ? "leads outside \(root) (a link or '..' on the way)"
                : code == ENOSYS ? "this kernel has no openat2 (Linux 5.6 or later is needed)"
                : String(cString: strerror(code))
            return .failure(ConfinementError(reason))
        }
        return .success(descriptor)
    }

    /// Replaces the descriptor paths in a message with the paths the job named, for the report.
    func describe(_ message: String, input original: String, output shown: String) -> String {
        message.replacingOccurrences(of: outputPath, with: shown)
            .replacingOccurrences(of: "/proc/self/fd/\(folder)/", with: (shown as NSString).deletingLastPathComponent + "/")
            .replacingOccurrences(of: inputPath, with: original)
    }

    func close() {
        Glibc.close(input)
        Glibc.close(folder)
    }
}
