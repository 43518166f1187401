import DriftCore
import DriftFixtures
import DriftMetrics
import Foundation
import Logging
import Synchronization
import Testing

/// A raw TCP client on loopback: what a browser, a scanner or a broken scraper sends, byte for byte.
private struct RawClient {
    let descriptor: Int32

    init(port: Int, seconds: Int = 20) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// Sends what it can; a server that closed early makes the rest fail quietly (no SIGPIPE).
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Everything until the server closes (or the receive timeout): the answer's bytes as text.
    func readAll() -> String {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    func finish() { close(descriptor) }

    /// Whether the server has not closed its end: nothing to read yet, and no end of stream.
    var isOpen: Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) < 0 && errno == EAGAIN
    }
}

/// One process holding a listener's connections: `idle` connections that send nothing, each reopened at once (the
/// newest replaces the oldest), and `slow` ones that send a head a byte every 100 ms and never finish it (reopened
/// when the server closes them).
private final class Attacker: Sendable {
    let port: Int
    let idle: Int
    let slow: Int
    let opened = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    init(port: Int, idle: Int, slow: Int) {
        self.port = port
        self.idle = idle
        self.slow = slow
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    func run() {
        var idleClients: [RawClient] = []
        var slowClients: [RawClient] = []
        var lastDrip = Date.distantPast
        func open() -> RawClient? {
            let client = try? RawClient(port: port, seconds: 1)
            if client != nil { opened.add(1, ordering: .relaxed) }
            return client
        }
        while !stopped.load(ordering: .relaxed) {
            if let client = open() { idleClients.append(client) }
            if idleClients.count > idle { idleClients.removeFirst().finish() }
            if Date().timeIntervalSince(lastDrip) >= 0.1 {
                lastDrip = Date()
                slowClients = slowClients.filter { client in
                    guard client.isOpen else {
                        client.finish()
                        return false
                    }
                    client.send([UInt8(ascii: "a")])
                    return true
                }
                while slowClients.count < slow, let client = open() {
                    client.send(Array("GET /metrics HTTP/1.1\r\nX-Slow: ".utf8))
                    slowClients.append(client)
                }
            }
        }
        for client in idleClients + slowClients { client.finish() }
    }
}

/// A server on a port the kernel picks (no race with another test for a port), served until the test ends. The
/// test starts once the server says it listens; a server that fails to listen fails the test with its reason.
private func serving(
    limits: MetricsServer.Limits = MetricsServer.Limits(), _ body: (Int) async throws -> Void
) async throws {
    let server = try MetricsServer(
        address: MetricsAddress(host: "127.0.0.1", port: 0), limits: limits, logger: Logger(label: "test")
    ) { Array("driftfix_test_metric 1\n".utf8) }
    let (bound, announce) = AsyncStream<Int>.makeStream()
    let task = Task {
        defer { announce.finish() }
        try await server.run { announce.yield($0.port) }
    }
    defer { task.cancel() }
    var ports = bound.makeAsyncIterator()
    guard let port = await ports.next() else {
        try await task.value
        Issue.record("the server ended without listening")
        return
    }
    #expect(port != 0)
    try await body(port)
    task.cancel()
    _ = await task.result
}

private func exchange(_ port: Int, _ request: [UInt8]) throws -> String {
    let client = try RawClient(port: port)
    defer { client.finish() }
    client.send(request)
    return client.readAll()
}

private func statusLine(_ answer: String) -> String {
    answer.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
}

@Suite("metrics listener: who may reach it and what a hostile client gets", .serialized)
struct MetricsServerTests {
    @Test("off loopback only when acknowledged, in the library: an embedding program gets the same refusal")
    func networkNeedsAcknowledgement() throws {
        for host in ["0.0.0.0", "::", "10.0.0.5", "example.invalid", "128.0.0.1"] {
            let address = MetricsAddress(host: host, port: 9464)
            #expect(!address.isLoopback, "\(host)")
            #expect(throws: MetricsError.onNetwork(address: address.description)) {
                _ = try MetricsServer(address: address, logger: Logger(label: "test")) { [] }
            }
            var acknowledged = address
            acknowledged.onNetwork = true
            #expect(acknowledged.refusal == nil)
        }
        for host in ["127.0.0.1", "127.1.2.3", "::1", "localhost", "::ffff:127.0.0.1"] {
            #expect(MetricsAddress(host: host, port: 9464).isLoopback, "\(host)")
        }
    }

