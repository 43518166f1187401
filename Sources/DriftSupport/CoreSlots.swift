import Glibc
import Synchronization

/// The cores of this host that driftfix processes of one user are busy on, so that a long job's extra threads use
/// only idle ones (the night's last files) and give them back when other jobs need them.
///
/// A core is held by binding an abstract Unix socket name, `\0<namespace>-core-<cpu>` for each CPU id in the
/// process's affinity mask: binding is exclusive host-wide (per network namespace), and the kernel frees the name
/// when its holder closes it or exits, however it exits - nothing is left behind to clean up. Processes pinned to
/// other CPUs (Slurm tasks, cpusets) hold other names. A job takes a core if one is free; if none is, it binds a
/// `demand` name of its CPU set instead, and while one is bound no idle core of that set is lent.
public final class CoreSlots: Sendable {
    /// The host's slots for this user: the CPUs this process may use.
    public static let host = CoreSlots(cpus: Cores.allowed, namespace: "driftfix-\(getuid())")

    /// The CPU ids whose cores are accounted here.
    public let cpus: [Int]
    public let namespace: String
    /// Names the demand names of this CPU set (one set, one family of demand names).
    private let set: String

    public var cores: Int { cpus.count }

    public init(cpus: [Int], namespace: String) {
        self.cpus = cpus.isEmpty ? [0] : cpus
        self.namespace = namespace
        var hash = FNV1a64()
        self.cpus.map(String.init).joined(separator: ",").utf8CString.withUnsafeBytes { hash.update($0) }
        set = hash.hex
    }

    /// Slots for CPUs 0 ..< cores.
    public convenience init(cores: Int, namespace: String) {
        self.init(cpus: Array(0..<max(1, cores)), namespace: namespace)
    }

    /// A bound name: released by `release()`, when dropped, or when the process ends.
    public final class Hold: Sendable {
        /// A core, or only the claim that a job is waiting for one.
        public let isCore: Bool
        /// The bound socket; -1 once released (by whichever thread releases first).
        private let descriptor: Atomic<Int32>

        init(descriptor: Int32, isCore: Bool) {
            self.descriptor = Atomic(descriptor)
            self.isCore = isCore
        }

        public func release() {
            let held = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
            if held >= 0 { close(held) }
        }

        deinit { release() }
    }

    /// For a job that is starting: a free core, or else a demand that stops lending until this job ends. Nil only if
    /// sockets cannot be made (the job then runs unaccounted).
    public func takeForJob() -> Hold? {
        bindCore() ?? bindFirst("demand-\(set)", count: demandNames, isCore: false)
    }

    /// For a helper thread: an idle core, or nil where none is free or a job waits for one.
    public func borrowIdle() -> Hold? {
        for index in 0..<demandNames {
            guard let probe = bind("\(namespace)-demand-\(set)-\(index)") else { return nil }  // a job waits
            close(probe)
        }
        return bindCore()
    }

    private func bindCore() -> Hold? {
        for cpu in cpus {
            if let descriptor = bind("\(namespace)-core-\(cpu)") { return Hold(descriptor: descriptor, isCore: true) }
        }
        return nil
    }

    private var demandNames: Int { 4 * cores + 16 }

    private func bindFirst(_ kind: String, count: Int, isCore: Bool) -> Hold? {
        for index in 0..<count {
            if let descriptor = bind("\(namespace)-\(kind)-\(index)") {
                return Hold(descriptor: descriptor, isCore: isCore)
            }
        }
        return nil
    }

    /// A socket bound to the abstract name, or nil if the name is taken (or no socket could be made).
    private func bind(_ name: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8.prefix(MemoryLayout.size(ofValue: address.sun_path) - 1))
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path[0] = 0  // abstract: no file
            for (index, byte) in bytes.enumerated() { path[index + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + bytes.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
