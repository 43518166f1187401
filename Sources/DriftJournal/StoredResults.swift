import DriftCore
import DriftSchema
import DriftWire
import Foundation

// A job's results and a content job's policy as the journal stores them (`job.resultWork`, `job.work`): its own
// copies of the wire's types (StoredMeasurement.swift says why).

/// What a content job decided and found.
struct StoredContentResult: Codable, Equatable {
    var decision: String
    var reason: String?
    var measuredBy: String
    var operations: [String]
    var measurement: StoredMeasurement?
    var planned: String?

    init(_ result: ContentResult) {
        decision = result.decision.rawValue
        reason = result.reason
        measuredBy = result.measuredBy.rawValue
        operations = StoredOperations.text(result.operations)
        measurement = result.measurement.map(StoredMeasurement.init)
        planned = result.planned?.rawValue
    }

    /// The result; nil where a name or an operation is not one this build knows.
    var value: ContentResult? {
        guard let decision = ContentResult.Decision(rawValue: decision),
            let measuredBy = PlanMeasurement(rawValue: measuredBy), let operations = StoredOperations.value(operations)
        else { return nil }
        var found: ContentMeasurement?
        if let measurement {
            guard let known = measurement.value else { return nil }
            found = known
        }
        var plannedDecision: ContentResult.Decision?
        if let planned {
            guard let known = ContentResult.Decision(rawValue: planned) else { return nil }
            plannedDecision = known
        }
        return ContentResult(
            decision: decision, reason: reason, measuredBy: measuredBy, operations: operations, measurement: found,
            planned: plannedDecision)
    }
}

/// What a sound job made (a print's bytes are kept in their own column; a clip's rows here).
struct StoredSoundResult: Codable, Equatable {
    var print: Data?
    var timecode: Double?
    var started: Double?
    var matches: [StoredMatch]?

    init(_ result: SoundResult) {
        print = result.print
        timecode = result.timecode
        started = result.started
        matches = result.matches.map { $0.map(StoredMatch.init) }
    }

    /// The result; nil where a row is unreadable.
    var value: SoundResult? {
        var matchList: [SoundPairingReport.Match]?
        if let matches {
            guard let known = StoredMatch.value(matches) else { return nil }
            matchList = known
        }
        var result = SoundResult(print: print, timecode: timecode, matches: matchList)
        result.started = started
        return result
    }
}

/// A content job's policy.
struct StoredPolicy: Codable, Equatable {
    var mode: String
    var confidenceFloor: Double
    var start: String
    var residualLimitMs: Double
    var headerPrecisionMs: Double
    /// Absent in the jobs of releases before it: they never fell back.
    var fallsBackToHeaders: Bool?

    init(_ policy: ContentPolicy) {
        mode = policy.mode.rawValue
        confidenceFloor = policy.confidenceFloor
        start = policy.start.rawValue
        residualLimitMs = policy.residualLimitMs
        headerPrecisionMs = policy.headerPrecisionMs
        fallsBackToHeaders = policy.fallsBackToHeaders
    }

    /// The policy; nil where a name is not one this build knows.
    var value: ContentPolicy? {
        guard let mode = ContentPolicy.Mode(rawValue: mode), let start = ContentRepairPlan.Start(rawValue: start)
        else { return nil }
        var policy = ContentPolicy(
            mode: mode, confidenceFloor: confidenceFloor, start: start, residualLimitMs: residualLimitMs,
            headerPrecisionMs: headerPrecisionMs)
        policy.fallsBackToHeaders = fallsBackToHeaders ?? false
        return policy
    }
}
