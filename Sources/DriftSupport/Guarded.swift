import Foundation

/// State that threads share and wait on: a lock with a condition variable, which `Synchronization.Mutex` has not.
/// Every change under the lock wakes the waiters; each waits for what it needs, said as a predicate on the state.
///
/// Like `Mutex`, the state goes in as `sending` and is only ever reached under the lock. Unlike `Mutex`, what a body
/// takes out is not checked to be disconnected from what stays: the types built on it move each value they take out
/// (a sample block, a piece of converted audio, a segment's packets) to one thread at a time, which the compiler
/// cannot follow through a queue. The one `@unchecked Sendable` of the threads that wait for each other.
public final class Guarded<State>: @unchecked Sendable {  // `state` is reached only under `condition`'s lock
    private let condition = NSCondition()
    private var state: State

    public init(_ state: sending State) {
        self.state = state
    }

    /// Runs `body` on the state under the lock, then wakes every waiter.
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Waits until `ready` holds of the state, then runs `body` on it under the same lock and wakes every waiter.
    public func when<Result, Failure: Error>(
        _ ready: (State) -> Bool, _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !ready(state) { condition.wait() }
        return try body(&state)
    }

    /// Unless `settled` already holds of the state, waits for one change of it or until `deadline`, whichever comes
    /// first (a poll that wakes early); then runs `body` under the lock.
    public func afterChange<Result>(
        unless settled: (State) -> Bool, orUntil deadline: Date, _ body: (inout State) -> Result
    ) -> Result {
        condition.lock()
        defer { condition.unlock() }
        if !settled(state) { _ = condition.wait(until: deadline) }
        return body(&state)
    }

    /// Reads the state under the lock without waking anyone.
    public func read<Result>(_ body: (State) -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body(state)
    }
}
