import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

/// A collector on loopback as a Python script: `capture` writes every request's raw bytes to a file and answers 200;
/// `silent` accepts every connection and never answers.
private func collector(_ mode: String, folder: TemporaryFolder) throws -> (child: Child, port: Int) {
    let script = """
        import os, socket, sys, threading, time
        mode, out, port_file = sys.argv[1], sys.argv[2], sys.argv[3]
        server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(16)
        with open(port_file + ".tmp", "w") as f: f.write(str(server.getsockname()[1]))
        os.replace(port_file + ".tmp", port_file)  # whole or absent: never read half written
        held = []
        while True:
            conn, _ = server.accept()
            if mode == "silent":
                held.append(conn); continue
            conn.settimeout(2); data = b""
            try:
                while b"\\r\\n\\r\\n" not in data: data += conn.recv(65536)
            except Exception: pass
            open(out, "ab").write(data.split(b"\\r\\n\\r\\n")[0] + b"\\n--\\n")
            conn.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 0\\r\\n\\r\\n"); conn.close()
        """
    try script.write(toFile: folder.file("collector.py"), atomically: true, encoding: .utf8)
    let child = try Child(
        "/usr/bin/python3", [folder.file("collector.py"), mode, folder.file("requests"), folder.file("port")])
    // A loaded machine can take seconds to start Python: the port is awaited with a deadline, never assumed.
    var port = 0
    _ = waitUntil(seconds: 60) {
        port = Int((try? String(contentsOfFile: folder.file("port"), encoding: .utf8)) ?? "") ?? 0
        return port > 0
    }
    return (child, port)
}

@Suite("what goes to a trace collector, and what one costs (the built binary)", .serialized)
struct CollectorEdgeTests {
    /// A night's tree: one recording 1 ms short of its sidecar's length.
    static func tree(_ folder: TemporaryFolder) throws -> String {
        guard !FileManager.default.fileExists(atPath: folder.file("media")) else { return folder.file("media") }
        try FileManager.default.createDirectory(atPath: folder.file("media"), withIntermediateDirectories: true)
        _ = try writeMonoWAV(frames: 480_000, to: folder.file("media/take.wav"))
        try "480100@48000\n".write(toFile: folder.file("media/take.duration"), atomically: true, encoding: .utf8)
        return folder.file("media")
    }

    static func night(_ folder: TemporaryFolder, out: String, environment: [String: String], config: String? = nil)
        throws -> CommandResult
    {
        try driftfix(
            ["repair", try tree(folder), "--out", folder.file(out), "--workers", "1", "--full"]
                + (config.map { ["--config", $0] } ?? []), environment: environment)
    }

    @Test(
        "a header variable holding CR/LF (raw or percent-encoded) never writes a header into a request: one line names the variable",
        arguments: ["x-a=%0d%0aInjected: yes", "x-a=one\r\nInjected: yes", "x-a=one\nInjected: yes"])
    func noInjectedHeader(headers: String) throws {
        let folder = TemporaryFolder()
        let (child, port) = try collector("capture", folder: folder)
        defer { child.send(SIGTERM) }
        try #require(port > 0)
        let result = try Self.night(
            folder, out: "out",
            environment: [
                "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)",
                "OTEL_EXPORTER_OTLP_HEADERS": headers,
            ])
        #expect(result.status == 0, "traces never stop a night: \(result.stderr)")
        let lines = result.errorLines.filter { $0.contains("OTEL_EXPORTER_OTLP_HEADERS") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("control character") }, "\(result.stderr)")
        let received = (try? String(contentsOfFile: folder.file("requests"), encoding: .utf8)) ?? ""
        #expect(!received.contains("Injected"), "\(received)")
    }

    @Test("a good header reaches the collector; a YAML header holding CR/LF is refused with its line and key")
    func goodHeaderAndYAML() throws {
        let folder = TemporaryFolder()
        let (child, port) = try collector("capture", folder: folder)
        defer { child.send(SIGTERM) }
        try #require(port > 0)
        try "tracing:\n  enabled: true\n  endpoint: http://127.0.0.1:\(port)\n  headers:\n    x-team: qa\n"
            .write(toFile: folder.file("ok.yaml"), atomically: true, encoding: .utf8)
        let good = try Self.night(folder, out: "out", environment: [:], config: folder.file("ok.yaml"))
        #expect(good.status == 0, "\(good.stderr)")
        let received = (try? String(contentsOfFile: folder.file("requests"), encoding: .utf8)) ?? ""
        #expect(received.contains("x-team: qa"), "\(received)")
        try "tracing:\n  enabled: true\n  headers:\n    x-a: \"one\\r\\nInjected: yes\"\n"
            .write(toFile: folder.file("bad.yaml"), atomically: true, encoding: .utf8)
        let bad = try Self.night(folder, out: "out2", environment: [:], config: folder.file("bad.yaml"))
        #expect(bad.status == 2, "a configuration error")
        #expect(bad.stderr.contains("bad.yaml:4: tracing.headers.x-a: holds a control character"), "\(bad.stderr)")
    }

    @Test("a collector that takes the connection and never answers costs a short night a fraction of a second, said")
    func silentCollector() throws {
        let folder = TemporaryFolder()
        let (child, port) = try collector("silent", folder: folder)
        defer { child.send(SIGTERM) }
        try #require(port > 0)
        func timed(_ environment: [String: String], _ name: String) throws -> (Double, CommandResult) {
            let start = Date()
            let result = try Self.night(folder, out: name, environment: environment)
            return (Date().timeIntervalSince(start), result)
        }
        var plain: [Double] = []
        var traced: [Double] = []
        var last: CommandResult?
        for run in 0..<3 {
            plain.append(try timed([:], "plain\(run)").0)
            let (seconds, result) = try timed(
                ["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)"],
                "traced\(run)")
            traced.append(seconds)
            last = result
        }
        let extra = traced.sorted()[1] - plain.sorted()[1]
        // Every process of the night (the coordinator, its worker) gives a collector that never answered a quarter
        // second at its end, where it gave one a second before.
        #expect(extra < 0.75, "a silent collector cost \(extra) s (medians of 3)")
        let warnings = (last?.errorLines ?? []).filter { $0.contains("traces:") && $0.contains("no answer") }
        #expect(!warnings.isEmpty, "said: \(last?.stderr ?? "")")
    }
}
