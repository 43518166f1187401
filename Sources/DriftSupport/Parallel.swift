import Dispatch
import Synchronization

/// Work spread over this process's threads, results in order.
package enum Parallel {
    /// `body` over `items` on `threads` threads, results in order.
    package static func map<T: Sendable, R: Sendable>(_ items: [T], threads: Int, _ body: @Sendable (T) -> R) -> [R] {
        let results = Mutex<[Int: R]>([:])
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(max(1, threads), max(1, items.count))) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < items.count else { return }
                let result = body(items[index])
                results.withLock { $0[index] = result }
            }
        }
        return results.withLock { map in items.indices.compactMap { map[$0] } }
    }
}
