import Glibc

/// A TCP port on this host that nothing is bound to now, below Linux's ephemeral range (32768 and up), where the
/// kernel never hands ports to outgoing connections: a port drawn at random from the ephemeral range can be taken at
/// any moment by another test's connection.
public func freeTCPPort() -> Int {
    while true {
        let port = Int.random(in: 20_000..<32_768)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return port }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: INADDR_ANY)  // 0.0.0.0: taken if anything holds the port on any address
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound == 0 { return port }
    }
}
