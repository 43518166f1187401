import DriftAV
import DriftCore
import DriftSchema
import DriftSync
import Foundation

extension ClipSync {
    /// Runs one clip's task: each place measured (with its timecode as a second witness), the recording that heard
    /// most of the clip chosen among the sure ones (then the most confident), and, where the task names outputs, the
    /// clip's audio cut from it. One row per place: `used`, `alternative`, `uncertain` or `failed`, with the reason.
    public static func run(_ task: ClipTask) -> [SoundPairingReport.Match] {
        var rows: [SoundPairingReport.Match] = []
        var placements: [Placement?] = []
        for place in task.places {
            let (row, placement) = measure(place, of: task)
            rows.append(row)
            placements.append(placement)
        }
        let sure = rows.indices.filter { rows[$0].status != .uncertain }
        // The recording that heard more of the clip, then the more confident one.
        func rank(_ i: Int) -> (Double, Double) {
            ((rows[i].coverage * 100).rounded(), rows[i].content?.confidence ?? 0)
        }
        guard let best = sure.max(by: { rank($0) < rank($1) }) else { return rows }
        for i in sure { rows[i].status = i == best ? .used : .alternative }
        let place = task.places[best]
        if let conflict = place.outputConflict {
            rows[best].status = .failed
            rows[best].note = conflict
        } else if let output = place.output {
            rows[best] = cut(rows[best], placements[best], output: output, engine: place.engine, task: task)
        }
        return rows
    }

    /// A place measured: its row (`alternative` when sure, else `uncertain` with why) and the measurement.
    private static func measure(_ place: ClipTask.Place, of task: ClipTask) -> (SoundPairingReport.Match, Placement?) {
        let candidate = place.candidate
        var row: SoundPairingReport.Match
        var placement: Placement?
        do {
            let length =
                try place.recordingFrames.flatMap { frames in place.sampleRate.map { (frames, $0) } }
                ?? AudioInput.length(of: place.recording)
            let measured = try ClipSync.measure(
                recording: place.recording, clip: task.clip, candidate: candidate,
                clipSeconds: task.clipSeconds, recordingLength: length)
            placement = measured
            let sure = measured.isConfirmed(minimumConfidence: task.minimumConfidence)
            let confidence = String(format: "%.2f", measured.content.confidence)
            row = SoundPairingReport.Match(
                reference: task.clip, recording: place.recording, recordingStartSeconds: measured.recordingStartSeconds,
                recordingEndSeconds: measured.recordingEndSeconds, coverage: coverage(measured) ?? candidate.coverage,
                clarity: candidate.clarity, content: measured.content, status: sure ? .alternative : .uncertain,
                note: sure
                    ? nil
                    : "not confirmed by the measurement: \(measured.content.reason ?? "confidence \(confidence) under \(task.minimumConfidence)")"
            )
        } catch {
            row = SoundPairingReport.Match(
                reference: task.clip, recording: place.recording, recordingStartSeconds: candidate.startSeconds,
                recordingEndSeconds: nil, coverage: candidate.coverage, clarity: candidate.clarity, content: nil,
                status: .uncertain, note: "\(error)")
        }
        if let predicted = place.timecodeStartSeconds {
            row.timecodeStartSeconds = predicted
            if placement != nil, let start = row.recordingStartSeconds {
                let agrees = abs(start - predicted) <= 0.1 + 1e-3 * abs(start)
                row.timecodeAgrees = agrees
                if !agrees {
                    let note = String(
                        format: "timecode disagrees: it puts the clip %+.3f s from where its sound is",
                        predicted - start)
                    row.note = row.note.map { $0 + "; " + note } ?? note
                }
            }
        }
        return (row, placement)
    }

    /// The share of the clip inside the recording, from the measured place.
    public static func coverage(_ placement: Placement) -> Double? {
        guard let start = placement.recordingStartSeconds, let end = placement.recordingEndSeconds, end > start else {
            return nil
        }
        let length = Double(placement.recordingFrames) / Double(placement.sampleRate)
        return max(0, min(end, length) - max(start, 0)) / (end - start)
    }

    /// The chosen row with the clip's audio written to `output`, or failed with the reason.
    private static func cut(
        _ match: SoundPairingReport.Match, _ placement: Placement?, output: String,
        engine: ResampleEngine, task: ClipTask
    ) -> SoundPairingReport.Match {
        var row = match
        do {
            guard let placement else { throw ContentRefusal("not measured") }
            let (clipFrames, clipRate) = try AudioInput.length(of: task.clip)
            // The clip's length at the recording's rate, in integers.
            let rate = Int128(placement.sampleRate)
            let frames = Int64((Int128(clipFrames) * rate * 2 + Int128(clipRate)) / (2 * Int128(clipRate)))
            try FileManager.default.createDirectory(
                atPath: (output as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let repair = try ClipSync.repair(
                placement, clipFrames: frames, output: output, quality: task.quality,
                engine: engine, limitMs: task.residualLimitMs, mux: task.mux)
            row.output = output
            row.outputFrames = repair.result.outputFrames
            row.operations = repair.operations
            row.content?.residualMs = repair.verification.residualMs
            row.content?.residualLimitMs = repair.verification.limitMs
            if match.coverage < 0.999 {
                row.note =
                    "the recording heard \(Int((match.coverage * 100).rounded())) % of the clip; the rest is silence"
            }
        } catch {
            row.status = .failed
            row.note = "\(error)"
        }
        return row
    }
}
