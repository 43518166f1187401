/// What an endpoint string says: its transport, and who can reach it. The one definition of "on the network" every
/// rule about keys, roots and warnings uses.
public enum Endpoint {
    /// libzmq's transports driftfix speaks.
    public enum Scheme: String, Sendable {
        case tcp, ipc, inproc
    }

    /// The endpoint's transport; nil for anything else (a typo, a transport driftfix does not use).
    public static func scheme(of endpoint: String) -> Scheme? {
        guard let separator = endpoint.range(of: "://") else { return nil }
        return Scheme(rawValue: String(endpoint[..<separator.lowerBound]))
    }

    /// Whether only this machine can reach `endpoint`: ipc://, inproc://, or TCP on a loopback address
    /// (127.0.0.0/8, ::1, localhost, the `lo` interface). Anything else - a wildcard, another address, a host
    /// name, an interface - is reachable from the network and must use CURVE.
    public static func isLocal(_ endpoint: String) -> Bool {
        switch scheme(of: endpoint) {
        case .ipc, .inproc: return true
        case nil: return false
        case .tcp: break
        }
        var host = String(endpoint.dropFirst("tcp://".count))
        // tcp://SOURCE;HOST:PORT names a source address first: judge the destination.
        if let semicolon = host.lastIndex(of: ";") { host = String(host[host.index(after: semicolon)...]) }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        if host == "localhost" || host == "lo" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether another machine may reach `endpoint` (everything `isLocal` is not, an unknown transport included).
    public static func isNetwork(_ endpoint: String) -> Bool { !isLocal(endpoint) }
}
