import Foundation

/// Keeps a job's writes inside the output root.
public enum Confinement {
    /// Checks that the output lies below `root` with no `..`, and that the nearest existing folder on its way
    /// resolves inside the root (links cannot lead out). Missing folders are created later, beneath the root, by
    /// `PinnedPaths`.
    public static func check(output: String, root: String) -> Result<String, ConfinementError> {
        guard output.hasPrefix("/"), !output.split(separator: "/").contains("..") else {
            return .failure(ConfinementError("path must be absolute and free of '..'"))
        }
        guard let realRoot = realPath(root) else {
            return .failure(ConfinementError("output root \(root) does not exist"))
        }
        var existing = (output as NSString).deletingLastPathComponent
        while realPath(existing) == nil && existing != "/" {
            existing = (existing as NSString).deletingLastPathComponent
        }
        guard let resolved = realPath(existing), inside(resolved, realRoot) else {
            return .failure(ConfinementError("outside the output root \(root)"))
        }
        return .success(output)
    }

    /// Resolves links and `..` in the input and checks that it lies inside one of `roots` (resolved too). Returns
    /// the resolved path.
    public static func check(input: String, roots: [String]) -> Result<String, ConfinementError> {
        guard !roots.isEmpty else {
            return .failure(ConfinementError("no input roots are configured; nothing may be read"))
        }
        guard input.hasPrefix("/") else { return .failure(ConfinementError("path must be absolute")) }
        guard let resolved = realPath(input) else {
            return .failure(ConfinementError("cannot be resolved (\(String(cString: strerror(errno))))"))
        }
        for root in roots {
            guard let realRoot = realPath(root) else { continue }
            if resolved != realRoot && inside(resolved, realRoot) { return .success(resolved) }
        }
        let shown = resolved == input ? "" : " (it resolves to \(resolved))"
        return .failure(ConfinementError("outside the input roots \(roots.joined(separator: ", "))\(shown)"))
    }

    /// The output root must not overlap an input root (either inside the other): a job could then write over a
    /// recording.
    public static func checkRoots(inputs: [String], output: String) -> Result<Void, ConfinementError> {
        guard let realOutput = realPath(output) else { return .success(()) }  // reported by check(output:)
        for root in inputs {
            guard let realInput = realPath(root) else { continue }
            if inside(realOutput, realInput) || inside(realInput, realOutput) {
                return .failure(ConfinementError("the output root \(output) overlaps the input root \(root)"))
            }
        }
        return .success(())
    }

    /// Whether `path` is `root` or below it (both resolved).
    static func inside(_ path: String, _ root: String) -> Bool {
        path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

public struct ConfinementError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
