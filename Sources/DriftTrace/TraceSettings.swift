/// A setting for traces that cannot be used: one line naming the setting and why.
public enum TraceSettingsError: Error, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let why): return why
        }
    }
}

/// Whether and where a process sends its spans, read from OpenTelemetry's standard environment variables (which win)
/// over the configuration file's `tracing:` section. Off unless asked for: `OTEL_TRACES_EXPORTER=otlp`, or an OTLP
/// endpoint set (and `OTEL_TRACES_EXPORTER` not `none`, `OTEL_SDK_DISABLED` not `true`).
public struct TraceSettings: Sendable, Equatable {
    /// Where the spans go (OTLP/HTTP with protobuf bodies, `…/v1/traces`).
    public var endpoint: CollectorEndpoint
    /// `service.name`.
    public var serviceName: String
    /// More resource attributes (`OTEL_RESOURCE_ATTRIBUTES`), after `service.name`, `host.name`, `process.pid`.
    public var resource: [(String, String)]
    /// Extra request headers (`OTEL_EXPORTER_OTLP_HEADERS`), an API key for instance.
    public var headers: [(String, String)]
    /// Spans held for export at most; more are dropped and counted (`OTEL_BSP_MAX_QUEUE_SIZE`).
    public var maxQueue = 2048
    /// Spans per request at most (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`).
    public var maxBatch = 512
    /// Seconds between exports (`OTEL_BSP_SCHEDULE_DELAY`, in milliseconds there).
    public var delay = 5.0
    /// Seconds one export may take, connecting included (`OTEL_EXPORTER_OTLP_TIMEOUT`, milliseconds).
    public var timeout = 10.0

    public static func == (a: TraceSettings, b: TraceSettings) -> Bool {
        a.endpoint == b.endpoint && a.serviceName == b.serviceName && a.resource.elementsEqual(b.resource, by: ==)
            && a.headers.elementsEqual(b.headers, by: ==) && a.maxQueue == b.maxQueue && a.maxBatch == b.maxBatch
            && a.delay == b.delay && a.timeout == b.timeout
    }

    /// The configuration file's `tracing:` keys, as plain values (the file's loader fills them).
    public struct Configured: Sendable, Equatable {
        public var enabled: Bool?
        public var endpoint: String?
        public var serviceName: String?
        public var resourceAttributes: [String: String] = [:]
        /// Request headers, like `OTEL_EXPORTER_OTLP_HEADERS` (an API key).
        public var headers: [String: String] = [:]
        public init() {}
    }

