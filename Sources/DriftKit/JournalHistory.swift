import DriftCore
import DriftJournal
import DriftSchema

import struct SystemPackage.FilePath

/// The journal's history, read-only, for `driftfix history`.
public enum JournalHistory {
    /// Where a run writing to `outputRoot` keeps its journal unless told otherwise.
    public static func defaultPath(outputRoot: FilePath) -> FilePath {
        FilePath(pathText: Journal.defaultPath(outputRoot: outputRoot.pathText))
    }

    /// The history `query` asks for, from the journal at `path` (opened read-only; never created).
    public static func read(_ path: FilePath, _ query: HistoryQuery) throws(JournalError) -> DriftHistory {
        try Journal(path: path.pathText, readOnly: true).history(query)
    }
}
