import DriftCore
import Foundation

import struct SystemPackage.FilePath

/// The mounted volume a path lies on, for messages that must say which disk failed (full, read-only).
enum Volume {
    /// The mount point of the file system holding `path` (or its nearest existing folder), from
    /// /proc/self/mountinfo; nil when it cannot be told.
    static func mountPoint(of path: String) -> String? {
        let resolved = FilePath(path).resolvingLinks()
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else {
            return nil
        }
        var best: String?
        for line in table.split(separator: "\n") {
            // Fields: id, parent id, major:minor, root, mount point, ... (the mount point's blanks escaped as \040).
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count > 4 else { continue }
            let point = unescaped(String(fields[4]))
            if resolved.isInside(FilePath(point)) && point.count > (best?.count ?? -1) { best = point }
        }
        return best
    }

    /// Undoes the kernel's octal escapes (`\040` for a blank, `\011`, `\012`, `\134`).
    private static func unescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var bytes: [UInt8] = []
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "\\"), index + 3 < source.count,
                let value = UInt8(String(decoding: source[(index + 1)...(index + 3)], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
