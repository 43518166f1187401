import DriftSchema
import DriftSync
import Foundation
import Synchronization

/// A file's print as the work made it (or as the journal kept it), or why it has none.
package enum PrintedFile: Sendable {
    /// Printed; `kept` from an earlier night.
    case printed(FilePrint, kept: Bool)
    /// Why it could not be printed, naming the file.
    case failed(String)
}

/// A file's print and the times its metadata gives.
package struct FilePrint: Sendable {
    /// nil: the file has no sound of its own (a video without an audio track).
    public var print: SoundPrint?
    /// Its start timecode (seconds since midnight), where it carries one.
    public var timecode: Double?
    /// When its recording began by its device's calendar clock, seconds since 1970, where its metadata says.
    public var started: Double?

    public init(print: SoundPrint?, timecode: Double?, started: Double?) {
        self.print = print
        self.timecode = timecode
        self.started = started
    }
}

/// Where a sound pairing's file work runs: prints made and clip tasks run, results in the order asked; and what an
/// earlier night found that still stands. The pairing itself (the search) runs where it is called.
package protocol SoundWork: Sendable {
    func prints(_ paths: [String]) async -> [PrintedFile]
    func clips(_ tasks: [ClipTask]) async -> [[SoundPairingReport.Match]]
    /// A clip's rows as an earlier night found them, when nothing they rest on changed (the clip, every recording of
    /// its `group`, the `settings` that decide it): it is then neither searched for nor measured again. nil: settle
    /// it tonight.
    func earlier(clip: String, group: [String], settings: String) -> [SoundPairingReport.Match]?
}
