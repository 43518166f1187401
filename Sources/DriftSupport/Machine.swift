import Glibc

/// This machine, as the kernel names it.
public enum Machine {
    /// The host name (`gethostname`): workers announce it, failures name it, temporary files carry it so that the
    /// leftovers of dead writers can be told apart per machine.
    public static let name: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()
}