    /// The settings `environment` and `configured` ask for, or nil when tracing is off.
    /// - Throws: a setting that asks for tracing but cannot be followed (an https endpoint, the grpc protocol).
    public static func resolve(
        environment: [String: String], configured: Configured = Configured(), defaultService: String = "driftfix"
    ) throws(TraceSettingsError) -> TraceSettings? {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return nil }
        let tracesEndpoint = environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 }
        let baseEndpoint = environment["OTEL_EXPORTER_OTLP_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 }
        switch environment["OTEL_TRACES_EXPORTER"]?.lowercased() {
        case "none": return nil
        case "otlp": break
        case nil, "":
            guard tracesEndpoint != nil || baseEndpoint != nil || configured.enabled == true else { return nil }
        case let other?:
            throw .invalid("OTEL_TRACES_EXPORTER=\(other): driftfix exports traces over otlp only (or none)")
        }
        let chosen = environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] ?? environment["OTEL_EXPORTER_OTLP_PROTOCOL"]
        if let chosen, !chosen.isEmpty, chosen != "http/protobuf" {
            throw .invalid("OTLP protocol \(chosen): driftfix sends http/protobuf only")
        }
        // The signal-specific endpoint is used as given; the base one gets the traces path, as the standard says.
        let url =
            tracesEndpoint
            ?? (baseEndpoint ?? configured.endpoint).map {
                $0.hasSuffix("/v1/traces") ? $0 : trimmed($0) + "/v1/traces"
            }
            ?? "http://localhost:4318/v1/traces"
        // Headers: the configuration's, then the environment's (which win, header by header).
        var headers = try configured.headers.sorted { $0.key < $1.key }.map { name, value throws(TraceSettingsError) in
            try checkedHeader(name, value, source: "tracing.headers.\(name)")
        }
        let headerVariable =
            environment["OTEL_EXPORTER_OTLP_TRACES_HEADERS"] != nil
            ? "OTEL_EXPORTER_OTLP_TRACES_HEADERS" : "OTEL_EXPORTER_OTLP_HEADERS"
        for (name, value) in try pairs(environment[headerVariable], variable: headerVariable) {
            let header = try checkedHeader(name, value, source: headerVariable)
            headers.removeAll { $0.0.lowercased() == header.0.lowercased() }
            headers.append(header)
        }
        var settings = TraceSettings(
            endpoint: try CollectorEndpoint(url),
            serviceName: environment["OTEL_SERVICE_NAME"] ?? configured.serviceName ?? defaultService,
            resource: configured.resourceAttributes.sorted { $0.key < $1.key }, headers: headers)
        for (key, value) in try pairs(environment["OTEL_RESOURCE_ATTRIBUTES"], variable: "OTEL_RESOURCE_ATTRIBUTES") {
            if key == "service.name" && environment["OTEL_SERVICE_NAME"] == nil { settings.serviceName = value }
            settings.resource.removeAll { $0.0 == key }
            if key != "service.name" { settings.resource.append((key, value)) }
        }
        try settings.limits(environment)
        return settings
    }

    private mutating func limits(_ environment: [String: String]) throws(TraceSettingsError) {
        func number(_ key: String) throws(TraceSettingsError) -> Int? {
            guard let text = environment[key], !text.isEmpty else { return nil }
            guard let value = Int(text), value >= 0 else { throw .invalid("\(key)=\(text): not a whole number") }
            return value
        }
        maxQueue = max(1, try number("OTEL_BSP_MAX_QUEUE_SIZE") ?? maxQueue)
        maxBatch = max(1, min(maxQueue, try number("OTEL_BSP_MAX_EXPORT_BATCH_SIZE") ?? maxBatch))
        delay = Double(try number("OTEL_BSP_SCHEDULE_DELAY") ?? Int(delay * 1000)) / 1000
        var timeoutMS = try number("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
        if timeoutMS == nil { timeoutMS = try number("OTEL_EXPORTER_OTLP_TIMEOUT") }
        timeout = max(0.001, Double(timeoutMS ?? Int(timeout * 1000)) / 1000)
    }

    private static func trimmed(_ url: String) -> String {
        var url = Substring(url)
        while url.hasSuffix("/") { url = url.dropLast() }
        return String(url)
    }

    /// `k=v,k2=v2` with percent-encoded values (the W3C Baggage form the standard variables use). An entry without
    /// its `=` or its key (`novalue`, `=x`) is refused, naming `variable`, as a bad timeout is: a header or
    /// attribute left out without a word is a collector that rejects every request and nobody knows why.
    static func pairs(_ text: String?, variable: String) throws(TraceSettingsError) -> [(String, String)] {
        guard let text else { return [] }
        var result: [(String, String)] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            // An empty entry (a trailing comma) says nothing.
            if item.trimmingSpaces.isEmpty { continue }
            guard let equals = item.firstIndex(of: "=") else {
                throw .invalid("\(variable): '\(shown(item))' is not key=value")
            }
            let key = item[..<equals].trimmingSpaces
            guard !key.isEmpty else { throw .invalid("\(variable): '\(shown(item))' has no key before its '='") }
            result.append((key, item[item.index(after: equals)...].trimmingSpaces.removingPercentEncodingOrSelf))
        }
        return result
    }

    /// A header as it may go into a request: a token for a name (RFC 9110) and a value without control characters
    /// (CR or LF, raw or percent-encoded, would write headers of the setting's own into the request); else refused,
    /// naming where it came from.
    static func checkedHeader(_ name: String, _ value: String, source: String) throws(TraceSettingsError) -> (
        String, String
    ) {
        let token = Set("!#$%&'*+-.^_`|~".utf8)
        guard !name.isEmpty,
            name.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                    || token.contains($0)
            })
        else {
            throw .invalid(
                "\(source): header name '\(shown(Substring(name)))' is not a token (letters, digits, !#$%&'*+-.^_`|~)")
        }
        if let control = value.unicodeScalars.first(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) {
            throw .invalid(
                "\(source): header \(name): its value holds a control character (\(shown(Substring(String(control))))), "
                    + "which could write headers of its own into the request")
        }
        return (name, value)
    }

    /// Text of a setting for an error line: control characters made visible.
    private static func shown(_ text: Substring) -> String {
        text.unicodeScalars.map {
            $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0)
        }
        .joined()
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

extension String {
    fileprivate var removingPercentEncodingOrSelf: String {
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
