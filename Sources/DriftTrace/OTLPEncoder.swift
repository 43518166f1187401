/// Encodes spans as OTLP's `ExportTraceServiceRequest` protobuf (opentelemetry-proto, trace/v1): one resource, one
/// instrumentation scope. Hand-written, as the message is small and fixed; a receiver built on the official
/// `opentelemetry-proto` package decodes it in the tests.
public enum OTLPEncoder {
    /// The request body for `spans` from the process `resource` describes.
    public static func request(
        _ spans: [FinishedSpan], resource: [(String, FinishedSpan.Value)], scope: String, version: String
    ) -> [UInt8] {
        var scopeSpans = ProtoWriter()
        var scopeMessage = ProtoWriter()
        scopeMessage.string(1, scope)
        scopeMessage.string(2, version)
        scopeSpans.message(1, scopeMessage)
        for span in spans { scopeSpans.message(2, encode(span)) }
        var resourceMessage = ProtoWriter()
        for (key, value) in resource { resourceMessage.message(1, keyValue(key, value)) }
        var resourceSpans = ProtoWriter()
        resourceSpans.message(1, resourceMessage)
        resourceSpans.message(2, scopeSpans)
        var request = ProtoWriter()
        request.message(1, resourceSpans)
        return request.bytes
    }

    static func encode(_ span: FinishedSpan) -> ProtoWriter {
        var out = ProtoWriter()
        out.bytes(1, traceID(span.context))
        out.bytes(2, bigEndian(span.context.spanID))
        if let parent = span.parentSpanID { out.bytes(4, bigEndian(parent)) }
        out.string(5, span.name)
        out.varint(6, UInt64(span.kind.rawValue))
        out.fixed64(7, span.start)
        out.fixed64(8, span.end)
        for (key, value) in span.attributes { out.message(9, keyValue(key, value)) }
        for event in span.events {
            var message = ProtoWriter()
            message.fixed64(1, event.nanoseconds)
            message.string(2, event.name)
            for (key, value) in event.attributes { message.message(3, keyValue(key, value)) }
            out.message(11, message)
        }
        for link in span.links {
            var message = ProtoWriter()
            message.bytes(1, traceID(link.parent))
            message.bytes(2, bigEndian(link.parent.spanID))
            for (key, value) in link.attributes { message.message(4, keyValue(key, value)) }
            out.message(13, message)
        }
        var status = ProtoWriter()
        switch span.status {
        case .unset: break
        case .ok: status.varint(3, 1)
        case .error(let message):
            if let message { status.string(2, message) }
            status.varint(3, 2)
        }
        out.message(15, status)
        out.fixed32(16, span.context.sampled ? 1 : 0)  // the W3C trace flags
        return out
    }

    static func keyValue(_ key: String, _ value: FinishedSpan.Value) -> ProtoWriter {
        var out = ProtoWriter()
        out.string(1, key)
        out.message(2, anyValue(value))
        return out
    }

    static func anyValue(_ value: FinishedSpan.Value) -> ProtoWriter {
        var out = ProtoWriter()
        func array(_ values: [FinishedSpan.Value]) {
            var list = ProtoWriter()
            for value in values { list.message(1, anyValue(value)) }
            out.message(5, list)
        }
        switch value {
        case .string(let text): out.string(1, text, always: true)
        case .bool(let flag): out.varint(2, flag ? 1 : 0, always: true)
        case .int(let number): out.varint(3, UInt64(bitPattern: number), always: true)
        case .double(let number): out.fixed64(4, number.bitPattern, always: true)
        case .strings(let values): array(values.map { .string($0) })
        case .ints(let values): array(values.map { .int($0) })
        case .doubles(let values): array(values.map { .double($0) })
        case .bools(let values): array(values.map { .bool($0) })
        }
        return out
    }

    static func traceID(_ parent: TraceParent) -> [UInt8] { bigEndian(parent.traceHigh) + bigEndian(parent.traceLow) }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
}

/// Protobuf's wire format, the parts OTLP's trace messages use: varints, fixed 32 and 64 bits, length-delimited
/// fields. Default values are left out, as protobuf does (a `oneof` member is written whatever its value).
struct ProtoWriter {
    private(set) var bytes: [UInt8] = []

    private mutating func raw(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func tag(_ field: Int, _ type: UInt64) { raw(UInt64(field) << 3 | type) }

    mutating func varint(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 0)
        raw(value)
    }

    mutating func fixed64(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 1)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func fixed32(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, 5)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func bytes(_ field: Int, _ value: [UInt8]) {
        tag(field, 2)
        raw(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ field: Int, _ value: String, always: Bool = false) {
        guard !value.isEmpty || always else { return }
        bytes(field, Array(value.utf8))
    }

    mutating func message(_ field: Int, _ value: ProtoWriter) { bytes(field, value.bytes) }
}
