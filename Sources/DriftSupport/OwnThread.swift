import Foundation

/// Blocking work (files, DSP) run on a thread of its own and awaited, so it never holds one of the cooperative pool's
/// few threads (two on this machine) while it reads and writes.
public enum OwnThread {
    /// Runs `body` on a new thread named `name` and returns what it returned, or throws what it threw.
    public static func run<Value: Sendable>(
        name: String, _ body: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.name = name
            thread.start()
        }
    }

    /// Runs `body` on a new thread that owns `owned` from then on (a loop object that thread alone uses), and returns
    /// what it returned: the one hand-over of such an object, so its holders need no `@unchecked Sendable`.
    public static func run<Owned, Value: Sendable>(
        name: String, owning owned: sending Owned, _ body: @escaping @Sendable (Owned) throws -> Value
    ) async throws -> Value {
        let handed = Handover(value: owned)
        return try await run(name: name) { try body(handed.value) }
    }
}
