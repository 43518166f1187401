import DriftFixtures
import Foundation
import Instrumentation
import Testing
import Tracing

@testable import DriftTrace

private func settings(port: Int) throws -> TraceSettings {
    var settings = try #require(
        try TraceSettings.resolve(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)"]))
    settings.delay = 3600  // exports only when the test flushes
    settings.timeout = 5
    return settings
}

/// A TCP socket bound to a free loopback port, listening when asked, and its port.
private func loopbackSocket(listening: Bool) -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && (!listening || listen(fd, 4) == 0)
                && getsockname(fd, pointer, &length) == 0
        }
    }
    return (fd, bound ? Int(UInt16(bigEndian: address.sin_port)) : 0)
}

/// A port nothing listens on: bound, then closed.
private func closedPort() -> Int {
    let (fd, port) = loopbackSocket(listening: false)
    close(fd)
    return port
}

@Suite("spans exported over OTLP/HTTP, read back by the official protobuf package", .serialized)
struct SpanExporterTests {
    @Test(
        "ids, parents, kinds, every attribute type, events, links and status arrive as sent",
        .enabled(if: OTLPReceiver.available, "scripts/install-deps.sh makes the venv"))
    func decoded() throws {
        let receiver = try OTLPReceiver()
        let exporter = SpanExporter(
            settings: try settings(port: receiver.port),
            resource: [("service.name", .string("test")), ("process.pid", .int(42))])
        let tracer = OTLPTracer(exporter: exporter)
        let root = tracer.startSpan("night", context: .topLevel, ofKind: .server)
        let child = tracer.startSpan("job", context: root.context, ofKind: .producer)
        child.attributes["text"] = "é ☃"
        child.attributes["count"] = 7
        child.attributes["ratio"] = 0.5
        child.attributes["flag"] = true
        child.attributes["names"] = ["a", "b"]
        child.attributes["numbers"] = [Int64(1), -2]
        child.addEvent(SpanEvent(name: "lease", attributes: ["driftfix.attempt": 2]))
        child.addLink(SpanLink(context: root.context, attributes: [:]))
        child.setStatus(SpanStatus(code: .error, message: "no space left"))
        child.end()
        root.end()
        exporter.flush()
        #expect(exporter.counts.exported == 2 && exporter.counts.dropped == 0, "\(exporter.counts)")
        let spans = receiver.spans
        try #require(spans.count == 2)
        let rootID = try #require(root.context.traceParent)
        let childID = try #require(child.context.traceParent)
        let received = try #require(spans.first { $0["name"] as? String == "job" })
        #expect(received["trace"] as? String == rootID.traceID && childID.traceID == rootID.traceID)
        #expect(received["span"] as? String == childID.spanIDHex)
        #expect(received["parent"] as? String == rootID.spanIDHex)
        #expect(received["kind"] as? Int == 4, "producer")
        #expect(spans.first { $0["name"] as? String == "night" }?["kind"] as? Int == 2, "server")
        #expect(spans.first { $0["name"] as? String == "night" }?["parent"] as? String == "")
        let attributes = received["attributes"] as? [String: Any] ?? [:]
        #expect(attributes["text"] as? String == "é ☃")
        #expect(attributes["count"] as? Int == 7 && attributes["ratio"] as? Double == 0.5)
        #expect(attributes["flag"] as? Bool == true)
        #expect(attributes["names"] as? [String] == ["a", "b"] && attributes["numbers"] as? [Int] == [1, -2])
        let events = received["events"] as? [[String: Any]] ?? []
        #expect(events.count == 1 && events.first?["name"] as? String == "lease")
        #expect((events.first?["attributes"] as? [String: Any])?["driftfix.attempt"] as? Int == 2)
        #expect((received["links"] as? [[String: Any]])?.first?["span"] as? String == rootID.spanIDHex)
        #expect(received["status"] as? Int == 2 && received["message"] as? String == "no space left")
        #expect(received["flags"] as? Int == 1, "sampled")
        #expect((received["resource"] as? [String: Any])?["process.pid"] as? Int == 42)
        let start = received["start"] as? Int ?? 0
        let end = received["end"] as? Int ?? 0
        #expect(start > 1_700_000_000_000_000_000 && end >= start, "nanoseconds since the epoch")
        exporter.shutdown()
    }

