import DriftTransport
import Foundation
import Logging
import Testing
import TestSupport

/// A CURVE server on loopback TCP with the ZAP handler, and clients of every kind.
final class CurveRig {
    let context: MessageContext
    let server: MessageSocket
    let monitor: HandshakeMonitor
    let zap: ZapHandler?
    let endpoint: String
    let serverKeys: CurveKeyPair

    init(allowlist: KeyAllowlist?) throws {
        let context = try MessageContext()
        self.context = context
        serverKeys = try CurveKeyPair.generate()
        zap = try allowlist.map { try ZapHandler(context: context, allowlist: $0, logger: Logger(label: "test.zap")) }
        server = try MessageSocket(context: context, kind: .router, maxMessageBytes: 65_536, security: .curveServer(serverKeys))
        monitor = try server.monitorHandshakes(name: "rig-\(UInt32.random(in: 0...UInt32.max))")
        try server.bind("tcp://127.0.0.1:*")
        endpoint = server.lastEndpoint
    }

    deinit { zap?.stop() }

    /// Connects a DEALER, sends one message, and reports whether the server got it within `seconds`.
    func delivers(_ security: SocketSecurity, seconds: Double = 1.5) throws -> Bool {
        let client = try MessageSocket(context: context, kind: .dealer, maxMessageBytes: 65_536, security: security)
        try client.connect(endpoint)
        try client.send([Array("hello".utf8)])
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            _ = try server.poll(milliseconds: 50)
            if let frames = try server.receive(), frames.last == Array("hello".utf8) { return true }
        }
        return false
    }
}

@Suite("CURVE and the ZAP handler", .serialized)
struct CurveTests {
    @Test("only allowed keys get in: unknown keys, no keys, raw plaintext and a wrong server key are refused")
    func admission() throws {
        let folder = TemporaryFolder("driftfix-allow")
        let allowed = try CurveKeyPair.generate()
        let stranger = try CurveKeyPair.generate()
        try "public-key = \"\(allowed.publicKey)\"\n".write(toFile: folder.file("a.pub"), atomically: true, encoding: .utf8)
        let rig = try CurveRig(allowlist: KeyAllowlist(path: folder.path))

        #expect(try rig.delivers(.curveClient(allowed, serverKey: rig.serverKeys.publicKey)), "an allowed key is admitted")
        #expect(try !rig.delivers(.curveClient(stranger, serverKey: rig.serverKeys.publicKey)), "an unknown key is refused")
        #expect(rig.zap?.decisions.refused == 1 && rig.zap?.decisions.admitted == 1)
        #expect(try !rig.delivers(.none), "a client without keys (NULL mechanism) is refused")
        let wrongServer = try CurveKeyPair.generate().publicKey
        #expect(try !rig.delivers(.curveClient(allowed, serverKey: wrongServer)), "a client trusting another server key fails")
        // Raw bytes on the TCP port: a JSON hello with no ZMTP at all.
        let port = UInt16(rig.endpoint.split(separator: ":").last ?? "") ?? 0
        let raw = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian,
                                  sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let hello = #"{"v":2,"type":"hello","body":{"worker":"x","capacity":1}}"# + "\n"
        _ = hello.withCString { send(raw, $0, strlen($0), 0) }
        Thread.sleep(forTimeInterval: 0.5)
        close(raw)
        #expect(try rig.server.receive() == nil, "nothing from the raw client reached the socket")
        #expect(rig.zap?.decisions.admitted == 1, "only the allowed key was ever admitted")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(rig.monitor.drain().count >= 2, "the plaintext and wrong-server-key handshakes were reported")
    }

