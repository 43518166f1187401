import Foundation

/// Paths given on the command line, made absolute and standardised (`..` and `.` removed) once, the same way for
/// every subcommand: roots, outputs, journals, key files.
enum Paths {
    static func absolute(_ path: String) -> String {
        let standard = (path as NSString).standardizingPath
        if standard.hasPrefix("/") { return standard }
        return ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(standard) as NSString)
            .standardizingPath
    }
}
