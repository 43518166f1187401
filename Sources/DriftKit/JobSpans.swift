import DriftCoordinator
import DriftJobs
import DriftTrace
import DriftWire
import Instrumentation
import Synchronization
import Tracing

/// The coordinator's span for each job, from queued to its result: leases and requeues are its events, and its
/// context travels in the job message (`traceparent`) so the worker's span is its child. Empty while tracing is off.
final class JobSpans: Sendable {
    private struct State {
        var jobs: [Int: (span: any Span, round: RunRound)] = [:]
        /// Each round's dispatch span, and its jobs still open.
        var rounds: [RunRound: (span: any Span, open: Int)] = [:]
    }

    private let state = Mutex(State())

    /// Opens a span for each job not yet traced, below its round's dispatch span (opened with the round's first
    /// jobs, as a child of the span the caller is in: the night's).
    func planned(_ jobs: [JobRecord], round: RunRound) {
        guard Traces.isOn, !jobs.isEmpty else { return }
        let night = InstrumentationContext.current ?? .topLevel
        state.withLock { state in
            if state.rounds[round] == nil {
                let span = startSpan("dispatch \(round.rawValue)", context: night)
                state.rounds[round] = (span, 0)
            }
            guard let dispatch = state.rounds[round]?.span.context else { return }
            for job in jobs where state.jobs[job.id] == nil {
                let span = startSpan("job \(job.work.kind.rawValue)", context: dispatch, ofKind: .producer)
                span.updateAttributes { attributes in
                    attributes["driftfix.job.id"] = job.id
                    attributes["driftfix.job.kind"] = job.work.kind.rawValue
                    attributes["driftfix.round"] = round.rawValue
                    attributes["file.path"] = job.input
                    attributes["driftfix.audio.seconds"] = job.audioSeconds
                    if let output = job.output { attributes["driftfix.output.path"] = output }
                    Self.describe(job.work, into: &attributes)
                }
                state.jobs[job.id] = (span, round)
                state.rounds[round]?.open += 1
            }
        }
    }

    /// The job's span as a `traceparent`, for its message.
    func parent(of id: Int) -> String? {
        span(id)?.context.traceParent?.description
    }

    /// The context of the job `event` is about, nil for other events (or while tracing is off).
    func context(for event: DispatchEvent) -> InstrumentationContext? {
        switch event {
        case .jobStarted(let id, _, _), .jobRequeued(let id, _), .duplicateResult(let id, _),
            .staleResult(let id, _, _, _):
            return span(id)?.context
        case .jobFinished(let job):
            return span(job.id)?.context
        default:
            return nil
        }
    }

    func event(_ event: DispatchEvent) {
        switch event {
        case .jobStarted(let id, let worker, let attempt):
            span(id)?.addEvent(
                SpanEvent(
                    name: "lease",
                    attributes: ["driftfix.attempt": .int64(Int64(attempt)), "driftfix.worker": .string(worker)]))
        case .jobRequeued(let id, let reason):
            span(id)?.addEvent(SpanEvent(name: "requeue", attributes: ["driftfix.reason": .string(reason)]))
        case .jobFinished(let job):
            let (span, round) = state.withLock { state -> ((any Span)?, (any Span)?) in
                guard let (span, round) = state.jobs.removeValue(forKey: job.id) else { return (nil, nil) }
                state.rounds[round]?.open -= 1
                // A round's dispatch ends with its last job (a later round opens a span of its own).
                guard state.rounds[round]?.open == 0 else { return (span, nil) }
                return (span, state.rounds.removeValue(forKey: round)?.span)
            }
            if let span { Self.finish(span, job) }
            round?.end()
        default:
            break
        }
    }

    /// Ends the spans of jobs the night left unfinished (stopped, no workers).
    func finished() {
        let (jobs, rounds) = state.withLock { state in
            defer { state = State() }
            return (state.jobs.values.map(\.span), state.rounds.values.map(\.span))
        }
        for span in jobs {
            span.setStatus(SpanStatus(code: .error, message: "not finished this night"))
            span.end()
        }
        for span in rounds { span.end() }
    }

    private func span(_ id: Int) -> (any Span)? { state.withLock { $0.jobs[id]?.span } }

    private static func finish(_ span: any Span, _ job: JobRecord) {
        span.updateAttributes { attributes in
            attributes["driftfix.attempts"] = job.attempts
            switch job.state {
            case .done(let result):
                attributes["driftfix.worker"] = result.worker
                attributes["driftfix.outcome"] = result.outcome.name
                if case .decided(let content, _) = result.outcome {
                    attributes["driftfix.decision"] = content.decision.rawValue
                    if let ppm = content.measurement?.driftPPM { attributes["driftfix.drift.ppm"] = ppm }
                }
            case .failed(let failure):
                attributes["driftfix.outcome"] = "failed"
                attributes["driftfix.failure.kind"] = failure.kind.rawValue
                span.setStatus(SpanStatus(code: .error, message: failure.message))
            case .queued, .leased:
                break
            }
        }
        span.end()
    }

    /// What the plan asked of the worker: method, engine, the target length and the drift it corrects.
    private static func describe(_ work: JobWork, into attributes: inout SpanAttributes) {
        switch work {
        case .header(let repair):
            attributes["driftfix.method"] = repair.method.rawValue
            attributes["driftfix.engine"] = repair.engine.rawValue
            attributes["driftfix.target.frames"] = repair.targetFrames
        case .content(let content):
            attributes["driftfix.method"] = content.method.rawValue
            attributes["driftfix.engine"] = content.engine.rawValue
            attributes["driftfix.target.frames"] = content.targetFrames
            if let ppm = content.headerDriftPPM { attributes["driftfix.drift.ppm"] = ppm }
        case .soundPrint, .clipSync, .noop:
            break
        }
    }
}
