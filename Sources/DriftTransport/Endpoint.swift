/// What an endpoint string says about who can reach it.
public enum Endpoint {
    /// Whether only this machine can reach `endpoint`: ipc://, inproc://, or TCP on a loopback address
    /// (127.0.0.0/8, ::1, localhost, the `lo` interface). Anything else - a wildcard, another address, a host
    /// name, an interface - is reachable from the network and must use CURVE.
    public static func isLocal(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://") { return true }
        guard endpoint.hasPrefix("tcp://") else { return false }
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
}
