public import struct SystemPackage.FilePath

/// A shell-style path pattern: `*` matches within one path component, `**` across components, `?` one
/// character. A pattern without a `/` matches the file name anywhere in the tree (like .gitignore).
public struct GlobPattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    private let tokens: [Token]

    private enum Token: Sendable, Equatable {
        case literal(Character)
        case anyCharacter  // ?
        case anyRun  // *
        case anyPath  // **/ : zero or more whole folders
        case anyAll  // ** elsewhere: anything, across folders
    }

    public init(_ text: String) {
        self.text = text
        let effective = text.contains("/") ? text : "**/" + text
        var tokens: [Token] = []
        var characters = Array(effective)[...]
        while let first = characters.first {
            characters = characters.dropFirst()
            switch first {
            case "*":
                if characters.first == "*" {
                    characters = characters.dropFirst()
                    if characters.first == "/" {
                        characters = characters.dropFirst()
                        tokens.append(.anyPath)
                    } else {
                        tokens.append(.anyAll)
                    }
                } else {
                    tokens.append(.anyRun)
                }
            case "?": tokens.append(.anyCharacter)
            default: tokens.append(.literal(first))
            }
        }
        self.tokens = tokens
    }

    /// Whether `path` (absolute or relative) matches, by its text (`PathText`: a byte that is not UTF-8 matches
    /// only its escape).
    public func matches(_ path: FilePath) -> Bool { matches(pathText: path.pathText) }

    /// Whether the path `path` stands for (`PathText`, `/` separators, absolute or relative) matches.
    package func matches(pathText path: String) -> Bool {
        let characters = Array(path.hasPrefix("/") ? String(path.dropFirst()) : path)
        let leading = text.hasPrefix("/") ? Array(tokens.dropFirst()) : tokens
        return match(leading[...], characters[...])
    }

    private func match(_ pattern: ArraySlice<Token>, _ path: ArraySlice<Character>) -> Bool {
        guard let token = pattern.first else { return path.isEmpty }
        let rest = pattern.dropFirst()
        switch token {
        case .literal(let c):
            return path.first == c && match(rest, path.dropFirst())
        case .anyCharacter:
            guard let c = path.first, c != "/" else { return false }
            return match(rest, path.dropFirst())
        case .anyRun:
            var tail = path
            while true {
                if match(rest, tail) { return true }
                guard let c = tail.first, c != "/" else { return false }
                tail = tail.dropFirst()
            }
        case .anyPath:
            // Zero or more whole folders: try at the start and after each "/".
            if match(rest, path) { return true }
            var tail = path
            while let slash = tail.firstIndex(of: "/") {
                tail = tail[(slash + 1)...]
                if match(rest, tail) { return true }
            }
            return false
        case .anyAll:
            var tail = path
            while true {
                if match(rest, tail) { return true }
                guard !tail.isEmpty else { return false }
                tail = tail.dropFirst()
            }
        }
    }

    public var description: String { text }
}
