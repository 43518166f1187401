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
}
