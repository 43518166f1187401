import Foundation
import Synchronization

/// Batches finished spans and sends them from a thread of its own, so a span's end costs the traced code an append
/// under a lock, never a network round trip. The queue is bounded: spans beyond it, and spans a failed request
/// carried, are dropped and counted (`dropped`), so a collector that is away costs neither memory nor time.
public final class SpanExporter: Sendable {
    /// What has become of the spans so far.
    public struct Counts: Sendable, Equatable {
        /// Spans the collector accepted.
        public var exported = 0
        /// Spans dropped: the queue was full, or the request carrying them failed.
        public var dropped = 0
        /// Requests that failed.
        public var failedRequests = 0
        /// The last failure, for a log line.
        public var lastFailure: String?
    }

    private struct State {
        var queue: [FinishedSpan] = []
        var counts = Counts()
        var stopping = false
        var lastFailed = false
        /// When the request now being sent started (nil: none is).
        var sending: ContinuousClock.Instant?
        /// Whether a request was ever made: until then the queue is looked at every half second, so a collector
        /// that is away is known early (and not waited for at the end) even in a short night.
        var tried = false
        /// Whether the collector ever accepted a request: until it has, a process's end gives it `unprovenBudget`,
        /// not `endBudget` (a collector that takes a connection and never answers costs a night a quarter second).
        var answered = false

        /// A collector that failed the last request, or has kept one waiting a quarter of a second: not worth
        /// waiting for at a process's end.
        var unanswering: Bool {
            lastFailed || sending.map { ContinuousClock.now - $0 > .milliseconds(250) } ?? false
        }
    }

    let settings: TraceSettings
    private let resource: [(String, FinishedSpan.Value)]
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    /// Called once per failed request with the reason (the first one logged, later ones counted).
    private let onFailure: @Sendable (String) -> Void

    public init(
        settings: TraceSettings, resource: [(String, FinishedSpan.Value)],
        onFailure: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.settings = settings
        self.resource = resource
        self.onFailure = onFailure
        let thread = Thread { [self] in loop() }
        thread.name = "driftfix-trace-export"
        thread.start()
    }

    public var counts: Counts { state.withLock { $0.counts } }

    /// Queues a finished span (or counts it dropped when the queue is full).
    public func submit(_ span: FinishedSpan) {
        let full = state.withLock { state -> Bool in
            guard !state.stopping, state.queue.count < settings.maxQueue else {
                state.counts.dropped += 1
                return false
            }
            state.queue.append(span)
            return state.queue.count == settings.maxBatch
        }
        if full { wake.signal() }
    }

    /// The longest a process's end waits for its spans: a collector that answers takes milliseconds; one that does
    /// not must not hold the night's end (nor a worker's exit, which the night waits for).
    public static let endBudget = 1.0
    /// The longest a process's end waits for a collector that never answered a request (a night shorter than the
    /// first export): as long as `unanswering` gives one a request already waits.
    public static let unprovenBudget = 0.25

    /// What a process's end may spend on its last requests now.
    private var finalBudget: Double { state.withLock { $0.answered } ? Self.endBudget : Self.unprovenBudget }

    /// Sends everything queued now, on the caller's thread, within `endBudget` (`unprovenBudget` for a collector that
    /// never answered). Against a collector that is not answering (the last request failed, or one is waiting)
    /// nothing is tried: the spans are counted dropped.
    public func flush() {
        let deadline = ContinuousClock.now + .seconds(finalBudget)
        while let batch = take() {
            let remaining = (deadline - ContinuousClock.now).components
            let left = Double(remaining.seconds) + Double(remaining.attoseconds) / 1e18
            guard left > 0.01, !state.withLock({ $0.unanswering }) else {
                dropped(batch, why: nil)
                continue
            }
            send(batch, within: left)
        }
    }

    /// Sends what is queued and stops the thread, waiting `endBudget` at most (`unprovenBudget` for a collector that
    /// never answered: the last request is bounded so), and not at all for a collector that is not answering.
    public func shutdown() {
        let unanswering = state.withLock { state in
            state.stopping = true
            return state.unanswering
        }
        wake.signal()
        let budget = finalBudget
        let finished = !unanswering && done.wait(timeout: .now() + budget) == .success
        guard !finished else { return }
        // A request still waiting at the end (a collector that took the connection and never answered): said once,
        // unless its failure was said already.
        let waiting = state.withLock { state -> Bool in
            defer { state.lastFailed = true }
            return !state.lastFailed && (state.sending != nil || !state.queue.isEmpty)
        }
        if waiting {
            onFailure(
                "\(settings.endpoint): no answer within \(budget) s at the process's end, so its last spans are dropped"
            )
        }
    }

    private func take() -> [FinishedSpan]? {
        state.withLock { state in
            let count = min(settings.maxBatch, state.queue.count)
            guard count > 0 else { return nil }
            defer { state.queue.removeFirst(count) }
            return Array(state.queue.prefix(count))
        }
    }

    private func loop() {
        while true {
            let tried = state.withLock { $0.tried }
            _ = wake.wait(timeout: .now() + (tried ? settings.delay : min(settings.delay, 0.5)))
            let stopping = state.withLock { $0.stopping }
            while let batch = take() {
                if stopping && state.withLock({ $0.unanswering }) {
                    dropped(batch, why: nil)
                    continue
                }
                send(batch, within: stopping ? finalBudget : settings.timeout)
            }
            if stopping {
                state.withLock { state in
                    state.counts.dropped += state.queue.count
                    state.queue.removeAll()
                }
                done.signal()
                return
            }
        }
    }

    /// One request; `within` bounds it (and a collector that failed the last request gets a second at most).
    private func send(_ batch: [FinishedSpan], within limit: Double) {
        let body = OTLPEncoder.request(batch, resource: resource, scope: "driftfix", version: TraceSettings.version)
        let failing = state.withLock { state in
            state.sending = .now
            state.tried = true
            return state.lastFailed
        }
        defer { state.withLock { $0.sending = nil } }
        do {
            try HTTPPost.send(
                body, to: settings.endpoint, headers: settings.headers,
                timeout: min(limit, failing ? min(settings.timeout, 1) : settings.timeout))
            state.withLock { state in
                state.counts.exported += batch.count
                state.lastFailed = false
                state.answered = true
            }
        } catch {
            dropped(batch, why: "\(settings.endpoint): \(error)")
        }
    }

    /// Counts `batch` dropped; `why` (a failed request) is logged the first time in a row.
    private func dropped(_ batch: [FinishedSpan], why: String?) {
        let first = state.withLock { state -> Bool in
            state.counts.dropped += batch.count
            guard let why else { return false }
            state.counts.failedRequests += 1
            state.counts.lastFailure = why
            defer { state.lastFailed = true }
            return !state.lastFailed
        }
        if first, let why { onFailure(why) }
    }
}

extension TraceSettings {
    /// The instrumentation scope's version in every request.
    public static let version = "1"
}
