#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Crash injection for the crash-and-resume tests: with `DRIFTFIX_FAILPOINT=NAME:N` in the environment, the N-th
/// time the process passes the point NAME it kills itself with SIGKILL (no clean-up, no flush: a real crash at a
/// known place). Without the variable a point costs one comparison.
public enum Failpoint {
    private static let armed: (name: String, count: Int)? = {
        guard let raw = getenv("DRIFTFIX_FAILPOINT").map({ String(cString: $0) }) else { return nil }
        let parts = raw.split(separator: ":", maxSplits: 1)
        guard let name = parts.first else { return nil }
        return (String(name), parts.count == 2 ? Int(parts[1]) ?? 1 : 1)
    }()
    private static let passes = Mutex(0)

    /// Passes the point `name`.
    public static func hit(_ name: String) {
        guard let armed, armed.name == name else { return }
        let count = passes.withLock { value in
            value += 1
            return value
        }
        if count == armed.count { kill(getpid(), SIGKILL) }
    }
}
