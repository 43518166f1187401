import DriftKit
import Foundation

/// What `POST /repair` answers: the repair's exact lengths and where to fetch it, and the drift the sound measured.
struct RepairReport: Encodable {
    struct Frames: Encodable {
        var input: Int64
        var output: Int64
    }

    struct Drift: Encodable {
        /// Whether the sound could be measured; `reason` says why not.
        var measured: Bool
        var driftPPM: Double?
        var offsetMs: Double?
        var confidence: Double
        var reason: String?
    }

    var id: UUID
    /// Where the repaired file is fetched.
    var output: String
    var frames: Frames
    var sampleRate: Int
    var method: String
    var seconds: Double
    var drift: Drift
    var warnings: [String]

    init(id: UUID, summary: RepairSummary, measured: ContentMeasurement) {
        self.id = id
        output = "/outputs/\(id.uuidString)"
        frames = Frames(input: summary.inputFrames, output: summary.outputFrames)
        sampleRate = summary.outputSampleRate
        method = summary.method
        seconds = summary.elapsed / .seconds(1)
        drift = Drift(
            measured: measured.isMeasured, driftPPM: measured.driftPPM,
            offsetMs: measured.offset.map { $0 / .milliseconds(1) },
            confidence: measured.confidence, reason: measured.reason)
        warnings = summary.warnings
    }
}
