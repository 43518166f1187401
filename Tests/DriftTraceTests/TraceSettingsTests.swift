import Testing

@testable import DriftTrace

@Suite("trace settings from the standard variables and the configuration")
struct TraceSettingsTests {
    private func resolve(
        _ environment: [String: String], _ configured: TraceSettings.Configured = .init()
    ) throws -> TraceSettings? {
        try TraceSettings.resolve(environment: environment, configured: configured)
    }

    @Test("off unless asked for; OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED win over an endpoint")
    func offByDefault() throws {
        #expect(try resolve([:]) == nil)
        #expect(try resolve(["OTEL_SERVICE_NAME": "x", "OTEL_RESOURCE_ATTRIBUTES": "a=b"]) == nil)
        #expect(try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"]) == nil)
        #expect(try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"]) == nil)
        var enabled = TraceSettings.Configured()
        enabled.enabled = true
        #expect(try resolve(["OTEL_TRACES_EXPORTER": "none"], enabled) == nil)
    }

    @Test("endpoints: the standard default, the base address with /v1/traces added, the traces address as given")
    func endpoints() throws {
        #expect(
            try resolve(["OTEL_TRACES_EXPORTER": "otlp"])?.endpoint.description == "http://localhost:4318/v1/traces")
        #expect(
            try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"])?.endpoint.description
                == "http://collector:4318/v1/traces")
        #expect(
            try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://10.0.0.1"])?.endpoint.description
                == "http://10.0.0.1:80/v1/traces")
        #expect(
            try resolve([
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://[::1]:9/t",
            ])?.endpoint == CollectorEndpoint("http://[::1]:9/t"))
        var configured = TraceSettings.Configured()
        configured.enabled = true
        configured.endpoint = "http://agent:4318"
        #expect(try resolve([:], configured)?.endpoint.description == "http://agent:4318/v1/traces")
        #expect(
            try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:1"], configured)?.endpoint.description
                == "http://env:1/v1/traces", "the variable wins")
    }

    @Test("what cannot be followed is one clear line")
    func refused() {
        #expect(throws: TraceSettingsError.self) { try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318"]) }
        #expect(throws: TraceSettingsError.self) {
            try resolve(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
        }
        #expect(throws: TraceSettingsError.self) { try resolve(["OTEL_TRACES_EXPORTER": "zipkin"]) }
        #expect(throws: TraceSettingsError.self) {
            try resolve(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_BSP_MAX_QUEUE_SIZE": "lots"])
        }
        #expect(throws: TraceSettingsError.self) { try resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://:4318"]) }
    }

    @Test("service name, resource attributes (percent-decoded), headers and the batch limits")
    func names() throws {
        var configured = TraceSettings.Configured()
        configured.enabled = true
        configured.serviceName = "from-config"
        configured.resourceAttributes = ["deployment.environment": "config", "team": "qa"]
        let settings = try #require(
            try resolve(
                [
                    "OTEL_RESOURCE_ATTRIBUTES":
                        "deployment.environment=night%20shift, service.name=from-resource,k=a%2Cb",
                    "OTEL_EXPORTER_OTLP_HEADERS": "api-key=secret", "OTEL_BSP_MAX_QUEUE_SIZE": "100",
                    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "500", "OTEL_BSP_SCHEDULE_DELAY": "250",
                    "OTEL_EXPORTER_OTLP_TIMEOUT": "1500",
                ], configured))
        #expect(settings.serviceName == "from-resource")
        let resource = Dictionary(settings.resource, uniquingKeysWith: { $1 })
        #expect(resource == ["deployment.environment": "night shift", "team": "qa", "k": "a,b"])
        #expect(settings.headers.map { "\($0.0)=\($0.1)" } == ["api-key=secret"])
        #expect(settings.maxQueue == 100 && settings.maxBatch == 100, "a batch is never larger than the queue")
        #expect(settings.delay == 0.25 && settings.timeout == 1.5)
        let named = try resolve(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_SERVICE_NAME": "svc"], configured)
        #expect(named?.serviceName == "svc")
        #expect(try resolve(["OTEL_TRACES_EXPORTER": "otlp"])?.serviceName == "driftfix")
    }
}
