import DriftTransport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import DriftCoordinator

/// A stand-in worker: a shell script that ignores the worker arguments it is given (real processes, real signals).
private func workerScript(_ body: String) throws -> String {
    let path =
        FileManager.default.temporaryDirectory.path
        + "/driftfix-pool-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sh"
    // Written through a close-on-exec descriptor: a process another test starts meanwhile must not inherit it open
    // for writing, or executing the script fails with "text file busy".
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
    guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
    let text = Array("#!/bin/sh\n\(body)\n".utf8)
    let written = write(descriptor, text, text.count)
    close(descriptor)
    guard written == text.count else { throw CocoaError(.fileWriteUnknown) }
    return path
}

/// Polls `condition` up to `polls` times, 20 ms apart. Counted in polls, not wall time: while blocking tests of the
/// suite hold the few cooperative threads, this task and the pool's may wait their turn for long stretches.
private func eventually(polls: Int = 1000, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<polls {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// The identity a pool process was started with (`--identity NAME` on its command line).
private func identity(of pid: Int32) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
    let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    return arguments.firstIndex(of: "--identity").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

private final class Exits: Sendable {
    let seen = Mutex<[String]>([])
}

@Suite("LocalWorkerPool: supervision of real processes", .serialized)
struct LocalWorkerPoolTests {
    /// Runs `pool` as a service around `body`, and shuts it down afterwards even when `body` fails: a stand-in worker
    /// left running would outlive the test process and hold the test runner's output open for good.
    private func supervising(_ pool: LocalWorkerPool, _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: pool)], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let task = Task { try await group.run() }
        var failure: (any Error)?
        do { try await body() } catch { failure = error }
        await group.triggerGracefulShutdown()
        try await task.value
        #expect(pool.pids.isEmpty, "no worker outlives the pool")
        if let failure { throw failure }
    }

    @Test("a worker that dies or hangs is reported and replaced under a new identity; shutdown ends the rest")
    func replaces() async throws {
        // Like a real worker it ends when its parent is gone (its parent pid changes), should the test die midway.
        let script = try workerScript(
            """
            parent=$PPID
            while [ "$(cut -d' ' -f4 /proc/$$/stat)" = "$parent" ]; do sleep 0.05; done
            """)
        defer { unlink(script) }
        let inbox = try CoordinatorInbox()
        var settings = LocalWorkerPool.Settings(count: 2, endpoint: "ipc:///nowhere", executable: script)
        settings.stopTimeout = 0.5
        let exits = Exits()
        let pool = try LocalWorkerPool(settings: settings, inbox: inbox, logger: Logger(label: "test")) {
            identity, how in
            exits.seen.withLock { $0.append("\(identity): \(how)") }
        }
        var first: [Int32] = []
        try await supervising(pool) {
            // A process is in the list from its spawn on; its command line shows the identity once it has executed.
            try #require(
                await eventually { pool.pids.count == 2 && pool.pids.allSatisfy { identity(of: $0) != nil } },
                "\(pool.pids) \(inbox.take())")
            first = pool.pids
            let names = first.compactMap(identity(of:))
            #expect(Set(names) == ["local-\(getpid())-1", "local-\(getpid())-2"])

            // Killed (it had connected): reported at once, replaced under a fresh identity.
            pool.joined(names[0])
            kill(first[0], SIGKILL)
            #expect(await eventually { pool.pids.count == 2 && !pool.pids.contains(first[0]) })
            #expect(inbox.take() == [.workerExited(identity: names[0], how: "signal 9")])
            let replacement = try #require(pool.pids.first { $0 != first[1] })
            // Its command line shows the identity once it has executed (as the first two's above).
            #expect(await eventually { identity(of: replacement) != nil })
            #expect(identity(of: replacement) == "local-\(getpid())-3")

            // Hung (the coordinator gave up on it): ended, then replaced like any death.
            pool.silent(names[1])
            #expect(await eventually { pool.pids.count == 2 && !pool.pids.contains(first[1]) })
            #expect(exits.seen.withLock { $0 } == ["\(names[0]): signal 9", "\(names[1]): signal 9"])
            #expect(pool.restarts == 2)
            first.append(replacement)
        }
        #expect(first.allSatisfy { kill($0, 0) != 0 }, "no process outlives the pool")
    }

    @Test("a worker that exits cleanly (it was told to stop) is not replaced")
    func cleanExit() async throws {
        let script = try workerScript("exit 0")
        defer { unlink(script) }
        let inbox = try CoordinatorInbox()
        let pool = try LocalWorkerPool(
            settings: .init(count: 2, endpoint: "ipc:///nowhere", executable: script), inbox: inbox,
            logger: Logger(label: "test"))
        try await supervising(pool) {
            // The pool decides on a restart in the same step that removes the exited pid (`restarts` counts it, and
            // an unclean exit is posted then): once both pids are gone, a wrong restart would show without waiting.
            #expect(await eventually { pool.launched == 2 && pool.pids.isEmpty })
            #expect(pool.restarts == 0 && inbox.take().isEmpty)
        }
    }

    @Test("workers that die before they connect, again and again, end in one pool failure naming how the last ended")
    func crashLoop() async throws {
        let script = try workerScript("exit 127")
        defer { unlink(script) }
        let inbox = try CoordinatorInbox()
        var settings = LocalWorkerPool.Settings(count: 2, endpoint: "ipc:///nowhere", executable: script)
        settings.restartDelay = 0.01
        let pool = try LocalWorkerPool(settings: settings, inbox: inbox, logger: Logger(label: "test"))
        try await supervising(pool) { try await expectOneCrashLoopFailure(pool, inbox) }
    }

    // Apart from the test body: the compiler's sendability pass crashes on this closure nested inside another.
    private func expectOneCrashLoopFailure(_ pool: LocalWorkerPool, _ inbox: CoordinatorInbox) async throws {
        var inputs: [CoordinatorInbox.Input] = []
        #expect(
            await eventually {
                inputs += inbox.take()
                return inputs.contains { if case .poolFailed = $0 { return true } else { return false } }
            })
        // Stragglers still exiting: each one's pid goes in the step that would restart it (nothing does any more).
        #expect(await eventually { pool.pids.isEmpty })
        inputs += inbox.take()
        let failures = inputs.compactMap { input -> String? in
            if case .poolFailed(let reason) = input { return reason } else { return nil }
        }
        #expect(failures.count == 1)
        #expect(failures.first?.contains("(5 in a row, the last with exit status 127)") == true, "\(failures)")
        #expect(
            inputs.filter { $0 != .poolFailed(failures.first ?? "") }.allSatisfy {
                if case .workerExited(_, "exit status 127") = $0 { return true } else { return false }
            })
        #expect(pool.pids.isEmpty, "nothing restarts after the failure")
    }

    @Test("an executable that cannot be started fails the pool at once, naming it")
    func missingExecutable() async throws {
        let inbox = try CoordinatorInbox()
        let pool = try LocalWorkerPool(
            settings: .init(count: 2, endpoint: "ipc:///nowhere", executable: "/nonexistent/driftfix"),
            inbox: inbox, logger: Logger(label: "test"))
        try await supervising(pool) {
            var inputs: [CoordinatorInbox.Input] = []
            #expect(
                await eventually {
                    inputs += inbox.take()
                    return !inputs.isEmpty
                })
            guard case .poolFailed(let reason)? = inputs.first else {
                Issue.record("\(inputs)")
                return
            }
            #expect(reason.contains("cannot start local workers (/nonexistent/driftfix)"), "\(reason)")
        }
    }
}
