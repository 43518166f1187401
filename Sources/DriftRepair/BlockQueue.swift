import DriftCore
import DriftSupport
import Foundation

/// A block of interleaved float frames handed between the I/O threads and the converter.
/// Owned by one thread at a time: handed over only through a `BlockQueue`.
final class AudioBlock {
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
/// return at once (pop drains what is left first), so either side can stop the other. An item is owned by the thread
/// that pushed it until then, and by the one that pops it from then on (`Guarded`'s contract).
final class BlockQueue<Element>: Sendable {
    private struct Line {
        var items: [Element] = []
        var closed = false
    }

    private let line: Guarded<Line>
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        var items: [Element] = []
        items.reserveCapacity(capacity)
        line = Guarded(Line(items: items))
    }

    /// Appends `item`, waiting while the queue is full. Returns false if the queue was closed.
    @discardableResult
    func push(_ item: Element) -> Bool {
        let capacity = capacity
        let room = { (line: Line) in line.items.count < capacity || line.closed }
        return line.when(room) { line in
            guard !line.closed else { return false }
            line.items.append(item)
            return true
        }
    }

    /// Removes the oldest item, waiting while the queue is empty; nil once closed and empty.
    func pop() -> Element? {
        let news = { (line: Line) in !line.items.isEmpty || line.closed }
        return line.when(news) { line in
            line.items.isEmpty ? nil : line.items.removeFirst()
        }
    }

    func close() {
        line.withLock { $0.closed = true }
    }
}
