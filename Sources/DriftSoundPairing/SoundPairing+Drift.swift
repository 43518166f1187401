import DriftSchema
import Foundation

extension SoundPairing {
    /// Each recorder's drift against each camera, from every clip of that camera it surely heard: a short clip
    /// measures the drift to a ppm or two, the recorder's clock is one clock, so the clips' drifts are combined,
    /// weighted by their errors (1/σ²). A clip whose drift lies more than 3 σ from the others' (another camera in the
    /// same folder, a varispeed take) is left out and said; where fewer than two thirds agree, the recorder's clock
    /// wandered and nothing is pooled: each clip keeps its own, local rate. Rows are returned in order.
    ///
    /// - Parameter camera: the camera (device) of a clip.
    static func pooledDrift(_ rows: [SoundPairingReport.Match], camera: (String) -> String) -> [SoundPairingReport
        .Match]
    {
        var rows = rows
        var sets: [String: [Int]] = [:]
        for (index, row) in rows.enumerated() where row.status != .uncertain {
            guard let drift = row.content?.driftPPM, drift.isFinite, let error = row.content?.driftPPMError, error > 0
            else { continue }
            sets[row.recordingText + "\u{0}" + camera(row.referenceText), default: []].append(index)
        }
        for members in sets.values where members.count >= 2 {
            func drift(_ i: Int) -> Double { rows[i].content?.driftPPM ?? 0 }
            func sigma(_ i: Int) -> Double { rows[i].content?.driftPPMError ?? 1 }
            func mean(_ set: [Int]) -> (value: Double, error: Double) {
                let weights = set.map { 1 / (sigma($0) * sigma($0)) }
                let total = weights.reduce(0, +)
                return (zip(set, weights).reduce(0) { $0 + drift($1.0) * $1.1 } / total, (1 / total).squareRoot())
            }
            // The clip furthest from the others (against their mean: its own weight would pull the mean towards it)
            // goes while it is more than 3 σ away, one at a time, so one bad clip cannot push a good one out.
            var kept = members
            while kept.count >= 2 {
                let distances = kept.map { i in
                    let others = mean(kept.filter { $0 != i })
                    return abs(drift(i) - others.value)
                        / (sigma(i) * sigma(i) + others.error * others.error).squareRoot()
                }
                guard let worst = distances.indices.max(by: { distances[$0] < distances[$1] }), distances[worst] > 3
                else { break }
                kept.remove(at: worst)
            }
            // A recorder whose clips do not mostly agree has no one drift: its clock wandered over the day, and each
            // clip keeps the rate measured at its own place.
            guard kept.count >= 2, kept.count * 3 >= members.count * 2 else {
                for i in members {
                    let note =
                        "this recorder's clips from the same camera disagree about its drift (its clock wanders?): the clip's own rate is used"
                    rows[i].note = rows[i].note.map { $0 + "; " + note } ?? note
                }
                continue
            }
            let pooled = mean(kept)
            for i in members {
                if kept.contains(i) {
                    rows[i].recordingDriftPPM = pooled.value
                    rows[i].recordingDriftPPMError = pooled.error
                    rows[i].recordingDriftClips = kept.count
                } else {
                    let note = String(
                        format:
                            "its drift (%+.2f ppm) disagrees with this recorder's other clips from the same camera (%+.2f ± %.2f ppm)",
                        drift(i), pooled.value, pooled.error)
                    rows[i].note = rows[i].note.map { $0 + "; " + note } ?? note
                }
            }
        }
        return rows
    }
}
