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
}
