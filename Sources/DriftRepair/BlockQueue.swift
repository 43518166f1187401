import DriftCore
import Foundation

/// A block of interleaved float frames handed between the I/O threads and the converter.
final class AudioBlock: @unchecked Sendable {  // owned by one thread at a time; handed over only through BlockQueue
    let samples: UnsafeMutablePointer<Float>
    let capacity: Int
    var frames = 0

    init(frames capacity: Int, channels: Int) {
        self.capacity = capacity
        samples = .allocate(capacity: capacity * channels)
    }

    deinit {
        samples.deallocate()
    }
}

/// A small bounded FIFO between two threads. `pop` waits for an item, `push` for room; after `close` both
/// return at once (pop drains what is left first), so either side can stop the other.
final class BlockQueue<Element>: @unchecked Sendable {  // all mutable state is guarded by `condition`
    private let condition = NSCondition()
    private var items: [Element] = []
    private let capacity: Int
    private var closed = false

    init(capacity: Int) {
        self.capacity = capacity
        items.reserveCapacity(capacity)
    }

    /// Appends `item`, waiting while the queue is full. Returns false if the queue was closed.
    @discardableResult
    func push(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Removes the oldest item, waiting while the queue is empty; nil once closed and empty.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        guard !items.isEmpty else { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
