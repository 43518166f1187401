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

    @Test(
        "a header that would write request text of its own is refused, naming where it came from",
        arguments: [
            "x-a=%0d%0aInjected: yes", "x-a=one\r\nInjected: yes", "x-a=one\nInjected: yes", "x\na=1", "x a=1",
        ])
    func injectedHeader(variable: String) {
        do {
            _ = try resolve(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_HEADERS": variable])
            Issue.record("\(variable.debugDescription) was taken")
        } catch {
            #expect("\(error)".hasPrefix("OTEL_EXPORTER_OTLP_HEADERS:"), "\(error)")
            #expect(!"\(error)".contains("\n") && !"\(error)".contains("\r"), "one line: \(error)")
        }
    }

    @Test(
        "an entry that is no key=value is refused as a bad timeout is, not dropped without a word",
        arguments: ["=", "novalue", "a=1,novalue", "=x", "api-key=1,,b=2"])
    func malformedEntries(variable: String) throws {
        if variable == "api-key=1,,b=2" {
            // An empty entry (a doubled comma) says nothing and is passed over.
            let settings = try resolve(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_HEADERS": variable])
            #expect(settings?.headers.map(\.0) == ["api-key", "b"])
            return
        }
        #expect(throws: TraceSettingsError.self) {
            try resolve(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_HEADERS": variable])
        }
        #expect(throws: TraceSettingsError.self) {
            try resolve(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_RESOURCE_ATTRIBUTES": variable])
        }
    }

    @Test("headers from the configuration, the variable's winning by name; control characters refused there too")
    func configuredHeaders() throws {
        var configured = TraceSettings.Configured()
        configured.enabled = true
        configured.headers = ["api-key": "from-config", "x-team": "qa"]
        let settings = try #require(try resolve(["OTEL_EXPORTER_OTLP_HEADERS": "API-Key=from-env"], configured))
        #expect(settings.headers.map { "\($0.0)=\($0.1)" } == ["x-team=qa", "API-Key=from-env"])
        configured.headers = ["x-a": "one\r\nInjected: yes"]
        #expect(throws: TraceSettingsError.self) { try resolve([:], configured) }
    }

    @Test(
        "a malformed endpoint is refused as given, never rewritten",
        arguments: [
            "http://[::1", "http://[::1]x", "http://a b:4318", "http://user@host:1", "http://h:1/v1/traces\r\nX: y",
        ])
    func malformedEndpoint(url: String) {
        do {
            _ = try resolve(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": url])
            Issue.record("\(url.debugDescription) was taken")
        } catch {
            #expect(!"\(error)".contains("[[") && !"\(error)".contains("\r\n"), "\(error)")
        }
    }
}
