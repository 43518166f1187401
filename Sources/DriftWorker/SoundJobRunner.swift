import DriftCore
import DriftRepair
import DriftSchema
import DriftSync
import DriftWire
import Foundation
import Tracing

/// Runs the work of a pairing by sound where the files are: a file's print, or one clip's task (its places measured,
/// the recording chosen, the clip's audio cut). Every input and every output folder is checked and pinned as for a
/// repair (`PinnedJob`) and used only through those descriptors; rows and messages name the job's paths.
enum SoundJobRunner {
    /// The print of the job's input and its start timecode.
    static func print(
        _ job: JobSpec, worker: String, failure: JobRunner.Failure, seconds: () -> Double
    ) -> JobResult {
        let pinned: PinnedJob
        let pinning = withSpan("pin") { _ in
            PinnedJob.pin(inputs: [job.input], inputRoots: job.inputRoots ?? [], outputRoot: nil)
        }
        switch pinning {
        case .failure(let refusal): return failure(refusal.message, refusal.kind, nil)
        case .success(let paths): pinned = paths
        }
        defer { pinned.close() }
        do {
            let print = try withSpan("print") { _ in try ClipSync.print(of: pinned.inputs[0]) }
            // base64 in JSON: 4 bytes for 3, and the envelope.
            if let print, print.bytes.count / 3 * 4 + 4096 > WireCodec.maxMessageBytes {
                let hours = Int(print.seconds / 3600)
                return failure(
                    "\(job.input): \(hours) hours of sound make a print larger than one message carries (\(WireCodec.maxMessageBytes >> 20) MiB)",
                    .other, nil)
            }
            var sound = SoundResult(print: print?.bytes, timecode: StartTimecode.seconds(of: pinned.inputs[0]))
            sound.started = FileStart.seconds(of: pinned.inputs[0])
            return JobResult(
                id: job.id, attempt: job.attempt, worker: worker, seconds: seconds(), outcome: .heard(sound))
        } catch {
            return failure(pinned.shown("\(error)"), FailureKind(of: error), nil)
        }
    }

    /// One clip's task, through the pinned paths.
    static func sync(
        _ job: JobSpec, task original: ClipTask, worker: String, failure: JobRunner.Failure,
        seconds: () -> Double
    ) -> JobResult {
        // Each recording pinned once, however many places it has (a sound heard twice there is two places of one file).
        var recordings: [String] = []
        for place in original.places where !recordings.contains(place.recordingText) {
            recordings.append(place.recordingText)
        }
        let pinned: PinnedJob
        let pinning = withSpan("pin") { _ in
            PinnedJob.pin(
                inputs: [original.clipText] + recordings, outputs: original.places.compactMap(\.outputText),
                inputRoots: job.inputRoots ?? [], outputRoot: job.outputRoot)
        }
        switch pinning {
        case .failure(let refusal): return failure(refusal.message, refusal.kind, nil)
        case .success(let paths): pinned = paths
        }
        defer { pinned.close() }
        // The task through the pinned paths, in the order they were pinned.
        var task = original
        task.clipText = pinned.inputs[0]
        var outputs = pinned.outputs.makeIterator()
        for p in task.places.indices {
            task.places[p].recordingText =
                pinned.inputs[1 + (recordings.firstIndex(of: original.places[p].recordingText) ?? 0)]
            if task.places[p].output != nil { task.places[p].outputText = outputs.next() }
        }
        // The clip measured at each place, chosen, and cut (each cut's steps are spans of their own).
        let found = withSpan("sync") { span in
            span.attributes["driftfix.places"] = task.places.count
            return ClipSync.run(task, shown: pinned.shown)
        }
        let rows = found.map { found in
            var row = found
            row.referenceText = original.clipText
            row.recordingText = pinned.shown(row.recordingText)
            row.outputText = row.outputText.map(pinned.shown)
            row.note = row.note.map(pinned.shown)
            row.warnings = row.warnings.map { $0.map(pinned.shown) }
            if let reason = row.content?.reason { row.content?.reason = pinned.shown(reason) }
            return row
        }
        return JobResult(
            id: job.id, attempt: job.attempt, worker: worker, seconds: seconds(),
            outcome: .heard(SoundResult(matches: rows)))
    }
}
