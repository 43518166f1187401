import ArgumentParser
import DriftMetrics

/// `--metrics-address`: a port alone listens on loopback; anything else must name its host.
enum MetricsOption {
    static func parse(_ text: String) throws -> MetricsAddress {
        guard let address = MetricsAddress(parsing: text) else {
            throw ValidationError(
                "--metrics-address \(text): give PORT (loopback) or HOST:PORT, e.g. 9464 or 0.0.0.0:9464")
        }
        return address
    }
}
