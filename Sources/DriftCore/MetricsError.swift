/// Why live metrics could not be served or written.
public enum MetricsError: Error, Equatable, CustomStringConvertible {
    /// The address could not be listened on (in use, not this host's, ...).
    case cannotListen(address: String, reason: String)
    /// A non-loopback address that was not acknowledged as public.
    case onNetwork(address: String)
    /// The end-of-run metrics file could not be written.
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): return "cannot listen on \(address) for metrics: \(reason)"
        case .onNetwork(let address):
            return
                "metrics on \(address) would be reachable from the network without TLS or authentication (run progress, drift, device names); listen on loopback and reach it through a tunnel or a TLS proxy, or acknowledge it as public"
        case .cannotWrite(let path, let reason): return "\(path): cannot write the metrics file (\(reason))"
        }
    }
}
