import Glibc

/// A one-shot "stop" that wakes a thread blocked in `poll`: a pipe whose read end socket loops poll beside their
/// sockets, so a stop request is an event the loop sees at once, not a flag it samples.
public final class StopEvent: Sendable {
    /// The descriptor to poll for readability.
    public let descriptor: Int32
    private let writeEnd: Int32

    public init() throws(TransportError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw TransportError(operation: "pipe", code: errno, text: String(cString: strerror(errno)))
        }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Asks the loop to stop (any thread; idempotent).
    public func fire() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    /// Reads the pipe empty, for an event used as a repeated wake-up rather than a one-shot stop.
    public func reset() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }

    /// Whether `fire()` was called (the pipe is never read, so it stays readable).
    public var isFired: Bool {
        var item = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&item, 1, 0) == 1 && item.revents & Int16(POLLIN) != 0
    }

    /// Waits up to `seconds` (forever when infinite) for `fire()`; true when it came.
    public func wait(seconds: Double) -> Bool {
        var item = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard seconds.isFinite else {
            while poll(&item, 1, -1) < 0 && errno == EINTR {}
            return true
        }
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, seconds) * 1000))
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = max(
                0, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            )
            let status = poll(&item, 1, milliseconds)
            if status > 0 { return true }
            if status == 0 { return false }
            if errno != EINTR { return false }
        }
    }
}
