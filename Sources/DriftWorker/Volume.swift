import DriftCore
import Foundation

import struct SystemPackage.FilePath

/// The mounted volume a path lies on, for messages that must say which disk failed (full, read-only).
enum Volume {
    /// The mount point of the file system holding `path` (or its nearest existing folder): the highest folder above it
    /// on the same device. Told by `stat`, not by reading /proc/self/mountinfo, whose text can skip a line while other
    /// mounts come and go (it named `/` for a read-only tmpfs on a busy machine); nil when it cannot be told.
    static func mountPoint(of path: String) -> String? {
        var current = FilePath(pathText: path).resolvingLinks()
        var info = stat()
        while PathText.withCString(current.pathText, { stat($0, &info) }) != 0 {
            guard !current.components.isEmpty else { return nil }
            current.removeLastComponent()
        }
        let device = info.st_dev
        while !current.components.isEmpty {
            let parent = current.removingLastComponent()
            var above = stat()
            guard !parent.isEmpty, PathText.withCString(parent.pathText, { stat($0, &above) }) == 0,
                above.st_dev == device
            else { break }
            current = parent
        }
        return current.pathText
    }
}
