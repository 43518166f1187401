import DriftFixtures
import Foundation
import Testing

private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    .standardized.path

/// One span as scripts/otlp-receiver.py decoded it (with the opentelemetry-proto package) from what driftfix sent.
private struct ReceivedSpan {
    let row: [String: Any]
    var trace: String { row["trace"] as? String ?? "" }
    var id: String { row["span"] as? String ?? "" }
    var parent: String { row["parent"] as? String ?? "" }
    var name: String { row["name"] as? String ?? "" }
    var kind: Int { row["kind"] as? Int ?? 0 }
    var nanoseconds: Double { Double((row["end"] as? Int ?? 0) - (row["start"] as? Int ?? 0)) }
    var attributes: [String: Any] { row["attributes"] as? [String: Any] ?? [:] }
    var resource: [String: Any] { row["resource"] as? [String: Any] ?? [:] }
    var events: [[String: Any]] { row["events"] as? [[String: Any]] ?? [] }
    var role: String? { resource["driftfix.role"] as? String }
    func attribute(_ key: String) -> String? { attributes[key].map { "\($0)" } }
}

private func receivedSpans(_ path: String) throws -> [ReceivedSpan] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
        ReceivedSpan(row: try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:])
    }
}

@Suite("a traced night across processes and namespaces", .serialized)
struct TraceTests {
    /// The night in scripts/traced-night.sh: its outputs, report and the spans its collector received.
    private func night(_ scenario: String) throws -> (CommandResult, [String: [String: Any]], [ReceivedSpan]) {
        let tree = try RepairTree(drifted: 12, frames: 1_440_000, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let report = TemporaryFolder("driftfix-report")
        let received = TemporaryFolder("driftfix-spans")
        let spans = received.file("spans.jsonl")
        let result = try runChild(
            "/bin/bash", [repository + "/scripts/traced-night.sh", tree.root.path, out.path, report.path, spans],
            environment: ["DRIFTFIX": driftfixPath(), "SCENARIO": scenario], seconds: 600)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("12 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed"), "\(result.stdout)")
        return (result, try reportRows(report.path), try receivedSpans(spans))
    }

    @Test(
        "2 local workers and a CURVE worker in its own namespace: one trace for the night, its phases, a coordinator span per file and the worker's child span across the process boundary, steps summing to the worker's span, log lines naming the trace",
        .enabled(if: networkNamespacesAvailable, "network namespaces are not permitted here (needs root)"))
    func tracedNight() throws {
        let (result, rows, spans) = try night("clean")
        #expect(Set(spans.map(\.trace)).count == 1, "one trace for the night")
        let roots = spans.filter { $0.parent.isEmpty }
        try #require(roots.count == 1 && roots[0].name == "driftfix night", "\(roots.map(\.name))")
        let root = roots[0]
        #expect(root.resource["service.name"] as? String == "driftfix-night", "OTEL_SERVICE_NAME")
        #expect(root.resource["deployment.environment"] as? String == "test", "OTEL_RESOURCE_ATTRIBUTES")
        #expect(root.role == "coordinator")
        let phases = spans.filter { $0.parent == root.id }.map(\.name).sorted()
        #expect(phases == ["dispatch repairs", "finish", "plan", "scan"], "\(phases)")
        let dispatch = try #require(spans.first { $0.name == "dispatch repairs" })
        // The coordinator's log lines written inside the night carry its trace id.
        #expect(result.stderr.contains("trace_id=\(root.trace)"), "\(result.stderr)")

        let jobs = spans.filter { $0.role == "coordinator" && $0.name == "job header" }
        #expect(jobs.count == rows.count && rows.count == 12)
        var workers: Set<String> = []
        for job in jobs {
            let name = ((job.attribute("file.path") ?? "") as NSString).lastPathComponent
            let row = try #require(rows[name], "\(name)")
            #expect(job.parent == dispatch.id, "\(name)")
            #expect(job.attribute("driftfix.outcome") == "repaired", "\(name)")
            let children = spans.filter { $0.parent == job.id }
            try #require(children.count == 1, "\(name): one worker span, \(children.map(\.name))")
            let work = children[0]
            #expect(work.name == "work header" && work.kind == 2, "a server span: \(work.name) \(work.kind)")
            #expect(work.role == "worker")
            #expect(work.resource["process.pid"] as? Int != root.resource["process.pid"] as? Int, "another process")
            let worker = work.resource["service.instance.id"] as? String
            #expect(worker == row["worker"] as? String, "\(name): the worker the report names")
            workers.insert(worker ?? "")
            // The steps are the worker span's children and account for its time (within 10 %).
            let steps = spans.filter { $0.parent == work.id }
            #expect(
                Set(steps.map(\.name)) == [
                    "wait for a core", "pin", "probe", "prepare", "convert", "verify", "commit", "checksum",
                ],
                "\(name): \(steps.map(\.name))")
            let sum = steps.reduce(0) { $0 + $1.nanoseconds }
            #expect(
                abs(sum - work.nanoseconds) <= 0.1 * work.nanoseconds, "\(name): steps \(sum) ns of \(work.nanoseconds)"
            )
        }
        #expect(workers.contains("w1"), "the CURVE worker in its namespace traced its jobs: \(workers)")
        #expect(workers.filter { $0.hasPrefix("local-") }.count >= 1, "\(workers)")
    }

    @Test(
        "a worker killed mid-job: its job's span shows both leases and the requeue, and the second attempt's worker span is its child",
        .enabled(if: networkNamespacesAvailable, "network namespaces are not permitted here (needs root)"))
    func requeuedJob() throws {
        let (_, rows, spans) = try night("kill")
        #expect(Set(spans.map(\.trace)).count == 1)
        let jobs = spans.filter { $0.name == "job header" }
        #expect(jobs.count == 12)
        let requeued = jobs.filter { job in job.events.contains { $0["name"] as? String == "requeue" } }
        try #require(requeued.count == 1, "the job w1 held: \(requeued.map { $0.attribute("file.path") ?? "" })")
        let job = requeued[0]
        let leases = job.events.filter { $0["name"] as? String == "lease" }.compactMap {
            ($0["attributes"] as? [String: Any]).map {
                ($0["driftfix.attempt"] as? Int ?? 0, $0["driftfix.worker"] as? String ?? "")
            }
        }
        #expect(leases.count == 2 && leases[0] == (1, "w1") && leases[1].0 == 2 && leases[1].1 != "w1", "\(leases)")
        #expect(job.attribute("driftfix.attempts") == "2")
        let name = ((job.attribute("file.path") ?? "") as NSString).lastPathComponent
        #expect(rows[name]?["attempts"] as? Int == 2)
        // The killed worker never ended its span; the second attempt's did, as a child of the same job span.
        let children = spans.filter { $0.parent == job.id }
        #expect(children.count == 1 && children.first?.attribute("driftfix.attempt") == "2", "\(children.map(\.row))")
        #expect(children.first?.resource["service.instance.id"] as? String == leases.last?.1)
    }
}
