import ArgumentParser
import DriftKit
import Foundation

/// `--timeline FILE` and what its audio points at: shared by `sync`, `repair` and `scan` (with a pairing by sound).
struct TimelineOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Also write a timeline for an editor: a video track per camera, an audio track per recorder, each clip's audio placed where the recorder heard it; the format by the extension: .otio (OpenTimelineIO), .fcpxml (Final Cut Pro X XML 1.10), .edl (CMX3600, a list per camera).",
            valueName: "file"))
    var timeline: String?

    @Option(
        help:
            "What the timeline's audio points at: recordings (the recorders' files, the drift stated; the default) or synced (the clips' audio as this run cut it, drift corrected; needs --out)."
    )
    var timelineAudio: SyncTimeline.AudioMedia?

    func validate() throws {
        if let timeline, TimelineFile(path: Paths.given(timeline)) == nil {
            throw ValidationError("--timeline \(timeline): the extension names no format (.otio, .fcpxml or .edl)")
        }
        if timelineAudio != nil, timeline == nil { throw ValidationError("--timeline-audio needs --timeline") }
    }

    /// The setting: nil without `--timeline`.
    var file: TimelineFile? {
        timeline.flatMap { TimelineFile(path: Paths.file($0), audio: timelineAudio ?? .recordings) }
    }

    /// Says where the timeline went.
    static func said(_ outcome: Run.Outcome) {
        guard !outcome.timelineFiles.isEmpty else { return }
        FileHandle.standardError.write(
            Data(
                "driftfix: timeline written to \(outcome.timelineFiles.map(\.pathText).joined(separator: ", "))\n".utf8)
        )
    }
}

extension SyncTimeline.AudioMedia: ExpressibleByArgument {}
