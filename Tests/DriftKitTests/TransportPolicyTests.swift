import DriftFixtures
import DriftKit
import DriftTransport
import DriftWorker
import Foundation
import Logging
import Testing

/// The transport rule holds for any program that embeds the library, not only for the command line: a network
/// endpoint is bound or reached only with CURVE or plaintext acknowledged, and a worker whose coordinator is on the
/// network runs only with roots of its own.
@Suite struct TransportPolicyTests {
    @Test("one definition of the network: loopback, ipc and inproc are local; wildcards, addresses, names are not")
    func network() {
        for local in [
            "ipc:///tmp/x.sock", "inproc://jobs", "tcp://127.0.0.1:5555", "tcp://127.8.9.10:1", "tcp://localhost:5555",
            "tcp://[::1]:5555", "tcp://lo:5555", "tcp://10.0.0.2;127.0.0.1:5555",
        ] {
            #expect(!Endpoint.isNetwork(local), "\(local)")
        }
        for network in [
            "tcp://0.0.0.0:5555", "tcp://*:5555", "tcp://192.168.1.4:5555", "tcp://coordinator:5555",
            "tcp://[::]:5555", "tcp://eth0:5555", "tcp://127.0.0.1.evil:5555", "tcp://127.0.0.256:5555",
            "tcp://127.0.0.1;10.0.0.2:5555", "udp://127.0.0.1:5555", "127.0.0.1:5555",
        ] {
            #expect(Endpoint.isNetwork(network), "\(network)")
        }
        #expect(Endpoint.scheme(of: "tcp://0.0.0.0:1") == .tcp && Endpoint.scheme(of: "ipc:///x") == .ipc)
        #expect(Endpoint.scheme(of: "tcp:/x") == nil && Endpoint.scheme(of: "pgm://x") == nil)
    }

    @Test("a network endpoint without CURVE is refused unless plaintext is acknowledged; keys are read and checked")
    func policies() throws {
        #expect(throws: TransportPolicyError.networkWithoutCurve("tcp://0.0.0.0:5555", .bind)) {
            try TransportPolicy(binding: "tcp://0.0.0.0:5555")
        }
        #expect(throws: TransportPolicyError.networkWithoutCurve("tcp://coordinator:5555", .connect)) {
            try TransportPolicy(connecting: "tcp://coordinator:5555")
        }
        #expect(throws: TransportPolicyError.unsupportedEndpoint("udp://127.0.0.1:1")) {
            try TransportPolicy(binding: "udp://127.0.0.1:1", acknowledgingPlaintext: true)
        }
        #expect(try TransportPolicy(binding: "tcp://127.0.0.1:5555").protection == .localOnly)
        #expect(
            try TransportPolicy(binding: "ipc:///tmp/x.sock", acknowledgingPlaintext: true).protection == .localOnly)
        let plain = try TransportPolicy(binding: "tcp://0.0.0.0:5555", acknowledgingPlaintext: true)
        #expect(plain.protection == .insecurePlaintext && plain.socketSecurity == .none)

        let keys = TemporaryFolder("driftfix-keys")
        let coordinator = try CurveKeyPair.generate()
        try CurveKeyFile.write(coordinator, name: "coordinator", folder: keys.filePath)
        let worker = try CurveKeyPair.generate()
        try CurveKeyFile.write(worker, name: "worker", folder: keys.filePath)
        let server = try TransportPolicy(
            binding: "tcp://0.0.0.0:5555", curve: (keys.file("coordinator.key"), keys.path))
        #expect(server.socketSecurity == .curveServer(coordinator))
        let client = try TransportPolicy(
            connecting: "tcp://coordinator:5555", curve: (keys.file("worker.key"), keys.file("coordinator.pub")))
        #expect(client.socketSecurity == .curveClient(worker, serverKey: coordinator.publicKey))
        // A key file that cannot be used is named.
        #expect(throws: TransportPolicyError.self) {
            try TransportPolicy(binding: "tcp://0.0.0.0:5555", curve: (keys.file("missing.key"), keys.path))
        }
        do {
            _ = try TransportPolicy(
                connecting: "tcp://coordinator:5555", curve: (keys.file("worker.key"), keys.file("nothing.pub")))
            Issue.record("a missing server key was accepted")
        } catch {
            #expect("\(error)".contains("nothing.pub"))
        }
    }

    @Test("an embedded worker whose coordinator is on the network refuses to run without its own roots")
    func networkWorkerNeedsItsOwnRoots() async throws {
        let logger = Logger(label: "test")
        // Acknowledged plaintext, so only the roots are missing; nothing listens there and nothing is reached.
        let transport = try TransportPolicy(connecting: "tcp://192.0.2.1:5555", acknowledgingPlaintext: true)
        var node = WorkerNode.Settings(transport: transport, capacity: 1, identity: "embedded")
        node.inputRoots = ["/srv/media"]
        var settings = WorkerRun.Settings(node: node)
        settings.shutdownSignals = []
        await #expect(throws: WorkerSetupError.networkWithoutOwnRoots("tcp://192.0.2.1:5555")) {
            _ = try await WorkerRun(settings: settings, logger: logger).run()
        }
        node.inputRoots = []
        node.outputRoot = "/srv/out"
        settings = WorkerRun.Settings(node: node)
        settings.shutdownSignals = []
        await #expect(throws: WorkerSetupError.networkWithoutOwnRoots("tcp://192.0.2.1:5555")) {
            _ = try await WorkerRun(settings: settings, logger: logger).run()
        }
    }
}
