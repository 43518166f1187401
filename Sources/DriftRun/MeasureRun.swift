import DriftConfig
import DriftCoordinator
import DriftCore
import DriftJobs
import DriftPlanning
import DriftSchema
import DriftWire
import Foundation
import Logging

/// `driftfix scan --content`: the scan's pairs measured by their sound on workers, where the files are. The
/// coordinator only reads headers; each pair whose reference may have sound of its own becomes a measure-only job
/// (nothing is written), and its measurement, compared with the headers, goes into the pair's row with what the
/// content policy would do.
public struct MeasureRun {
    public struct Outcome: Sendable {
        public var report: ScanReport
        /// Jobs that did not finish (no worker, a stop) or failed, as rows with their error.
        public var unmeasured: Int
    }

    private let configuration: Configuration
    private let dispatch: DispatchSettings
    private let logger: Logger

    public init(configuration: Configuration, dispatch: DispatchSettings, logger: Logger) {
        self.configuration = configuration
        self.dispatch = dispatch
        self.logger = logger
    }

    /// Measures `report`'s pairs and returns it with their `content`.
    public func run(_ report: ScanReport, observer: RepairRun.Observer? = nil) async throws(RunError) -> Outcome {
        // Measuring shows what the sound says whatever the configured policy; the decision it implies is worded
        // under the configured one, or under `content` when the configuration plans by headers.
        var policy = configuration.content
        if !policy.measuresContent { policy.mode = .content }
        var jobs: [JobRecord] = []
        var rowOfJob: [Int: Int] = [:]
        for (index, row) in report.pairs.enumerated() where row.driftPPM != nil && RunPlanner.hasOwnSound(row) {
            var job = JobRecord(
                id: jobs.count + 1, input: row.recording, output: "", outputRoot: "",
                targetFrames: row.targetFrames ?? row.recordingFrames ?? 0, method: row.method ?? .resample,
                methodReason: row.methodReason ?? "in sync by the headers", quality: configuration.repair.quality,
                audioSeconds: row.recordingSeconds ?? 0, run: Int64.random(in: 1...Int64.max))
            job.spec.inputRoots = report.roots
            var content = ContentJob(
                reference: row.reference, measureOnly: true, policy: policy,
                headersInSync: row.action == .skip, headerDriftPPM: row.driftPPM,
                recordingSeconds: row.recordingSeconds ?? 0, referenceSeconds: row.referenceSeconds)
            content.headersRefusal = row.action == .refuse ? row.error : nil
            job.spec.content = content
            rowOfJob[job.id] = index
            jobs.append(job)
        }
        let store = InMemoryJobStore()
        store.add(jobs)
        observer?.planned(jobs)
        logger.notice("measuring \(jobs.count) of \(report.pairs.count) pairs by their sound")
        let runtime: CoordinatorRuntime.Result
        do {
            runtime = try await CoordinatorRuntime(
                settings: try dispatch.runtime(roots: report.roots, outputRoot: nil, logger: logger),
                logger: logger
            )
            .run(store: store, onEvent: { [observer] event in observer?.event(event) })
        } catch let error as RunError {
            throw error
        } catch {
            throw .dispatch("\(error)")
        }
        observer?.finished()
        if dispatch.bind == nil { unlink(DispatchSettings.privateEndpointPath) }
        if case .noWorkers = runtime.outcome {
            logger.error(
                "no worker alive for \(Int(dispatch.idleTimeout)) s with \(store.unfinishedCount) measurements unfinished"
            )
        }

        var measured = report
        var unmeasured = 0
        for job in store.all {
            guard let index = rowOfJob[job.id] else { continue }
            switch job.state {
            case .done(let result) where result.succeeded:
                let content = result.content
                // A scan plans nothing by the sound: the row keeps the headers' plan, and the note says what the content
                // policy would do instead.
                measured.pairs[index].content = content?.measurement
                measured.pairs[index].contentNote = content.map { Self.implication($0, policy: policy) }
            case .done(let result):
                unmeasured += 1
                measured.pairs[index].contentNote = "not measured: \(result.error ?? "failed")"
            case .failed(let error):
                unmeasured += 1
                measured.pairs[index].contentNote = "not measured: \(error)"
            case .queued, .leased:
                unmeasured += 1
                measured.pairs[index].contentNote = "not measured: the scan stopped first"
            }
        }
        return Outcome(report: measured, unmeasured: unmeasured)
    }

    /// What the content policy would do with the pair, in words.
    static func implication(_ result: ContentResult, policy: ContentPolicy) -> String {
        let under = "under content.measure \(policy.mode.rawValue)"
        if result.measuredBy == .headers {
            return "the headers would plan it (\(result.reason ?? "the sound cannot tell")), \(under)"
        }
        if result.operations.isEmpty {
            return result.reason.map { "would \($0.hasPrefix("in sync") ? "skip: " : "refuse: ")\($0), \(under)" }
                ?? "would skip, \(under)"
        }
        var steps: [String] = []
        for operation in result.operations {
            let name = operation.name
            let count = result.operations.filter { $0.name == name }.count
            let step = name == "insert" ? "re-insert \(count) dropout\(count == 1 ? "" : "s")" : name
            if !steps.contains(step) { steps.append(step) }
        }
        return "would \(steps.joined(separator: ", ")), \(under)"
    }
}
