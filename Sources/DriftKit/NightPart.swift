import DriftJournal
import Logging

/// A part of a run (by names, by sound): the run it belongs to, its journal, and what watches it.
protocol NightPart {
    var run: Run { get }
    var journal: Journal? { get }
    var watch: Watch { get }
}

extension NightPart {
    var settings: Run.Settings { run.settings }
    var logger: Logger { run.logger }

    /// Records how the night `run` ended in the journal (after `first`, what the night stores before), with its
    /// outcome's status and report. A failure is a problem of its own: the outputs are fine, but the next night would
    /// resume this one, so the exit code must not say all is well.
    func record(
        _ outcome: inout Run.Outcome, run: Int64,
        first: () throws(JournalError) -> Void = { () throws(JournalError) in }
    ) {
        guard let journal, let status = outcome.status else { return }
        do {
            try first()
            try journal.finishRun(run, status: status, succeeded: outcome.succeeded, report: outcome.report)
        } catch {
            outcome.problems.append(.notRecorded(error.description))
            logger.error("\(error)")
        }
    }
}
