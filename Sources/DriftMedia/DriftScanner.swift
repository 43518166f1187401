import DriftAudio
import DriftCore
import DriftSchema
import Foundation
import Synchronization

/// `driftfix scan`'s engine: walk and pair, then probe every pair's headers in parallel and measure its drift.
/// Never stops on a bad file: each one becomes a row with its reason.
public enum DriftScanner {
    /// Scans `roots` and builds the report.
    public static func scan(
        roots: [String], rules: PairingRules, drift: DriftPolicy = DriftPolicy(), repair: RepairPolicy = RepairPolicy(),
        generated: Date = Date()
    ) -> ScanReport {
        let inventory = FolderScanner.scan(roots: roots, rules: rules)
        let rows = measure(inventory.pairs, rules: rules, drift: drift, repair: repair)
        return ScanReport(
            generated: ISO8601DateFormatter().string(from: generated), roots: roots, pairs: rows,
            unpaired: inventory.unpaired, errors: inventory.issues, skipped: inventory.skipped)
    }

    /// Probes and measures pairs on all cores; the result keeps the input order.
    public static func measure(
        _ pairs: [PairCandidate], rules: PairingRules, drift: DriftPolicy, repair: RepairPolicy
    ) -> [PairReport] {
        let results = ResultSlots<PairReport>(count: pairs.count)
        DispatchQueue.concurrentPerform(iterations: pairs.count) { index in
            let pair = pairs[index]
            var row: PairReport
            if let refusal = pair.refusal {
                row = PairReport(recording: pair.recording, reference: pair.reference,
                                 folder: (pair.recording as NSString).deletingLastPathComponent, error: refusal)
            } else {
                row = measure(recording: pair.recording, reference: pair.reference, rules: rules, drift: drift, repair: repair)
            }
            row.warnings = pair.warnings
            results.store(index, row)
        }
        return results.values()
    }

    /// One pair's row.
    public static func measure(
        recording: String, reference: String, rules: PairingRules, drift: DriftPolicy, repair: RepairPolicy
    ) -> PairReport {
        let folder = (recording as NSString).deletingLastPathComponent
        let reader: AudioFileReader
        do {
            reader = try AudioFileReader(path: recording)
        } catch {
            return PairReport(recording: recording, reference: reference, folder: folder, error: "recording: \(error.cause)")
        }
        let duration: ReferenceDuration
        switch ReferenceProbe.duration(of: reference, movieHeaderFallback: rules.movieHeaderFallback) {
        case .success(let value): duration = value
        case .failure(let error):
            return PairReport(recording: recording, reference: reference, folder: folder, error: "reference: \(error.reason)")
        }
        let analysis = DriftAnalysis(
            recordingFrames: reader.frameCount, sampleRate: reader.format.sampleRate,
            referenceSeconds: duration.seconds, recordingPath: recording, drift: drift, repair: repair)
        return PairReport(
            recording: recording, reference: reference, folder: folder, sampleRate: reader.format.sampleRate,
            channels: reader.format.channelCount, format: "\(reader.format.container) \(reader.format.encoding)",
            recordingFrames: reader.frameCount, referenceSource: duration.source, analysis: analysis)
    }
}

/// Slots written by concurrent iterations, one index each, then read once all are done.
final class ResultSlots<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value?]>

    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

    func store(_ index: Int, _ value: Value) {
        slots.withLock { $0[index] = value }
    }

    func values() -> [Value] { slots.withLock { $0.compactMap { $0 } } }
}
