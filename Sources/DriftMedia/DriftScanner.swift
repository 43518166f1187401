import DriftAV
import DriftAudio
import DriftCore
import DriftRules
import DriftSchema
import Foundation

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
        // Each row is written once, by one iteration, straight into the result: no second copy of a fleet's rows.
        Array(unsafeUninitializedCapacity: pairs.count) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            nonisolated(unsafe) let rows = base
            DispatchQueue.concurrentPerform(iterations: pairs.count) { index in
                (rows + index).initialize(to: row(pairs[index], rules: rules, drift: drift, repair: repair))
            }
            count = pairs.count
        }
    }

    private static func row(_ pair: PairCandidate, rules: PairingRules, drift: DriftPolicy, repair: RepairPolicy)
        -> PairReport
    {
        var row: PairReport
        if let refusal = pair.refusal {
            row = PairReport(
                recording: pair.recording, reference: pair.reference,
                folder: (pair.recording as NSString).deletingLastPathComponent, error: refusal)
            row.name(rules.device.identify(recording: pair.recording, root: pair.root, metadata: nil))
        } else {
            row = measure(
                recording: pair.recording, reference: pair.reference, root: pair.root, rules: rules,
                drift: drift, repair: repair)
        }
        row.warnings = pair.warnings
        return row
    }

    /// One pair's row, its device named by `rules.device` from the path below `root` (and the metadata).
    public static func measure(
        recording: String, reference: String, root: String? = nil, rules: PairingRules, drift: DriftPolicy,
        repair: RepairPolicy
    ) -> PairReport {
        let folder = (recording as NSString).deletingLastPathComponent
        func failed(_ error: String, metadata: RecordingMetadata? = nil) -> PairReport {
            var row = PairReport(recording: recording, reference: reference, folder: folder, error: error)
            row.name(rules.device.identify(recording: recording, root: root, metadata: metadata))
            return row
        }
        let measured: RecordingProbe.Measure
        do {
            measured = try RecordingProbe.measure(
                recording, metadata: rules.device.readsMetadata,
                ixml: rules.device.readsIXML)
        } catch {
            return failed("recording: \(error.cause)")
        }
        let duration: ReferenceDuration
        switch ReferenceProbe.duration(of: reference, movieHeaderFallback: rules.movieHeaderFallback) {
        case .success(let value): duration = value
        case .failure(let error): return failed("reference: \(error.reason)", metadata: measured.metadata)
        }
        var policy = drift
        // A reference stated to the millisecond cannot show a smaller drift; a file's own audio and video normally end
        // up to one audio codec frame and one picture apart.
        var floor = duration.resolution ?? Rational(0, 1)
        if recording == reference, let grain = try? MediaProbe.endGranularity(recording) {
            floor = Rational.sum(floor, grain)
        }
        if policy.tolerance < floor { policy.tolerance = floor }
        let analysis = DriftAnalysis(
            recordingFrames: measured.frames, sampleRate: measured.sampleRate,
            referenceSeconds: duration.seconds, recordingPath: recording, drift: policy, repair: repair)
        var row = PairReport(
            recording: recording, reference: reference, folder: folder, sampleRate: measured.sampleRate,
            channels: measured.channelCount, format: measured.format,
            recordingFrames: measured.frames, referenceSource: duration.source, analysis: analysis)
        row.name(rules.device.identify(recording: recording, root: root, metadata: measured.metadata))
        row.slate = measured.slate
        return row
    }
}

/// A recording's length as the scan sees it: libsndfile's header for what libsndfile reads, FFmpeg's packets (no
/// decoding) for compressed audio and audio inside video.
public enum RecordingProbe {
    public struct Measure: Sendable {
        public var frames: Int64
        public var sampleRate: Int
        public var channelCount: Int
        /// "WAV 24-bit", "MP4/MOV aac"...
        public var format: String
        /// Tags, bext and iXML, when asked for.
        public var metadata: RecordingMetadata?
        /// The take as the recorder wrote it (iXML, bext), where it did.
        public var slate: Slate?
    }

    /// The take `path`'s recorder wrote into it (iXML, bext), or nil (none, or a file that cannot be read).
    public static func slate(of path: String) -> Slate? {
        guard AudioInput.library(for: path) == .libsndfile, let reader = try? AudioFileReader(path: path) else {
            return nil
        }
        return slate(reader)
    }

    private static func slate(_ reader: AudioFileReader) -> Slate? {
        Slate(
            ixml: reader.chunk("iXML").map(IXMLText.decode),
            bextDescription: reader.descriptiveMetadata().broadcastInfo?.description)
    }

    /// The recording's length and format from its headers; with `metadata`, what may name its device too (the
    /// iXML chunk only with `ixml`).
    public static func measure(_ path: String, metadata: Bool = false, ixml: Bool = false) throws(AudioError) -> Measure
    {
        guard AudioInput.library(for: path) == .ffmpeg else {
            let reader = try AudioFileReader(path: path)
            return Measure(
                frames: reader.frameCount, sampleRate: reader.format.sampleRate,
                channelCount: reader.format.channelCount,
                format: "\(reader.format.container) \(reader.format.encoding)",
                metadata: metadata ? RecordingMetadata(reader: reader, ixml: ixml) : nil, slate: slate(reader))
        }
        let (stream, frames) = try MediaProbe.audioFrames(path)
        let info = try MediaProbe.probe(path)
        guard frames > 0, let rate = stream.sampleRate, rate > 0 else { throw AudioError(path: path, cause: .noFrames) }
        return Measure(
            frames: frames, sampleRate: rate, channelCount: stream.channelCount ?? 0,
            format: "\(info.container) \(stream.codec)", metadata: metadata ? RecordingMetadata(media: info) : nil)
    }
}

extension PairReport {
    /// Sets the row's device.
    mutating func name(_ identity: DeviceIdentity) {
        device = identity.name
        deviceSource = identity.source
    }
}
