import Synchronization

/// Waiters for sets of jobs, woken by completion events (the dispatcher's `jobFinished`, a thread's own end), never by
/// polling: each `submit` waits for its jobs only, and every waiter is woken when the run ends, finished or not.
final class JobCompletions: Sendable {
    private struct Waiter {
        var remaining: Set<Int>
        var continuation: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var waiters: [Int: Waiter] = [:]
        var nextToken = 0
        var ended = false
    }

    private let state = Mutex(State())

    /// Starts waiting for `ids` (before they can finish); the token is given to `wait`.
    func expect(_ ids: Set<Int>) -> Int {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.waiters[token] = Waiter(remaining: ids)
            return token
        }
    }

    /// Returns once every job of `token` finished, or the run ended.
    func wait(_ token: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard !state.ended, let waiter = state.waiters[token], !waiter.remaining.isEmpty else {
                    state.waiters[token] = nil
                    return true
                }
                state.waiters[token]?.continuation = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Job `id` finished.
    func finished(_ id: Int) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            var woken: [CheckedContinuation<Void, Never>] = []
            for (token, var waiter) in state.waiters where waiter.remaining.remove(id) != nil {
                if waiter.remaining.isEmpty, let continuation = waiter.continuation {
                    woken.append(continuation)
                    state.waiters[token] = nil
                } else {
                    state.waiters[token] = waiter
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    /// The run ended: nothing more will finish; every waiter goes on.
    func end() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended = true
            defer { state.waiters = [:] }
            return state.waiters.values.compactMap(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    var hasEnded: Bool { state.withLock { $0.ended } }
}
