import ArgumentParser
import DriftKit

/// `--metrics-address`: a port alone listens on loopback; anything else must name its host. An address off loopback
/// is refused unless `--metrics-on-network` acknowledges it (the library's rule: `MetricsAddress.refusal`).
enum MetricsOption {
    static let onNetworkHelp = ArgumentHelp(
        "Allow --metrics-address off loopback: the metrics (progress, drift, device names) are then served to the network without TLS or authentication."
    )

    static func parse(_ text: String, onNetwork: Bool) throws -> MetricsAddress {
        guard var address = MetricsAddress(parsing: text) else {
            throw ValidationError(
                "--metrics-address \(text): give PORT (loopback) or HOST:PORT, e.g. 9464 or 127.0.0.1:9464")
        }
        address.onNetwork = onNetwork
        if let refusal = address.refusal {
            throw ValidationError("--metrics-address \(text): \(refusal) (--metrics-on-network)")
        }
        return address
    }
}
