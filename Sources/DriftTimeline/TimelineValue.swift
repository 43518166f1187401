import DriftCore

/// Metadata a timeline carries beside its times: the shape JSON has, with keys kept in the order given, so OTIO's
/// metadata dictionaries and FCPXML's `md` entries come out as written.
public indirect enum TimelineValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case integer(Int64)
    case bool(Bool)
    case list([TimelineValue])
    case object([(String, TimelineValue)])
    case null

    public static func == (lhs: TimelineValue, rhs: TimelineValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        case (.list(let a), .list(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// As JSON text (numbers in their shortest exact form; a non-finite number as null, which JSON has no other word
    /// for).
    public var json: String {
        switch self {
        case .string(let text): return Self.quoted(text)
        case .number(let value): return value.isFinite ? "\(value)" : "null"
        case .integer(let value): return "\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .list(let values): return "[" + values.map(\.json).joined(separator: ", ") + "]"
        case .object(let entries):
            return "{" + entries.map { Self.quoted($0.0) + ": " + $0.1.json }.joined(separator: ", ") + "}"
        }
    }

    /// As JSON text over lines, nested entries indented by `indent` spaces a level (lists of plain values kept on one
    /// line).
    public func pretty(indent: Int = 4, level: Int = 0) -> String {
        let inner = String(repeating: " ", count: indent * (level + 1))
        let outer = String(repeating: " ", count: indent * level)
        switch self {
        case .list(let values) where values.contains(where: \.isNested):
            return "[\n" + values.map { inner + $0.pretty(indent: indent, level: level + 1) }.joined(separator: ",\n")
                + "\n" + outer + "]"
        case .object(let entries) where !entries.isEmpty:
            return "{\n"
                + entries.map { inner + Self.quoted($0.0) + ": " + $0.1.pretty(indent: indent, level: level + 1) }
                .joined(separator: ",\n") + "\n" + outer + "}"
        default: return json
        }
    }

    private var isNested: Bool {
        switch self {
        case .list, .object: return true
        default: return false
        }
    }

    /// As one line of text (FCPXML `md` values, EDL comments).
    public var text: String {
        switch self {
        case .string(let text): return text
        case .number(let value): return "\(value)"
        case .integer(let value): return "\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .null: return ""
        case .list, .object: return json
        }
    }

    static func quoted(_ text: String) -> String { TextEscaping.jsonString(text) }
}
