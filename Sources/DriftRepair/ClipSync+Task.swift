import DriftAV
import DriftCore
import DriftDSP
import DriftSchema
import DriftSync
import Foundation

extension ClipSync {
    /// Runs one clip's task: each place measured (with its timecode as a second witness), the recording that heard
    /// most of the clip chosen among the sure ones (then the most confident), and, where the task names outputs, the
    /// clip's audio cut from it. One row per place: `used`, `alternative`, `uncertain` or `failed`, with the reason.
    /// - Parameter shown: a path of the task as a person knows it (a worker's task names pinned paths).
    public static func run(_ task: ClipTask, shown: (String) -> String = { $0 }) -> [SoundPairingReport.Match] {
        var rows: [SoundPairingReport.Match] = []
        var placements: [Placement?] = []
        for place in task.places {
            let (row, placement) = measure(place, of: task)
            rows.append(row)
            placements.append(placement)
        }
        // A sure place with rivals in its recording (other sure places, or places the prints found as high that the
        // measurement did not confirm): the clip's sound may occur twice there. A witness may tell which one the clip
        // heard; without one, every such place is uncertain and none is cut.
        let byRecording = Dictionary(grouping: rows.indices) { rows[$0].recording }
        for (_, places) in byRecording {
            let sure = places.filter { rows[$0].status != .uncertain }
            let rivals = places.filter { task.places[$0].candidate.repeated == true || rows[$0].status != .uncertain }
            if rivals.count == 1, sure == rivals, task.places[rivals[0]].candidate.repeated == true {
                // The prints found the sound again in this recording, but the rival place is not in the task: with
                // nothing to compare, the place is not used.
                rows[rivals[0]].status = .uncertain
                rows[rivals[0]].repeats = true
                rows[rivals[0]].note =
                    "the sound repeats: the prints found it at another place of this recording too, which was not measured"
                continue
            }
            guard !sure.isEmpty, rivals.count > 1 else { continue }
            settle(rivals, sure: sure, rows: &rows, placements: placements, task: task)
        }
        let sure = rows.indices.filter { rows[$0].status != .uncertain }
        // The recording that heard more of the clip, then the more confident one.
        func rank(_ i: Int) -> (Double, Double) {
            ((rows[i].coverage * 100).rounded(), rows[i].content?.confidence ?? 0)
        }
        for i in sure { rows[i].status = .alternative }
        // The best place is cut; where its cut cannot be proven in sync, the measurement was not as sure as it said:
        // that place becomes uncertain and the next sure one is tried.
        for best in sure.sorted(by: { rank($0) > rank($1) }) {
            rows[best].status = .used
            let place = task.places[best]
            if let conflict = place.outputConflict {
                rows[best].status = .failed
                rows[best].note = conflict
            } else if let output = place.outputText {
                rows[best] = cut(
                    rows[best], placements[best], output: output, engine: place.engine, task: task,
                    recordingName: (shown(place.recordingText) as NSString).lastPathComponent)
                if rows[best].status == .uncertain { continue }
            }
            break
        }
        return rows
    }

    /// Places of one recording that all heard the clip's sound: the one a witness chooses stays, the others become
    /// uncertain; with no witness, all of them do. Witnesses, in order: a sound only one place has (it fits the clip
    /// better, second by second, beyond the scatter of the difference), then the start timecodes (they agree with one
    /// place only).
    private static func settle(
        _ places: [Int], sure: [Int], rows: inout [SoundPairingReport.Match], placements: [Placement?], task: ClipTask
    ) {
        // A place the measurement did not confirm is fitted at the prints' place (searched ±0.15 s around it) on the
        // drift a sure place measured.
        var fits: [Int: [Double?]] = [:]
        let reference = sure.compactMap({ placements[$0] }).first
        for i in places {
            // Without a measured drift there is nothing to fit the places on: none is chosen by its sound.
            guard let reference, let drift = reference.content.driftPPM else { break }
            if sure.contains(i), let placement = placements[i], let start = placement.recordingStartSeconds {
                fits[i] = try? fit(placement, startSeconds: start, driftPPM: placement.content.driftPPM ?? drift)
            } else {
                var rival = reference
                rival.recording = task.places[i].recordingText
                fits[i] = try? fit(
                    rival, startSeconds: task.places[i].candidate.startSeconds, driftPPM: drift, searchSeconds: 0.15)
            }
            rows[i].fit = fits[i].flatMap(PlaceFit.mean).map { ($0 * 1000).rounded() / 1000 }
        }
        func named(_ i: Int) -> String { SoundPairingReport.clock(rows[i].recordingStartSeconds) }
        var winner: (index: Int, witness: String)?
        // Only a place the measurement confirmed can be chosen.
        if let better = sure.first(where: { i in
            places.allSatisfy { j in j == i || PlaceFit.isBetter(fits[i] ?? [], than: fits[j] ?? []) }
        }) {
            winner = (better, "sound")
        } else {
            let agreeing = sure.filter { rows[$0].timecodeAgrees == true }
            if agreeing.count == 1, places.allSatisfy({ $0 == agreeing[0] || rows[$0].timecodeAgrees != true }) {
                winner = (agreeing[0], "timecode")
            }
        }
        let all = places.map(named).joined(separator: ", ")
        for i in places {
            if let winner, i == winner.index {
                rows[i].decidedBy = winner.witness
                let because =
                    winner.witness == "sound"
                    ? "a sound only this place has (it fits the clip better, second by second)"
                    : "the start timecodes (they agree with this place only)"
                rows[i].note = [rows[i].note, "the clip's sound is also heard at \(all); chosen by \(because)"]
                    .compactMap { $0 }.joined(separator: "; ")
            } else if let winner {
                rows[i].status = .uncertain
                rows[i].note =
                    "the clip's sound is heard here too, but \(named(winner.index)) was chosen by its \(winner.witness)"
            } else {
                rows[i].status = .uncertain
                rows[i].repeats = true
                rows[i].note =
                    "the sound repeats: it fits equally at \(all); what would decide: start timecodes on the clip and the recording, the takes' order by the files' times, or a sound only one place has (a slate)"
            }
        }
    }

