import DriftCoordinator
import DriftJobs
import DriftSchema
import Instrumentation

#if LiveMetrics
    import DriftMetrics
#endif

/// A run's rounds of jobs, as progress and live metrics name them.
public enum RunRound: String, Sendable, CaseIterable {
    /// Pairs repaired (or measured, by a scan with content) by names.
    case repairs
    /// Files printed for pairing by sound.
    case prints
    /// Clips synced (measured, chosen, cut).
    case clips
}

/// Sees a run as it goes (progress bars, logs, a service's own progress), round by round.
public protocol RunObserver: Sendable {
    /// What happened, on the thread that saw it (the coordinator loop's, or a job thread's when the work runs on
    /// threads): keep it short, or hand it on.
    func event(_ event: RunEvent)
    /// The run returned (after its last event), whether it succeeded or not.
    func runEnded()
}

extension RunObserver {
    public func runEnded() {}
}

/// A run's events as an `AsyncSequence`: give the stream to `Run` as its observer and iterate `events` in another
/// task; the sequence ends when the run returns.
public final class RunEventStream: RunObserver {
    public let events: AsyncStream<RunEvent>
    private let continuation: AsyncStream<RunEvent>.Continuation

    /// - Parameter buffering: what the stream keeps while nobody reads it (by default every event: a night's events
    ///   are a few per job).
    public init(buffering: AsyncStream<RunEvent>.Continuation.BufferingPolicy = .unbounded) {
        (events, continuation) = AsyncStream.makeStream(of: RunEvent.self, bufferingPolicy: buffering)
    }

    public func event(_ event: RunEvent) { continuation.yield(event) }
    public func runEnded() { continuation.finish() }
}

/// Everything that watches a run: the observer and the live metrics, fed the same rounds and events.
struct Watch: Sendable {
    let observer: RunObserver?
    let live: LiveRunMetrics?
    /// Whether the live series carry the round (a night with sound rounds); a night by names alone keeps its series
    /// unlabelled, as dashboards know them.
    let labelled: Bool
    /// The coordinator's span per job (nothing while tracing is off).
    let spans = JobSpans()

    func planned(_ jobs: [JobRecord], round: RunRound) {
        spans.planned(jobs, round: round)
        observer?.event(.planned(round, jobs.map(PlannedJob.init)))
        live?.planned(jobs, round: labelled ? round.rawValue : nil)
    }

    func devices(_ summaries: [DeviceSummary], limit: Int) {
        live?.devices(summaries, limit: limit)
    }

    /// The events as one function, for an executor.
    var events: @Sendable (DispatchEvent) -> Void {
        { [observer, live, spans] event in
            // A job's lines (started, requeued, failed) are logged inside its span: they carry its trace id.
            let context = spans.context(for: event)
            spans.event(event)
            guard let context else { return Self.notify(observer, live, event) }
            InstrumentationContext.withValue(context) { Self.notify(observer, live, event) }
        }
    }

    private static func notify(_ observer: RunObserver?, _ live: LiveRunMetrics?, _ event: DispatchEvent) {
        if let event = RunEvent(event) { observer?.event(event) }
        live?.event(event)
    }

    /// The run's work ended.
    func finished() {
        spans.finished()
        observer?.event(.finished)
    }
}
