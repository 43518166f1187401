import DriftFixtures
import DriftTransport
import Foundation
import Logging
import Testing

/// A CURVE server on loopback TCP with the ZAP handler, and clients of every kind.
final class CurveRig {
    let context: MessageContext
    let server: MessageSocket
    let monitor: HandshakeMonitor
    let zap: ZapHandler?
    let endpoint: String
    let serverKeys: CurveKeyPair

    init(allowlist: AdmissionPolicy?) throws {
        let context = try MessageContext()
        self.context = context
        serverKeys = try CurveKeyPair.generate()
        zap = try allowlist.map { try ZapHandler(context: context, policy: $0, logger: Logger(label: "test.zap")) }
        server = try MessageSocket(
            context: context, kind: .router, maxMessageBytes: 65_536, security: .curveServer(serverKeys))
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
        try "public-key = \"\(allowed.publicKey)\"\n".write(
            toFile: folder.file("a.pub"), atomically: true, encoding: .utf8)
        let rig = try CurveRig(allowlist: AdmissionPolicy(allowlist: folder.path))

        #expect(
            try rig.delivers(.curveClient(allowed, serverKey: rig.serverKeys.publicKey)), "an allowed key is admitted")
        #expect(
            try !rig.delivers(.curveClient(stranger, serverKey: rig.serverKeys.publicKey)), "an unknown key is refused")
        #expect(rig.zap?.decisions.refused == 1 && rig.zap?.decisions.admitted == 1)
        _ = rig.monitor.drain()
        #expect(try !rig.delivers(.none), "a client without keys (NULL mechanism) is refused")
        #expect(!rig.monitor.drain().isEmpty, "the plaintext client's failed handshake was reported")
        let wrongServer = try CurveKeyPair.generate().publicKey
        #expect(
            try !rig.delivers(.curveClient(allowed, serverKey: wrongServer)),
            "a client trusting another server key fails")
        #expect(!rig.monitor.drain().isEmpty, "the wrong-server-key handshake was reported")
        #expect(rig.zap?.decisions.admitted == 1, "neither reached an admission")
        // Raw bytes on the TCP port: a JSON hello with no ZMTP at all.
        let port = UInt16(rig.endpoint.split(separator: ":").last ?? "") ?? 0
        let raw = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian,
            sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        let hello = #"{"v":2,"type":"hello","body":{"worker":"x","capacity":1}}"# + "\n"
        _ = hello.withCString { send(raw, $0, strlen($0), 0) }
        Thread.sleep(forTimeInterval: 0.5)
        close(raw)
        // (Raw bytes never form a ZeroMQ message, CURVE or not: this checks the socket survives them.)
        #expect(try rig.server.receive() == nil, "nothing from the raw client reached the socket")
        #expect(rig.zap?.decisions.admitted == 1, "only the allowed key was ever admitted")
        #expect(
            try rig.delivers(.curveClient(allowed, serverKey: rig.serverKeys.publicKey)), "and the server still works")
    }

    @Test("a malformed ZAP request gets an answer, and the handler keeps admitting afterwards")
    func malformedRequest() throws {
        let folder = TemporaryFolder("driftfix-allow")
        let allowed = try CurveKeyPair.generate()
        try "\(allowed.publicKey)\n".write(toFile: folder.file("a.pub"), atomically: true, encoding: .utf8)
        let rig = try CurveRig(allowlist: AdmissionPolicy(allowlist: folder.path))
        // A DEALER speaks to the handler's REP socket directly: an empty delimiter, then a 2-frame request.
        let intruder = try MessageSocket(context: rig.context, kind: .dealer, maxMessageBytes: 65_536)
        try intruder.connect("inproc://zeromq.zap.01")
        try intruder.send([[], Array("1.0".utf8), Array("42".utf8)])
        var reply: [[UInt8]]?
        let deadline = Date().addingTimeInterval(2)
        while reply == nil && Date() < deadline {
            _ = try intruder.poll(milliseconds: 50)
            reply = try intruder.receive()
        }
        let frames = try #require(reply, "no answer to a malformed request")
        #expect(frames.count >= 4 && frames[2] == Array("42".utf8) && frames[3] == Array("500".utf8), "\(frames)")
        #expect(
            try rig.delivers(.curveClient(allowed, serverKey: rig.serverKeys.publicKey)), "the handler still answers")
    }

    @Test("the allowlist sees an edit that keeps the size and the time stamp; a writable allowlist is reported")
    func allowlistEdits() throws {
        let folder = TemporaryFolder("driftfix-allow")
        let (first, second) = (try CurveKeyPair.generate(), try CurveKeyPair.generate())
        let file = folder.file("keys.pub")
        try "\(first.publicKey)\n".write(toFile: file, atomically: false, encoding: .utf8)
        let allowlist = KeyAllowlist(path: file)
        #expect(allowlist.admits(first.publicKey) && !allowlist.admits(second.publicKey))
        let stamp = try #require(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date)
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        try handle.write(contentsOf: Data("\(second.publicKey)\n".utf8))  // same size, in place
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: file)
        #expect(allowlist.admits(second.publicKey) && !allowlist.admits(first.publicKey), "the swap was noticed")
        #expect(allowlist.unsafePermissions == nil)
        chmod(file, 0o666)
        #expect(allowlist.unsafePermissions?.contains("writable by others") == true)
    }

    @Test("the allowlist is re-read on change: a key added is admitted, a key removed is refused, without a restart")
    func reload() throws {
        let folder = TemporaryFolder("driftfix-allow")
        let first = try CurveKeyPair.generate()
        let second = try CurveKeyPair.generate()
        try CurveKeyFile.write(first, name: "first", folder: folder.filePath)
        try FileManager.default.removeItem(atPath: folder.file("first.key"))  // only public keys in an allowlist
        let rig = try CurveRig(allowlist: AdmissionPolicy(allowlist: folder.path))
        #expect(try rig.delivers(.curveClient(first, serverKey: rig.serverKeys.publicKey)))
        #expect(try !rig.delivers(.curveClient(second, serverKey: rig.serverKeys.publicKey)))
        try "\(second.publicKey)\n".write(toFile: folder.file("second.pub"), atomically: true, encoding: .utf8)
        #expect(try rig.delivers(.curveClient(second, serverKey: rig.serverKeys.publicKey)), "added without a restart")
        try FileManager.default.removeItem(atPath: folder.file("first.pub"))
        #expect(
            try !rig.delivers(.curveClient(first, serverKey: rig.serverKeys.publicKey)), "revoked without a restart")
    }

    @Test("a CURVE server cannot be made without a ZAP handler (libzmq would admit any client that knows its key)")
    func withoutHandler() throws {
        do {
            _ = try CurveRig(allowlist: nil)
            Issue.record("a CURVE server was made with no ZAP handler")
        } catch let error as TransportError {
            #expect(error.description.contains("no ZAP handler"), "\(error)")
        }
    }

    @Test("key files: modes, no silent overwrite, others-readable secrets refused, Z85 keys with # and = survive")
    func keyFiles() throws {
        let folder = TemporaryFolder("driftfix-keys")
        var sawSpecial = false
        for index in 0..<60 {
            let pair = try CurveKeyPair.generate()
            sawSpecial =
                sawSpecial || (pair.publicKey + pair.secretKey).contains { $0 == "#" || $0 == "=" || $0 == "\"" }
            try CurveKeyFile.write(pair, name: "k\(index)", folder: folder.filePath)
            #expect(try CurveKeyFile.loadSecret(folder.filePath("k\(index).key")) == pair)
            #expect(try CurveKeyFile.loadPublic(folder.filePath("k\(index).pub")) == pair.publicKey)
        }
        #expect(sawSpecial, "some key contained # or = (Z85 characters)")
        let mode = { (path: String) in
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(try mode(folder.file("k0.key")) == 0o600 && mode(folder.file("k0.pub")) == 0o644)
        #expect(throws: KeyFileError.self) {
            try CurveKeyFile.write(try CurveKeyPair.generate(), name: "k0", folder: folder.filePath)
        }
        chmod(folder.file("k1.key"), 0o640)
        do {
            _ = try CurveKeyFile.loadSecret(folder.filePath("k1.key"))
            Issue.record("a group-readable secret key was accepted")
        } catch {
            #expect(error.description.contains("accessible to others (mode 640)"), "\(error)")
        }
        try "public-key = \"short\"\nsecret-key = \"x\"\n".write(
            toFile: folder.file("bad.key"), atomically: true, encoding: .utf8)
        chmod(folder.file("bad.key"), 0o600)
        #expect(throws: KeyFileError.self) { try CurveKeyFile.loadSecret(folder.filePath("bad.key")) }
        // A secret file whose public key was swapped for another one.
        let (mine, other) = (try CurveKeyPair.generate(), try CurveKeyPair.generate())
        try CurveKeyFile.write(
            CurveKeyPair(publicKey: other.publicKey, secretKey: mine.secretKey), name: "mixed", folder: folder.filePath)
        do {
            _ = try CurveKeyFile.loadSecret(folder.filePath("mixed.key"))
            Issue.record("a key file with a foreign public key was accepted")
        } catch {
            #expect(error.reason.contains("does not belong"), "\(error)")
        }
        // A link to a secret key is refused: the file checked must be the file read.
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("link.key"), withDestinationPath: folder.file("k2.key"))
        #expect(throws: KeyFileError.self) { try CurveKeyFile.loadSecret(folder.filePath("link.key")) }
    }

    @Test(
        "which endpoints are local",
        arguments: [
            ("ipc:///tmp/x.sock", true), ("inproc://x", true), ("tcp://127.0.0.1:5555", true),
            ("tcp://127.3.2.1:1", true),
            ("tcp://localhost:5555", true), ("tcp://[::1]:5555", true), ("tcp://lo:5555", true),
            ("tcp://0.0.0.0:5555", false), ("tcp://*:5555", false), ("tcp://10.0.0.5:5555", false),
            ("tcp://eth0:5555", false),
            ("tcp://coordinator:5555", false), ("tcp://[::]:5555", false), ("tcp://127.0.0.1;10.0.0.1:5555", false),
            ("tcp://128.0.0.1:5555", false), ("tcp://127.0.0.1.evil.com:5555", false), ("udp://127.0.0.1:1", false),
        ])
    func endpoints(endpoint: String, local: Bool) {
        #expect(Endpoint.isLocal(endpoint) == local)
    }

    @Test(
        "the admission policy: a key gone from the allowlist is pending for its grace, then revoked; back in, admitted")
    func admissionPolicy() throws {
        let folder = TemporaryFolder("driftfix-allow")
        let key = try CurveKeyPair.generate()
        let own = try CurveKeyPair.generate()
        try "public-key = \"\(key.publicKey)\"\n".write(toFile: folder.file("w.pub"), atomically: true, encoding: .utf8)
        let policy = AdmissionPolicy(allowlist: folder.path, alsoAllow: [own.publicKey], grace: 1)
        #expect(policy.decision(for: key.publicKey, at: 0) == .admitted && policy.admitsHandshake(key.publicKey))
        #expect(
            policy.decision(for: own.publicKey, at: 0) == .admitted, "the coordinator's own key, for its local workers")
        try FileManager.default.removeItem(atPath: folder.file("w.pub"))
        #expect(policy.decision(for: key.publicKey, at: 0.5) == .admitted, "answers are cached for a second")
        #expect(policy.decision(for: key.publicKey, at: 1.6) == .pending, "missing, but not for long enough")
        #expect(!policy.admitsHandshake(key.publicKey), "a new handshake is refused at once")
        #expect(policy.decision(for: key.publicKey, at: 2.7) == .revoked)
        try "public-key = \"\(key.publicKey)\"\n".write(toFile: folder.file("w.pub"), atomically: true, encoding: .utf8)
        #expect(policy.decision(for: key.publicKey, at: 3.8) == .admitted)
    }
}
