import DriftSchema
import DriftSync
import Foundation

extension SoundPairing {
    /// The clips whose sound repeats in a recording (two or more places fit equally; a playback recorded at every
    /// take) that the takes' order decides, each with its task narrowed to the chosen place (to be cut there), by
    /// the index of its task in `settled`.
    ///
    /// The witness is the calendar clocks of the devices (`FileStart`: a BWF origination time, a container's creation
    /// time): a camera's clock and a recorder's seldom agree, but by one offset for the whole shoot. So the offset is
    /// found that puts each such clip at exactly one of its places, and it must do so for two clips at least (with
    /// one clip, only an offset of nothing counts: the clocks agree), and no offset far from it may do as well.
    func takeOrder(_ settled: [(task: ClipTask, rows: [SoundPairingReport.Match])], started: [String: Double]) -> [(
        index: Int, place: Int, task: ClipTask
    )] {
        // Per recording, its repeated places for each clip, in the task's order of places.
        var byRecording: [String: [(index: Int, started: Double, places: [(place: Int, seconds: Double)])]] = [:]
        for (index, (task, rows)) in settled.enumerated() where !rows.contains(where: { $0.status != .uncertain }) {
            guard let clipStart = started[task.clipText] else { continue }
            let repeated = rows.enumerated().filter { $0.element.repeats == true }
            for recording in Set(repeated.map(\.element.recordingText)) {
                let places = repeated.compactMap { r, row -> (Int, Double)? in
                    guard row.recordingText == recording, let seconds = row.recordingStartSeconds else { return nil }
                    return (r, seconds)
                }
                guard places.count > 1, let recordingStart = started[recording] else { continue }
                byRecording[recording, default: []].append(
                    (index, clipStart - recordingStart, places.map { (place: $0.0, seconds: $0.1) }))
            }
        }
        var decided: [(index: Int, place: Int, task: ClipTask)] = []
        for clips in byRecording.values {
            let choice = Self.takeOrder(clips.map { ($0.started, $0.places.map(\.seconds)) })
            for (k, clip) in clips.enumerated() {
                guard let chosen = choice[k], !decided.contains(where: { $0.index == clip.index }) else { continue }
                let place = clip.places[chosen].place
                var task = settled[clip.index].task
                task.places = [task.places[place]]
                // Chosen by a witness: the place is measured and cut alone, no longer one of equals.
                task.places[0].candidate.repeated = nil
                decided.append((clip.index, place, task))
            }
        }
        return decided.sorted { $0.index < $1.index }
    }

    /// For each clip (when it began against when its recording began, seconds, and its places in the recording,
    /// seconds), the place the takes' order chooses; nil where it chooses none.
    static func takeOrder(_ clips: [(started: Double, places: [Double])]) -> [Int?] {
        let spacing =
            clips.flatMap { clip in
                zip(clip.places.sorted(), clip.places.sorted().dropFirst()).map { $1 - $0 }
            }.min() ?? 0
        guard spacing > 0 else { return clips.map { _ in nil } }
        // A camera starts within a few seconds of its time stamp; takes are minutes apart.
        let tolerance = min(5, spacing / 4)
        func assignment(_ offset: Double) -> [Int?] {
            clips.map { clip in
                let near = clip.places.indices.filter { abs(clip.started - clip.places[$0] - offset) <= tolerance }
                return near.count == 1 ? near[0] : nil
            }
        }
        // One clip: its clocks must agree (no offset to find from one time).
        if clips.count == 1 { return assignment(0) }
        let offsets = clips.flatMap { clip in clip.places.map { clip.started - $0 } }
        var best: (offset: Double, count: Int)?
        var tie = false
        for offset in offsets {
            let count = assignment(offset).compactMap { $0 }.count
            if let current = best, abs(current.offset - offset) <= tolerance {
                if count > current.count { best = (offset, count) }
                continue
            }
            if best == nil || count > best!.count {
                tie = false
                best = (offset, count)
            } else if count == best!.count {
                tie = true
            }
        }
        guard let best, !tie, best.count >= 2 else {
            return clips.map { _ in nil }
        }
        return assignment(best.offset)
    }

    /// A clip's rows once the takes' order chose `place`: that place as the narrowed task found it (used and cut, or
    /// failed), the other places uncertain, saying which was chosen and why.
    static func chosenByTakeOrder(
        _ rows: [SoundPairingReport.Match], place: Int, rows chosen: [SoundPairingReport.Match], task: ClipTask
    ) -> [SoundPairingReport.Match] {
        guard var row = chosen.first else { return rows }
        let at = SoundPairingReport.clock(row.recordingStartSeconds)
        row.decidedBy = "take order"
        row.note = [row.note, "its sound repeats; chosen by the takes' order (the devices' clocks)"].compactMap { $0 }
            .joined(separator: "; ")
        return rows.enumerated().map { index, other in
            guard index != place else { return row }
            var other = other
            if other.repeats == true {
                other.repeats = nil
                other.note = "the clip's sound is heard here too, but the takes' order chose \(at)"
            }
            return other
        }
    }
}
