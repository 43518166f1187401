internal import CLinux
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How a child process ended.
public enum Termination: Equatable, Sendable {
    case exited(Int32)
    case signaled(Int32)

    /// The exit status, or the signal number for a process killed by a signal (as Foundation's `terminationStatus`).
    public var status: Int32 {
        switch self {
        case .exited(let code), .signaled(let code): code
        }
    }
}

/// A child process started with `posix_spawn` in a process group of its own, reaped with `waitpid` on its own pid.
///
/// Tests spawn hundreds of processes from many threads at once. Foundation's `Process` detects exits through a shared
/// run-loop thread and lets its pipes leak into concurrently spawned children, which can leave a waiter blocked for
/// good; a hung test then hangs the whole suite. Here every wait has a deadline: a child still running at its deadline
/// is described (process tree, threads' stacks when gdb is installed), its whole process group is killed, and the
/// result says it timed out, so the test fails with the reason instead of stalling CI.
public final class Child: Sendable {
    public let pid: Int32
    public let command: String
    /// What the reaper and the pipe readers learn, read by the waiter.
    private struct State {
        var ended: Termination?
        var output = Data()
        var errors = Data()
        var stopReading = false
    }
    private let state = Mutex(State())
    private let readersDone = DispatchGroup()
    private let exited = DispatchSemaphore(value: 0)

    /// Output handling for standard output and standard error.
    public enum Stream: Sendable {
        case capture
        case discard
    }

