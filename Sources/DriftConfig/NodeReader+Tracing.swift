import Yams

/// The `tracing:` section: OpenTelemetry traces over OTLP/HTTP. The standard `OTEL_*` environment variables win over
/// these keys (docs/operations.md).
public struct TracingSettings: Sendable, Equatable {
    /// Export traces (to `endpoint`, or `http://localhost:4318` when none is named).
    public var enabled = false
    /// The collector's OTLP/HTTP base address (`/v1/traces` is added), like `OTEL_EXPORTER_OTLP_ENDPOINT`.
    public var endpoint: String?
    /// `service.name`, like `OTEL_SERVICE_NAME`.
    public var serviceName: String?
    /// More resource attributes, like `OTEL_RESOURCE_ATTRIBUTES` (`deployment.environment: night`).
    public var resourceAttributes: [String: String] = [:]
    public init() {}
}

extension NodeReader {
    func tracingSection(_ node: Node, key: String) throws(ConfigurationError) -> TracingSettings {
        var settings = TracingSettings()
        for (k, value) in try mapping(node, key: key) {
            switch k.name {
            case "enabled": settings.enabled = try bool(value, key: "\(key).enabled")
            case "endpoint":
                let text = try string(value, key: "\(key).endpoint")
                guard text.isEmpty || text.hasPrefix("http://") else {
                    throw error(value, key: "\(key).endpoint", "must be an http:// address (a collector agent)")
                }
                settings.endpoint = text.isEmpty ? nil : text
            case "service-name":
                let text = try string(value, key: "\(key).service-name")
                settings.serviceName = text.isEmpty ? nil : text
            case "resource-attributes":
                for (name, text) in try mapping(value, key: "\(key).resource-attributes") {
                    settings.resourceAttributes[name.name] = try string(
                        text, key: "\(key).resource-attributes.\(name.name)")
                }
            default:
                throw unknown(k, in: key, allowed: ["enabled", "endpoint", "service-name", "resource-attributes"])
            }
        }
        return settings
    }
}
