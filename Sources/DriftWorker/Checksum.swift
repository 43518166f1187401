import DriftSupport
import Foundation

/// FNV-1a 64 of a file's bytes, read in 1 MiB blocks.
public enum Checksum {
    public static func fnv1a64(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        return fnv1a64(handle)
    }

    /// The checksum of an open file (the descriptor is closed).
    static func fnv1a64(descriptor: Int32) -> String? {
        fnv1a64(FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    private static func fnv1a64(_ handle: FileHandle) -> String? {
        defer { try? handle.close() }
        var hash = FNV1a64()
        while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty {
            data.withUnsafeBytes { hash.update($0) }
        }
        return hash.hex
    }
}