    /// Starts `executable` with `arguments`; the environment is this process's, merged with `environment` after
    /// `removing` is taken out. Standard input is /dev/null.
    ///
    /// - Parameter reaping: false leaves the child unreaped when it ends (a zombie, as under an init that reaps
    ///   late) until `reap()` is called.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
        stdout: Stream = .capture, stderr: Stream = .capture, reaping: Bool = true
    ) throws {
        command = ([executable] + arguments).joined(separator: " ")
        var env = ProcessInfo.processInfo.environment
        for key in removing { env.removeValue(forKey: key) }
        env.merge(environment) { _, new in new }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        var pipes: [(read: Int32, write: Int32)] = []
        defer { for pipe in pipes { close(pipe.write) } }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (target, stream) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch stream {
            case .discard:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .capture:
                var fds: [Int32] = [-1, -1]
                guard driftfix_pipe_cloexec(&fds) == 0 else { throw ChildError.spawn(executable, errno) }
                pipes.append((fds[0], fds[1]))
                posix_spawn_file_actions_adddup2(&actions, fds[1], target)
            }
        }
        // Nothing else of the test process (other tests' pipes among them) reaches the child.
        driftfix_spawn_closefrom(&actions, 3)

        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let code = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard code == 0 else {
            for pipe in pipes { close(pipe.read) }
            throw ChildError.spawn(executable, code)
        }
        pid = child
        // Reaped the moment it ends, as a real parent would: a zombie still answers kill(pid, 0), and the
        // coordinator's "is that worker alive" checks would see one.
        if reaping {
            let reaper = Thread { [self] in reap() }
            reaper.start()
        }
        for (index, pipe) in pipes.enumerated() {
            let isOutput = index == 0 && stdout == .capture
            readersDone.enter()
            let thread = Thread { [self] in
                drain(pipe.read, intoOutput: isOutput)
                close(pipe.read)
                readersDone.leave()
            }
            thread.start()
        }
    }

    /// Waits for the child to end and reaps it (called by the reaper thread, or by the test for a child started with
    /// `reaping: false`); returns how it ended.
    @discardableResult
    public func reap() -> Termination {
        var status: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(pid, &status, 0)
        } while result < 0 && errno == EINTR
        // WIFEXITED / WTERMSIG by hand: the C macros are not imported.
        let signal = status & 0x7F
        let termination: Termination = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
        state.withLock { $0.ended = termination }
        exited.signal()
        return termination
    }

    private func drain(_ fd: Int32, intoOutput: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 100)
            if ready == 0 {
                if state.withLock({ $0.stopReading }) { return }
                continue
            }
            if ready < 0 && errno == EINTR { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            state.withLock {
                if intoOutput {
                    $0.output.append(contentsOf: buffer[0..<count])
                } else {
                    $0.errors.append(contentsOf: buffer[0..<count])
                }
            }
        }
    }

    /// What the child has written to standard output so far.
    public var outputSoFar: String { state.withLock { String(decoding: $0.output, as: UTF8.self) } }

    /// What the child has written to standard error so far.
    public var errorsSoFar: String { state.withLock { String(decoding: $0.errors, as: UTF8.self) } }

    /// Whether the child still runs.
    public var isRunning: Bool { termination == nil }

    /// How the child ended, or nil while it runs.
    public var termination: Termination? { state.withLock { $0.ended } }

    /// Sends `signal` to the child (its pid only, not its group).
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits up to `seconds` for the child to end and its output pipes to close (a grandchild that keeps them open
    /// counts as still running). At the deadline the child's process group is described and killed.
    public func wait(seconds: Double) -> CommandResult {
        let deadline = DispatchTime.now() + seconds
        var timedOut = exited.wait(timeout: deadline) == .timedOut
        if !timedOut {
            exited.signal()  // for a later wait
            timedOut = readersDone.wait(timeout: deadline) == .timedOut
        }
        var diagnosis = ""
        if timedOut {
            diagnosis = describe()
            FileHandle.standardError.write(Data(diagnosis.utf8))
            let descendants = Self.descendants(of: pid)
            if isRunning { kill(-pid, SIGKILL) }
            for descendant in descendants { kill(descendant, SIGKILL) }
            exited.wait()
            exited.signal()
            state.withLock { $0.stopReading = true }
        }
        readersDone.wait()
        let termination = self.termination ?? .signaled(SIGKILL)
        return state.withLock {
            CommandResult(
                status: termination.status, stdout: String(decoding: $0.output, as: UTF8.self),
                stderr: String(decoding: $0.errors, as: UTF8.self) + diagnosis,
                signaled: { if case .signaled = termination { true } else { false } }(), timedOut: timedOut)
        }
    }

    /// The process tree under the child and, where gdb is installed, every thread's stack.
    private func describe() -> String {
        var text = "\n=== timed out, killing its process group: \(command)\n"
        let tree = [pid] + Self.descendants(of: pid)
        for member in tree {
            let line =
                (try? String(contentsOfFile: "/proc/\(member)/cmdline", encoding: .utf8))?
                .replacingOccurrences(of: "\u{0}", with: " ") ?? "?"
            let state =
                (try? String(contentsOfFile: "/proc/\(member)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(
                    2
                ).first ?? "?"
            text += "  pid \(member) [\(state)]: \(line)\n"
        }
        let gdb = ["/usr/bin/gdb"].first { FileManager.default.isExecutableFile(atPath: $0) }
        if let gdb {
            for member in tree {
                let stacks = try? Child(
                    gdb, ["-batch", "-nx", "-p", "\(member)", "-ex", "thread apply all bt 30"], stderr: .discard)
                if let result = stacks?.wait(seconds: 60), !result.timedOut {
                    text +=
                        "--- stacks of \(member)\n"
                        + result.stdout.split(separator: "\n")
                        .filter { $0.hasPrefix("#") || $0.hasPrefix("Thread") }.joined(separator: "\n") + "\n"
                }
            }
        }
        return text + "=== end\n"
    }

    /// Every process descended from `root`, found through /proc (children first reparented to init are missed).
    static func descendants(of root: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var parents: [pid_t: pid_t] = [:]
        for entry in entries {
            guard let candidate = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { parents[candidate] = parent }
        }
        var found: [pid_t] = []
        var frontier = [root]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            found += children
            frontier += children
        }
        return found
    }

}

public enum ChildError: Error, CustomStringConvertible {
    case spawn(String, Int32)

    public var description: String {
        switch self {
        case .spawn(let path, let code): "cannot start \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// Runs a program to its end (at most `seconds`) and returns its status and output.
public func runChild(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    removing: [String] = [], seconds: Double = 300
) throws -> CommandResult {
    try Child(executable, arguments, environment: environment, removing: removing).wait(seconds: seconds)
}

/// Polls `condition` every 10 ms until it holds or `seconds` have passed; returns whether it held.
@discardableResult
public func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
