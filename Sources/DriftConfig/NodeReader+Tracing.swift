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
    /// Request headers, like `OTEL_EXPORTER_OTLP_HEADERS` (`api-key: ...`): a control character in a name or value
    /// is refused here, with the line, as it is in the variable.
    public var headers: [String: String] = [:]
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
            case "headers":
                for (name, text) in try mapping(value, key: "\(key).headers") {
                    let full = "\(key).headers.\(name.name)"
                    let header = try string(text, key: full)
                    // CR or LF would write headers of the file's own into every request.
                    if let control = (name.name + header).unicodeScalars.first(where: {
                        $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F
                    }) {
                        throw error(
                            text, key: full,
                            "holds a control character (U+\(String(control.value, radix: 16, uppercase: true))), which could write headers of its own into the request"
                        )
                    }
                    settings.headers[name.name] = header
                }
            default:
                throw unknown(
                    k, in: key, allowed: ["enabled", "endpoint", "service-name", "resource-attributes", "headers"])
            }
        }
        return settings
    }
}
