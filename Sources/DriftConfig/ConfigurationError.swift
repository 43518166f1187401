public import struct SystemPackage.FilePath

/// A configuration file that cannot be used: names the file, the line and the key at fault.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The configuration file.
    public let path: FilePath
    /// 1-based line, when known.
    public let line: Int?
    /// Dotted key path, e.g. `repair.rules[1].method`.
    public let key: String?
    public let message: String

    public init(path: FilePath, line: Int?, key: String?, message: String) {
        self.path = path
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        let location = line.map { "\(path.pathText):\($0)" } ?? path.pathText
        return "\(location): " + (key.map { "\($0): " } ?? "") + message
    }
}
