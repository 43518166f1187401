import DriftCore
import Foundation

import struct SystemPackage.FilePath

/// Keeps a job's writes inside the output root.
public enum Confinement {
    /// Checks that the output lies below `root` with no `..`, and that the nearest existing folder on its way
    /// resolves inside the root (links cannot lead out). Missing folders are created later, beneath the root, by
    /// `PinnedPaths`.
    public static func check(output: String, root: String) -> Result<String, ConfinementError> {
        let path = FilePath(pathText: output)
        guard path.isAbsolute, !path.components.contains(where: { $0.kind == .parentDirectory }) else {
            return .failure(ConfinementError("path must be absolute and free of '..'"))
        }
        guard let realRoot = FilePath(pathText: root).realPath() else {
            return .failure(ConfinementError("output root \(root) does not exist"))
        }
        guard path.removingLastComponent().resolvingLinks().isInside(realRoot) else {
            return .failure(ConfinementError("outside the output root \(root)"))
        }
        return .success(output)
    }

    /// Resolves links and `..` in the input and checks that it lies inside one of `roots` (resolved too), by the
    /// rule the scan applies too (`PathRoots`). Returns the resolved path.
    public static func check(input: String, roots: [String]) -> Result<String, ConfinementError> {
        let path = FilePath(pathText: input)
        guard path.isAbsolute || roots.isEmpty else { return .failure(ConfinementError("path must be absolute")) }
        let allowed = PathRoots(roots)
        if let reason = allowed.outsideReason(path) { return .failure(ConfinementError(reason)) }
        guard let resolved = path.realPath() else {
            return .failure(ConfinementError("cannot be resolved (\(String(cString: strerror(errno))))"))
        }
        return .success(resolved.pathText)
    }

    /// The output root must not overlap an input root (either inside the other): a job could then write over a
    /// recording.
    public static func checkRoots(inputs: [String], output: String) -> Result<Void, ConfinementError> {
        // A missing output root is reported by check(output:).
        guard let realOutput = FilePath(pathText: output).realPath() else { return .success(()) }
        for root in inputs {
            guard let realInput = FilePath(pathText: root).realPath() else { continue }
            if realOutput.isInside(realInput) || realInput.isInside(realOutput) {
                return .failure(ConfinementError("the output root \(output) overlaps the input root \(root)"))
            }
        }
        return .success(())
    }
}

public struct ConfinementError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
