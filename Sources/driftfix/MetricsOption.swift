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

/// A command that serves live metrics: its `--metrics-address` help says when they are served.
protocol ServesMetrics {
    static var metricsAddressHelp: String { get }
}

/// `--metrics-address` and `--metrics-on-network`, shared by `repair` and `worker`. Untitled where they use it, so
/// their help lists the two among their other options, as before.
struct MetricsServingOptions<Server: ServesMetrics>: ParsableArguments {
    @Option(
        name: .customLong("metrics-address"),
        help: ArgumentHelp(Server.metricsAddressHelp, valueName: "address"))
    var metricsAddress: String?

    @Flag(name: .customLong("metrics-on-network"), help: MetricsOption.onNetworkHelp)
    var metricsOnNetwork = false

    /// The address to serve on (nil: none); a refused one is a usage error. The commands call it from their own
    /// `validate()` rather than the group validating itself, so their errors keep their order.
    func address() throws -> MetricsAddress? {
        try metricsAddress.map { try MetricsOption.parse($0, onNetwork: metricsOnNetwork) }
    }
}