    /// The clip's fit, second by second, at a place of `placement`'s recording.
    private static func fit(_ placement: Placement, startSeconds: Double, driftPPM: Double, searchSeconds: Double = 0)
        throws -> [Double?]
    {
        guard let clip = try ContentProbe.sound(of: placement.clip) else { return [] }
        let whole = try ContentProbe.input(placement.recording)
        let rate = Double(placement.sampleRate)
        let first = max(0, Int64(((startSeconds - margin - searchSeconds) * rate).rounded(.down)))
        let last = min(
            placement.recordingFrames,
            Int64(
                ((startSeconds + placement.clipSeconds * (1 + driftPPM * 1e-6) + margin + searchSeconds) * rate)
                    .rounded(.up)))
        guard last > first else { return [] }
        let span = MeasuredInput(path: placement.recording, sampleRate: placement.sampleRate) {
            SpanSource(try whole.open(), range: first..<last)
        }
        return try PlaceFit.windows(
            recording: span, clip: clip, startSeconds: startSeconds - Double(first) / rate, driftPPM: driftPPM,
            searchSeconds: searchSeconds)
    }

    /// A place measured: its row (`alternative` when sure, else `uncertain` with why) and the measurement.
    private static func measure(_ place: ClipTask.Place, of task: ClipTask) -> (SoundPairingReport.Match, Placement?) {
        let candidate = place.candidate
        var row: SoundPairingReport.Match
        var placement: Placement?
        do {
            let length =
                try place.recordingFrames.flatMap { frames in place.sampleRate.map { (frames, $0) } }
                ?? AudioInput.length(of: place.recordingText)
            let measured = try ClipSync.measure(
                recording: place.recordingText, clip: task.clipText, candidate: candidate,
                clipSeconds: task.clipSeconds, recordingLength: length)
            placement = measured
            let sure = measured.isConfirmed(minimumConfidence: task.minimumConfidence)
            let confidence = String(format: "%.2f", measured.content.confidence)
            row = SoundPairingReport.Match(
                reference: task.clipText, recording: place.recordingText,
                // Where the measurement found no place, the prints' place: the row still says where it was looked at.
                recordingStartSeconds: measured.recordingStartSeconds ?? candidate.startSeconds,
                recordingEndSeconds: measured.recordingEndSeconds, coverage: coverage(measured) ?? candidate.coverage,
                clarity: candidate.clarity, content: measured.content, status: sure ? .alternative : .uncertain,
                note: sure
                    ? nil
                    : "not confirmed by the measurement: \(measured.content.reason ?? "confidence \(confidence) under \(task.minimumConfidence)")"
            )
        } catch {
            row = SoundPairingReport.Match(
                reference: task.clipText, recording: place.recordingText, recordingStartSeconds: candidate.startSeconds,
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
        engine: ResampleEngine, task: ClipTask, recordingName: String
    ) -> SoundPairingReport.Match {
        var row = match
        do {
            guard let placement else { throw ContentRefusal("not measured") }
            let (clipFrames, clipRate) = try AudioInput.length(of: task.clipText)
            // The clip's length at the recording's rate, in integers.
            let rate = Int128(placement.sampleRate)
            let frames = Int64((Int128(clipFrames) * rate * 2 + Int128(clipRate)) / (2 * Int128(clipRate)))
            try FileManager.default.createDirectory(
                atPath: (output as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let repair = try ClipSync.repair(
                placement, clipFrames: frames, output: output, quality: task.quality,
                engine: engine, limitMs: task.residualLimitMs, mux: task.mux, recordingName: recordingName)
            row.outputText = output
            row.warnings = repair.result.warnings.isEmpty ? nil : repair.result.warnings
            row.outputFrames = repair.result.outputFrames
            row.operations = repair.operations
            row.content?.residualMs = repair.verification.residualMs
            row.content?.residualLimitMs = repair.verification.limitMs
            if match.coverage < 0.999 {
                row.note =
                    "the recording heard \(Int((match.coverage * 100).rounded())) % of the clip; the rest is silence"
            }
        } catch let failure as ContentRepair.SyncFailure {
            // Nothing is wrong with the files: the place is not sure enough to cut from (the same inputs give the
            // same answer, so it stands as a finding, like any place the measurement did not confirm).
            row.status = .uncertain
            row.content = failure.content
            row.note = "not confirmed by the cut's proof: \(failure.reason); nothing written"
        } catch {
            row.status = .failed
            row.note = "\(error)"
        }
        return row
    }
}
