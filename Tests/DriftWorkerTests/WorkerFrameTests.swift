import DriftCore
import DriftWire
import Foundation
import Testing

@testable import DriftWorker

/// A worker's result the wire cannot carry reaches the coordinator as that job's failure, not as nothing.
@Suite struct WorkerFrameTests {
    @Test("a result holding an infinite drift goes as the job's failure, saying why; a plain one goes as it is")
    func unencodableResultFails() throws {
        let measurement = ContentMeasurement(
            offsetMs: 1, driftPPM: .infinity, driftPPMError: 0.5, model: .clock, confidence: 0.9, reason: nil)
        let content = ContentResult(
            decision: .repaired, reason: "r", measuredBy: .content, operations: [], measurement: measurement)
        let result = JobResult(id: 12, attempt: 2, worker: "w", seconds: 1, outcome: .decided(content, output: nil))
        let (bytes, refused) = try WorkerNode.frame(.result(result))
        #expect(refused != nil)
        guard case .result(let sent) = try WireCodec.decode(bytes) else {
            Issue.record("not a result")
            return
        }
        #expect(sent.id == 12 && sent.attempt == 2 && !sent.outcome.columns.succeeded)
        #expect(
            sent.outcome.columns.failure?.message.contains("driftPPM") == true,
            "\(String(describing: sent.outcome.columns.failure))")
        var plain = result
        plain.outcome = .repaired(WrittenOutput(frames: 3, checksum: nil))
        let (again, none) = try WorkerNode.frame(.result(plain))
        #expect(none == nil)
        #expect(try WireCodec.decode(again) == .result(plain))
    }
}
