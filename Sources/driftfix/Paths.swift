import DriftKit
import Foundation

import struct SystemPackage.FilePath

/// Paths given on the command line, made absolute and standardised (`..` and `.` removed) once, the same way for
/// every subcommand: roots, outputs, journals, key files.
enum Paths {
    static func absolute(_ path: String) -> String {
        FilePath.given(path)
    }

    /// `path` made absolute, as the library takes it (its escapes stand for the bytes they name).
    static func file(_ path: String) -> FilePath {
        FilePath(pathText: absolute(path))
    }

    /// `path` as given (relative stays relative, so messages name it as the user wrote it), as the library takes it.
    static func given(_ path: String) -> FilePath {
        FilePath(pathText: path)
    }
}