    @Test(
        "a malformed request line gets 400, a 2 MB head 431, another method 405 naming GET and HEAD; /metrics answers after all of them"
    )
    func malformedRequests() async throws {
        try await serving { port in
            #expect(
                statusLine(try exchange(port, Array("\u{1}\u{2} garbage\r\n\r\n".utf8))) == "HTTP/1.1 400 Bad Request")
            let huge =
                Array("GET /metrics HTTP/1.1\r\nX-Big: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
                + Array("\r\n\r\n".utf8)
            #expect(statusLine(try exchange(port, huge)) == "HTTP/1.1 431 Request Header Fields Too Large")
            let delete = try exchange(port, Array("DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(
                statusLine(delete) == "HTTP/1.1 405 Method Not Allowed" && delete.contains("Allow: GET, HEAD"),
                "\(delete)")
            let missing = try exchange(port, Array("GET /secret HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(statusLine(missing) == "HTTP/1.1 404 Not Found")
            let good = try exchange(port, Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(statusLine(good) == "HTTP/1.1 200 OK" && good.hasSuffix("driftfix_test_metric 1\n"), "\(good)")
        }
    }

    @Test("an idle connection is closed and a slow request gets 408, both at the connection's limit")
    func slowClients() async throws {
        try await serving(limits: MetricsServer.Limits(connectionSeconds: 1)) { port in
            let idle = try RawClient(port: port)
            let started = Date()
            #expect(idle.readAll().isEmpty)
            let waited = Date().timeIntervalSince(started)
            #expect(waited >= 0.9 && waited < 15, "closed after \(waited) s")
            idle.finish()
            // The head arrives, the body it announces never does.
            let slow = try RawClient(port: port)
            slow.send(Array("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n".utf8))
            #expect(statusLine(slow.readAll()) == "HTTP/1.1 408 Request Timeout")
            slow.finish()
        }
    }

    @Test("more connections than the limit: a new one is served, the oldest that sent no head is closed for it")
    func connectionLimit() async throws {
        try await serving(limits: MetricsServer.Limits(connectionSeconds: 30, headSeconds: 30, connections: 3)) {
            port in
            let held = try (0..<3).map { _ in try RawClient(port: port, seconds: 10) }
            // The three are accepted before the fourth (one loop accepts in order); the fourth is answered at once.
            let answer = try exchange(port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(statusLine(answer) == "HTTP/1.1 200 OK", "\(answer)")
            // The oldest idle one was closed to make room, long before its 30 s were up; the others are still open.
            let started = Date()
            #expect(held[0].readAll().isEmpty && Date().timeIntervalSince(started) < 9, "the oldest was not closed")
            #expect(held[1].isOpen && held[2].isOpen)
            for client in held { client.finish() }
        }
    }

    @Test(
        "500 idle connections reopened as fast as they close and 30 slowloris clients: 100 of 100 scrapes answered within the client's 5 s"
    )
    func heldListener() async throws {
        try await serving { port in
            let attack = Attacker(port: port, idle: 500, slow: 30)
            let thread = Thread { attack.run() }
            thread.start()
            defer { attack.stop() }
            // The attack is under way: its connections fill the listener before the first scrape.
            while attack.opened.load(ordering: .relaxed) < 600 { try await Task.sleep(for: .milliseconds(20)) }
            // A held listener answers nothing (64 idle connections once kept /metrics down for good): every scrape
            // must be answered within the client's 5 s. How much sooner is the machine's business as much as the
            // server's (a busy machine delays a scrape by scheduler ticks): it is said, not asserted.
            var answered = 0
            var slowest = 0.0
            for scrape in 0..<100 {
                let started = Date()
                let client = try RawClient(port: port, seconds: 5)
                client.send(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                let answer = client.readAll()
                client.finish()
                let took = Date().timeIntervalSince(started)
                slowest = max(slowest, took)
                if statusLine(answer) == "HTTP/1.1 200 OK" {
                    answered += 1
                } else {
                    Issue.record("scrape \(scrape): \(statusLine(answer)) after \(took) s")
                }
            }
            #expect(answered == 100, "slowest \(slowest) s")
            #expect(attack.opened.load(ordering: .relaxed) > 1000, "the attack kept reopening")
        }
    }

    @Test("random bytes: every connection ends (answered or closed) within the limit, and the server goes on serving")
    func fuzz() async throws {
        try await serving(limits: MetricsServer.Limits(connectionSeconds: 2)) { port in
            var random = SplitMix64(seed: 38)
            let pieces = ["GET ", "/metrics", " HTTP/1.1", "\r\n", "Host: x", ":", "\0", "\u{7f}", " ", "HEAD", "%%"]
            for round in 0..<60 {
                var request: [UInt8] = []
                for _ in 0..<Int.random(in: 1...12, using: &random) {
                    if Bool.random(using: &random) {
                        request += Array(pieces.randomElement(using: &random)!.utf8)
                    } else {
                        request += (0..<Int.random(in: 1...40, using: &random)).map { _ in
                            UInt8.random(in: 0...255, using: &random)
                        }
                    }
                }
                let client = try RawClient(port: port, seconds: 10)
                let started = Date()
                client.send(request)
                let answer = client.readAll()
                client.finish()
                let took = Date().timeIntervalSince(started)
                #expect(took < 8, "round \(round): \(took) s")
                #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 "), "round \(round): \(answer.prefix(80))")
            }
            let good = try exchange(port, Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(statusLine(good) == "HTTP/1.1 200 OK")
        }
    }
}