    @Test("the allowlist is re-read on change: a key added is admitted, a key removed is refused, without a restart")
    func reload() throws {
        let folder = TemporaryFolder("driftfix-allow")
        let first = try CurveKeyPair.generate()
        let second = try CurveKeyPair.generate()
        try CurveKeyFile.write(first, name: "first", folder: folder.path)
        try FileManager.default.removeItem(atPath: folder.file("first.key"))  // only public keys in an allowlist
        let rig = try CurveRig(allowlist: KeyAllowlist(path: folder.path))
        #expect(try rig.delivers(.curveClient(first, serverKey: rig.serverKeys.publicKey)))
        #expect(try !rig.delivers(.curveClient(second, serverKey: rig.serverKeys.publicKey)))
        try "\(second.publicKey)\n".write(toFile: folder.file("second.pub"), atomically: true, encoding: .utf8)
        #expect(try rig.delivers(.curveClient(second, serverKey: rig.serverKeys.publicKey)), "added without a restart")
        try FileManager.default.removeItem(atPath: folder.file("first.pub"))
        #expect(try !rig.delivers(.curveClient(first, serverKey: rig.serverKeys.publicKey)), "revoked without a restart")
    }

    @Test("why the handler matters: without it libzmq admits any CURVE client that knows the server key")
    func withoutHandler() throws {
        let rig = try CurveRig(allowlist: nil)
        #expect(try rig.delivers(.curveClient(try CurveKeyPair.generate(), serverKey: rig.serverKeys.publicKey)))
    }

    @Test("key files: modes, no silent overwrite, others-readable secrets refused, Z85 keys with # and = survive")
    func keyFiles() throws {
        let folder = TemporaryFolder("driftfix-keys")
        var sawSpecial = false
        for index in 0..<60 {
            let pair = try CurveKeyPair.generate()
            sawSpecial = sawSpecial || (pair.publicKey + pair.secretKey).contains { $0 == "#" || $0 == "=" || $0 == "\"" }
            try CurveKeyFile.write(pair, name: "k\(index)", folder: folder.path)
            #expect(try CurveKeyFile.loadSecret(folder.file("k\(index).key")) == pair)
            #expect(try CurveKeyFile.loadPublic(folder.file("k\(index).pub")) == pair.publicKey)
        }
        #expect(sawSpecial, "some key contained # or = (Z85 characters)")
        let mode = { (path: String) in (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1 }
        #expect(try mode(folder.file("k0.key")) == 0o600 && mode(folder.file("k0.pub")) == 0o644)
        #expect(throws: KeyFileError.self) { try CurveKeyFile.write(try CurveKeyPair.generate(), name: "k0", folder: folder.path) }
        chmod(folder.file("k1.key"), 0o640)
        do {
            _ = try CurveKeyFile.loadSecret(folder.file("k1.key"))
            Issue.record("a group-readable secret key was accepted")
        } catch {
            #expect(error.description.contains("accessible to others (mode 640)"), "\(error)")
        }
        try "public-key = \"short\"\nsecret-key = \"x\"\n".write(toFile: folder.file("bad.key"), atomically: true, encoding: .utf8)
        chmod(folder.file("bad.key"), 0o600)
        #expect(throws: KeyFileError.self) { try CurveKeyFile.loadSecret(folder.file("bad.key")) }
    }

    @Test("which endpoints are local", arguments: [
        ("ipc:///tmp/x.sock", true), ("inproc://x", true), ("tcp://127.0.0.1:5555", true), ("tcp://127.3.2.1:1", true),
        ("tcp://localhost:5555", true), ("tcp://[::1]:5555", true), ("tcp://lo:5555", true),
        ("tcp://0.0.0.0:5555", false), ("tcp://*:5555", false), ("tcp://10.0.0.5:5555", false), ("tcp://eth0:5555", false),
        ("tcp://coordinator:5555", false), ("tcp://[::]:5555", false), ("tcp://127.0.0.1;10.0.0.1:5555", false),
        ("tcp://128.0.0.1:5555", false), ("tcp://127.0.0.1.evil.com:5555", false), ("udp://127.0.0.1:1", false),
    ])
    func endpoints(endpoint: String, local: Bool) {
        #expect(Endpoint.isLocal(endpoint) == local)
    }
}
