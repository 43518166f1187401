import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Crash injection for the crash-and-resume tests: with `DRIFTFIX_FAILPOINT=NAME:N` in the environment, the N-th
/// time the process passes the point NAME it kills itself with SIGKILL (no clean-up, no flush: a real crash at a
/// known place). `NAME:N:stop` stops it with SIGSTOP instead (a hung process: alive, holding what it holds, silent),
/// for the test to kill later. `NAME:N:delay` makes the N-th pass and every later one wait a second, `NAME:N:delayS`
/// S seconds (a slow disk or a slow machine, where the test must not depend on how fast the rest runs). Without the variable a point costs one
/// comparison.
public enum Failpoint {
    private enum Action {
        case signal(Int32)
        case delay(UInt32)
    }

    private static let armed: (name: String, count: Int, action: Action)? = {
        guard let raw = getenv("DRIFTFIX_FAILPOINT").map({ String(cString: $0) }) else { return nil }
        let parts = raw.split(separator: ":", maxSplits: 2)
        guard let name = parts.first else { return nil }
        let count = parts.count >= 2 ? Int(parts[1]) ?? 1 : 1
        let mode = parts.count == 3 ? parts[2] : ""
        let action: Action =
            mode.hasPrefix("delay")
            ? .delay(UInt32(mode.dropFirst(5)) ?? 1) : .signal(mode == "stop" ? SIGSTOP : SIGKILL)
        return (String(name), count, action)
    }()
    private static let passes = Mutex(0)

    /// Passes the point `name`.
    public static func hit(_ name: String) {
        guard let armed, armed.name == name else { return }
        let count = passes.withLock { value in
            value += 1
            return value
        }
        // raise(): directed at this thread, so it stops here and now (a process-directed SIGSTOP is taken by another
        // thread, and this one runs on for a few instructions first).
        switch armed.action {
        case .signal(let signal) where count == armed.count: raise(signal)
        case .delay(let seconds) where count >= armed.count: sleep(seconds)
        default: break
        }
    }
}
