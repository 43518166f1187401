import DriftCore
import DriftJournal
import DriftSchema

/// The journal's history, read-only, for `driftfix history`.
public enum JournalHistory {
    /// Where a run writing to `outputRoot` keeps its journal unless told otherwise.
    public static func defaultPath(outputRoot: String) -> String {
        Journal.defaultPath(outputRoot: outputRoot)
    }

    /// The history `query` asks for, from the journal at `path` (opened read-only; never created).
    public static func read(_ path: String, _ query: HistoryQuery) throws(JournalError) -> DriftHistory {
        try Journal(path: path, readOnly: true).history(query)
    }
}
