import DriftCore
import DriftSupport
import Foundation

/// A cheap identity for a media file: size, modification time (ns) and an FNV-1a 64 hash of its first and last
/// 64 KiB and three 16 KiB blocks at a quarter, half and three quarters. Reading about 180 KiB instead of
/// gigabytes keeps a nightly run over an unchanged tree fast, and still catches a file rewritten in place with the
/// same size and a restored time stamp in the parts that change when audio is re-encoded or re-recorded (headers,
/// and sampled data).
public enum FileFingerprint {
    static let edgeBytes = 64 * 1024
    static let sampleBytes = 16 * 1024

    /// "SIZE:MTIME_NS:HASH", or nil when the file cannot be read.
    public static func of(path: String) -> String? {
        let descriptor = PathText.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int64(info.st_size)
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)

        var ranges: [(offset: Int64, count: Int)] = [(0, edgeBytes)]
        for quarter in 1...3 { ranges.append((size * Int64(quarter) / 4, sampleBytes)) }
        ranges.append((max(0, size - Int64(edgeBytes)), edgeBytes))

        var hash = FNV1a64()
        var buffer = [UInt8](repeating: 0, count: edgeBytes)
        for range in ranges {
            let count = buffer.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, range.count, off_t(range.offset))
            }
            guard count >= 0 else { return nil }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return "\(size):\(modified):\(hash.hex)"
    }
}
