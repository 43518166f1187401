import DriftCoordinator
import DriftJobs
import DriftMetrics
import DriftSchema
import Instrumentation

/// A run's rounds of jobs, as progress and live metrics name them.
public enum RunRound: String, Sendable, CaseIterable {
    /// Pairs repaired (or measured, by a scan with content) by names.
    case repairs
    /// Files printed for pairing by sound.
    case prints
    /// Clips synced (measured, chosen, cut).
    case clips
}

/// Sees a run as it goes (progress bars, logs), round by round.
public protocol RunObserver: Sendable {
    /// A round's jobs (the unfinished ones) are about to run.
    func planned(_ jobs: [JobRecord], round: RunRound)
    /// A dispatch event (a job started or finished, a worker joined or was lost), on the thread that saw it.
    func event(_ event: DispatchEvent)
    /// The run's work ended.
    func finished()
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
        observer?.planned(jobs, round: round)
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
        observer?.event(event)
        live?.event(event)
    }

    /// The run's work ended.
    func finished() {
        spans.finished()
        observer?.finished()
    }
}
