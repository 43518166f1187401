import Foundation
public import SystemPackage

/// The one way driftfix reads paths: made absolute, resolved as the kernel resolves them, compared by components and
/// asked for their extension. Paths are bytes to the kernel, so a name that is not UTF-8 survives every step.
extension FilePath {
    /// This path taken from `folder` (the working folder by default) when relative; `.` and `..` are kept, so that
    /// `resolvingLinks()` can still give them the kernel's meaning.
    public func absolute(from folder: FilePath? = nil) -> FilePath {
        isAbsolute ? self : (folder ?? Self.workingFolder).pushing(self)
    }

    /// The working folder's bytes (`getcwd`; Foundation's `currentDirectoryPath` repairs a name that is not UTF-8).
    static var workingFolder: FilePath {
        guard let bytes = getcwd(nil, 0) else { return FilePath(FileManager.default.currentDirectoryPath) }
        defer { free(bytes) }
        return FilePath(platformString: bytes)
    }

    /// A path as a person gives it (an option, a configuration value): absolute from the working folder, `.` and `..`
    /// removed by their text, the same way for every root, output, journal and key file.
    public static func given(_ path: String) -> String {
        FilePath(path).absolute().lexicallyNormalized().string
    }

    /// The path as the kernel finds it, every link and `..` resolved, when all of it exists; nil otherwise.
    public func realPath() -> FilePath? {
        withPlatformString { path in
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            return FilePath(platformString: resolved)
        }
    }

    /// The path with every link resolved as far as it exists, and the missing rest appended with `.` and `..`
    /// removed (a missing folder cannot be a link, so the rest can be read by its text alone). Never fails: a path
    /// of which nothing exists comes back absolute and lexically normal.
    public func resolvingLinks() -> FilePath {
        var existing = absolute()
        var rest: [FilePath.Component] = []
        while true {
            if let real = existing.realPath() { return Self.walk(from: real, rest.reversed()) }
            guard let last = existing.lastComponent else { return absolute().lexicallyNormalized() }
            rest.append(last)
            existing.removeLastComponent()
        }
    }

    /// `components` walked from the real path `real` one at a time: a `..` back up (out of a file too, where the
    /// kernel would refuse: `a/f.wav/../b` is `a/b`), each existing prefix resolved again (a link reached after a `..`
    /// is followed), and by text alone from the first one that does not exist.
    private static func walk(from real: FilePath, _ components: [FilePath.Component]) -> FilePath {
        var resolved = real
        var missing = false
        for component in components {
            switch component.kind {
            case .currentDirectory: continue
            case .parentDirectory: resolved.removeLastComponent()
            case .regular:
                resolved.append(component)
                guard !missing else { continue }
                if let next = resolved.realPath() { resolved = next } else { missing = true }
            }
        }
        return resolved.lexicallyNormalized()
    }

    /// Whether something exists at this path (a dangling link does not).
    public var exists: Bool {
        withPlatformString { access($0, F_OK) } == 0
    }

    /// Where this symbolic link points, as written in it; nil when it is not one.
    public func linkTarget() -> FilePath? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = withPlatformString { readlink($0, &buffer, buffer.count - 1) }
        guard count >= 0 else { return nil }
        buffer[count] = 0
        return buffer.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
    }

    /// Whether this path is `root` or lies below it, by whole components (`/a/bc` is not inside `/a/b`; every
    /// absolute path is inside `/`). Both are compared as written, lexically normal: resolve them first when links
    /// matter.
    public func isInside(_ root: FilePath) -> Bool {
        lexicallyNormalized().starts(with: root.lexicallyNormalized())
    }

    /// Whether this path lies strictly below `root`.
    public func isBelow(_ root: FilePath) -> Bool {
        let path = lexicallyNormalized()
        let base = root.lexicallyNormalized()
        return path != base && path.starts(with: base)
    }

    /// This path's part below `root`, or nil when it is not inside it (`root` itself gives an empty relative path).
    public func relative(to root: FilePath) -> FilePath? {
        var path = lexicallyNormalized()
        guard path.removePrefix(root.lexicallyNormalized()) else { return nil }
        return path
    }

    /// The file name's extension in lower case: after the name's last dot, when that dot is not its first character
    /// (`.wav` is a hidden file without one) and something follows it.
    public var lowercasedExtension: String? {
        guard let ext = lastComponent?.extension, !ext.isEmpty else { return nil }
        return ext.lowercased()
    }
}

/// The roots a run may read from, resolved once; the one rule the scan and the worker both apply to a path.
public struct PathRoots: Sendable {
    /// The roots as given.
    public let given: [FilePath]
    /// The same roots with their links resolved (a root that does not exist is left out).
    public let resolved: [FilePath]

    public init(_ roots: [FilePath]) {
        given = roots
        resolved = roots.compactMap { $0.absolute().realPath() }
    }

    /// The roots whose paths `roots` stand for (`PathText`).
    package init(_ roots: [String]) { self.init(roots.map { FilePath(pathText: $0) }) }

    /// The resolved root `path` lies in (the deepest, when roots nest), once its own links are resolved; nil when it
    /// leads outside every root.
    public func root(holding path: FilePath) -> FilePath? {
        let real = path.resolvingLinks()
        return resolved.filter { real.isInside($0) }.max { $0.components.count < $1.components.count }
    }

    /// Why `path` may not be read under these roots, in the words every part of driftfix uses; nil when it may.
    public func outsideReason(_ path: FilePath) -> String? {
        guard !given.isEmpty else { return "no input roots are configured; nothing may be read" }
        guard root(holding: path) == nil else { return nil }
        let real = path.resolvingLinks()
        let shown = real == path.lexicallyNormalized() ? "" : " (it resolves to \(real.pathText))"
        return "outside the input roots \(given.map(\.pathText).joined(separator: ", "))\(shown)"
    }
}
