import DriftTransport
import Foundation
import Testing

@Suite("A reconnecting worker keeps its identity")
struct RouterHandoverTests {
    @Test(
        "a second connection with a worker's identity takes it over while the first is still open: it is heard and answered"
    )
    func handover() throws {
        let context = try MessageContext()
        let router = try MessageSocket(context: context, kind: .router, maxMessageBytes: 65_536)
        let endpoint = "ipc:///tmp/driftfix-handover-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        try router.bind(endpoint)
        defer { unlink(String(endpoint.dropFirst("ipc://".count))) }

        func exchange(_ dealer: MessageSocket, _ text: String) throws -> Bool {
            try dealer.send([Array(text.utf8)])
            let deadline = Date().addingTimeInterval(3)
            while Date() < deadline {
                _ = try router.poll(milliseconds: 50)
                guard let frames = try router.receive(), frames.count == 2, frames[1] == Array(text.utf8) else {
                    continue
                }
                // The answer goes to the identity, so it must reach the connection that spoke last.
                _ = try router.send([frames[0], Array("re: \(text)".utf8)])
                while Date() < deadline {
                    _ = try dealer.poll(milliseconds: 50)
                    if let reply = try dealer.receive() { return reply == [Array("re: \(text)".utf8)] }
                }
            }
            return false
        }
        let first = try MessageSocket(context: context, kind: .dealer, maxMessageBytes: 65_536)
        try first.setIdentity(Array("worker-1".utf8))
        try first.connect(endpoint)
        #expect(try exchange(first, "hello"))
        // A fresh socket with the same identity, the old one not closed (as after a silence, before the router
        // notices the old connection is gone).
        let second = try MessageSocket(context: context, kind: .dealer, maxMessageBytes: 65_536)
        try second.setIdentity(Array("worker-1".utf8))
        try second.connect(endpoint)
        #expect(try exchange(second, "hello again"), "the newcomer is heard and answered")
        withExtendedLifetime(first) {}
    }
}
