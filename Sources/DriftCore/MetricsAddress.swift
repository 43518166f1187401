/// Where metrics are served: `PORT` (loopback), or `HOST:PORT` / `[IPv6]:PORT` given explicitly.
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// The caller's acknowledgement that a non-loopback address serves its metrics to the network.
    public var onNetwork: Bool

    public init(host: String, port: Int, onNetwork: Bool = false) {
        self.host = host
        self.port = port
        self.onNetwork = onNetwork
    }

    /// Whether the host is a loopback address by its text (127.0.0.0/8, ::1, localhost): a name that resolves
    /// elsewhere, or a wildcard, is the network.
    public var isLoopback: Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let plain = host.hasPrefix("::ffff:") ? String(host.dropFirst(7)) : host
        let parts = plain.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Why this address may not be served, or nil.
    public var refusal: MetricsError? {
        isLoopback || onNetwork ? nil : .onNetwork(address: description)
    }

    /// Nil when `text` is not a port, `HOST:PORT` or `[IPv6]:PORT` with a port in 0...65535.
    public init?(parsing text: String) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
