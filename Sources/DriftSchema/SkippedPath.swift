import DriftCore

public import struct SystemPackage.FilePath

/// A path the scan left out on purpose, with its kind and the reason: a symbolic link to a folder scanned under its
/// own path, a link loop, a folder reached twice, and every file that is not a regular one (a FIFO, a socket, a
/// device, a dangling link), which is never opened. Not an error: nothing readable goes unscanned.
public struct SkippedPath: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case link, folder, fifo, socket
        case characterDevice = "character-device"
        case blockDevice = "block-device"
        case danglingLink = "dangling-link"

        /// The kind in words, as a reason begins.
        public var words: String {
            switch self {
            case .link: "a symbolic link"
            case .folder: "a folder"
            case .fifo: "a FIFO (named pipe)"
            case .socket: "a socket"
            case .characterDevice: "a character device"
            case .blockDevice: "a block device"
            case .danglingLink: "a dangling symbolic link"
            }
        }

        /// The kind a reason names (a journal stores the reason only): the special files' reasons begin with their
        /// kind's words.
        init(reason: String) {
            let special: [Kind] = [.fifo, .socket, .characterDevice, .blockDevice, .danglingLink]
            self =
                special.first { reason.hasPrefix($0.words) }
                ?? (reason.hasPrefix("already scanned as") ? .folder : .link)
        }
    }

    /// The path left out.
    public var path: FilePath {
        get { FilePath(pathText: pathText) }
        set { pathText = newValue.pathText }
    }
    /// `path` as the report holds it (`PathText`).
    package var pathText: String
    public var reason: String
    public var kind: Kind

    public init(path: FilePath, reason: String, kind: Kind? = nil) {
        self.init(path: path.pathText, reason: reason, kind: kind)
    }

    package init(path: String, reason: String, kind: Kind? = nil) {
        pathText = path
        self.reason = reason
        self.kind = kind ?? Kind(reason: reason)
    }

    /// A file that is not a regular one, found in a folder (directly, or as what a symbolic link points to).
    package static func special(path: String, kind: Kind, throughLink: Bool = false) -> SkippedPath {
        SkippedPath(
            path: path,
            reason: "\(kind.words)\(throughLink ? " (through a symbolic link)" : ""): not a regular file, never opened",
            kind: kind)
    }

    /// A symbolic link whose target does not exist.
    package static func dangling(path: String, target: String) -> SkippedPath {
        SkippedPath(
            path: path, reason: "\(Kind.danglingLink.words) to \(target), which does not exist", kind: .danglingLink)
    }

    enum CodingKeys: String, CodingKey {
        case pathText = "path"
        case reason, kind
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pathText = try c.decode(String.self, forKey: .pathText)
        reason = try c.decode(String.self, forKey: .reason)
        kind = try c.decodeIfPresent(Kind.self, forKey: .kind) ?? Kind(reason: reason)
    }
}