    @Test("a collector that is away: spans dropped and counted, the failure named, a shutdown that does not wait")
    func collectorAway() throws {
        let exporter = SpanExporter(settings: try settings(port: closedPort()), resource: [])
        let tracer = OTLPTracer(exporter: exporter)
        // Fewer than a batch: nothing is sent before the flush, which makes one request.
        for index in 0..<300 { tracer.startSpan("job \(index)", context: .topLevel).end() }
        exporter.flush()
        var counts = exporter.counts
        #expect(counts.exported == 0 && counts.failedRequests == 1 && counts.dropped == 300, "\(counts)")
        #expect(counts.lastFailure?.contains("cannot connect") == true, "\(counts.lastFailure ?? "")")
        // More than a batch: the exporter's thread tries as they come; every span is accounted for once stopped.
        for index in 0..<1200 { tracer.startSpan("job \(index)", context: .topLevel).end() }
        exporter.shutdown()  // does not wait for a collector that failed: the thread finishes on its own
        for _ in 0..<400 where exporter.counts.dropped < 1500 { usleep(10_000) }
        counts = exporter.counts
        #expect(counts.dropped == 1500 && counts.exported == 0, "\(counts)")
        tracer.startSpan("after", context: .topLevel).end()
        #expect(exporter.counts.dropped == 1501, "a stopped exporter queues nothing")
    }

    @Test("a collector that accepts and never answers: the request ends at its deadline, the spans are counted dropped")
    func collectorSilent() throws {
        // Listening, never accepting: connects complete (the kernel's backlog), no answer ever comes.
        let (listener, port) = loopbackSocket(listening: true)
        defer { close(listener) }
        try #require(port != 0)
        var limits = try settings(port: port)
        limits.timeout = 0.3
        let exporter = SpanExporter(settings: limits, resource: [])
        let tracer = OTLPTracer(exporter: exporter)
        for _ in 0..<10 { tracer.startSpan("s", context: .topLevel).end() }
        exporter.flush()
        let counts = exporter.counts
        #expect(counts.dropped == 10 && counts.failedRequests == 1, "\(counts)")
        // A collector that never answered gets a quarter of a second at the end (`unprovenBudget`), not the timeout.
        #expect(counts.lastFailure?.contains("no answer in 0.25 s") == true, "\(counts.lastFailure ?? "")")
        exporter.shutdown()
    }

    @Test("the queue is bounded: spans beyond it are dropped and counted, never held")
    func bounded() throws {
        var limits = try settings(port: closedPort())
        limits.maxQueue = 5
        limits.maxBatch = 100  // never reached: nothing is sent until the flush
        let exporter = SpanExporter(settings: limits, resource: [])
        let tracer = OTLPTracer(exporter: exporter)
        for _ in 0..<8 { tracer.startSpan("s", context: .topLevel).end() }
        #expect(exporter.counts.dropped == 3 && exporter.counts.exported == 0)
        exporter.shutdown()
        #expect(exporter.counts.dropped == 8)
    }

    @Test("log lines inside a span carry its trace and span ids; outside, none")
    func logMetadata() {
        #expect(Traces.logMetadata.get().isEmpty)
        var context = InstrumentationContext.topLevel
        let parent = TraceParent.newTrace()
        context.traceParent = parent
        InstrumentationContext.withValue(context) {
            let metadata = Traces.logMetadata.get()
            #expect(metadata["trace_id"] == .string(parent.traceID))
            #expect(metadata["span_id"] == .string(parent.spanIDHex))
        }
    }
}
