internal import CLinux
import Glibc

/// The processors this process may run on: its CPU affinity (taskset, a container's or Slurm's cpuset), not every
/// processor the machine has.
public enum Cores {
    /// The CPU ids in this process's affinity mask, ascending; every online processor where the mask is unreadable.
    public static var allowed: [Int] {
        var ids = [Int32](repeating: 0, count: 1024)
        let count = ids.withUnsafeMutableBufferPointer { Int(driftfix_allowed_cpus($0.baseAddress, Int32($0.count))) }
        guard count > 0 else { return Array(0..<max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
        return ids.prefix(count).map(Int.init)
    }

    /// How many processors this process may use (at least 1).
    public static var available: Int { max(1, allowed.count) }
}
