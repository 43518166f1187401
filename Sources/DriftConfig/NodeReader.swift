import DriftCore
import Yams

import struct SystemPackage.FilePath

/// A key of a YAML mapping with its line.
struct Key {
    let name: String
    let line: Int?
}

/// Typed, located reads of a YAML node tree: every error carries the line and the dotted key.
struct NodeReader {
    let path: FilePath

    func error(_ node: Node?, key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(path: path, line: node?.mark?.line, key: key.isEmpty ? nil : key, message: message)
    }

    func unknown(_ key: Key, in parent: String, allowed: [String]) -> ConfigurationError {
        let full = parent.isEmpty ? key.name : "\(parent).\(key.name)"
        return ConfigurationError(
            path: path, line: key.line, key: full,
            message: "unknown key (expected one of: \(allowed.joined(separator: ", ")))")
    }

    func mapping(_ node: Node, key: String) throws(ConfigurationError) -> [(Key, Node)] {
        guard case .mapping(let mapping) = node else { throw error(node, key: key, "expected a mapping of keys") }
        var seen = Set<String>()
        var entries: [(Key, Node)] = []
        for (k, v) in mapping {
            guard let name = k.string else { throw error(k, key: key, "keys must be text") }
            guard seen.insert(name).inserted else {
                throw error(k, key: key.isEmpty ? name : "\(key).\(name)", "duplicate key")
            }
            entries.append((Key(name: name, line: k.mark?.line), v))
        }
        return entries
    }

    func sequence(_ node: Node, key: String) throws(ConfigurationError) -> [Node] {
        guard case .sequence(let sequence) = node else { throw error(node, key: key, "expected a list") }
        return Array(sequence)
    }

    /// A whole number within `range`, or an error naming the key and the range.
    func wholeNumber(_ node: Node, key: String, in range: ClosedRange<Int64>) throws(ConfigurationError) -> Int {
        let value = try number(node, key: key)
        guard value.denominator == 1, range.contains(value.numerator) else {
            throw error(node, key: key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(value.numerator)
    }

    func string(_ node: Node, key: String) throws(ConfigurationError) -> String {
        guard case .scalar(let scalar) = node else { throw error(node, key: key, "expected a text value") }
        return scalar.string
    }

    /// A path value; nil when empty (the default applies). YAML holds text only, so a name that is not UTF-8 is
    /// written with `PathText`'s escapes, as the reports show it.
    func path(_ node: Node, key: String) throws(ConfigurationError) -> FilePath? {
        let text = try string(node, key: key)
        return text.isEmpty ? nil : FilePath(pathText: text)
    }

    func choice<T: RawRepresentable & CaseIterable>(_ node: Node, key: String, as type: T.Type)
        throws(ConfigurationError) -> T where T.RawValue == String
    {
        let text = try string(node, key: key)
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw error(node, key: key, "'\(text)' is not one of: \(allowed)")
        }
        return value
    }

    func repairSection(_ node: Node, key: String, into configuration: inout Configuration) throws(ConfigurationError) {
        var policy = RepairPolicy()
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            switch k.name {
            case "max-attempts":
                configuration.maxAttempts = try wholeNumber(value, key: full, in: 1...100)
            case "method": policy.defaultMethod = try choice(value, key: full, as: RepairMethod.self)
            case "quality": policy.quality = try choice(value, key: full, as: ResampleQuality.self)
            case "engine": policy.engine = try choice(value, key: full, as: EngineChoice.self)
            case "mux": policy.mux = try bool(value, key: full)
            case "rules":
                policy.rules = []
                for (index, item) in try sequence(value, key: full).enumerated() {
                    policy.rules.append(try rule(item, key: "\(full)[\(index)]"))
                }
            default:
                throw unknown(k, in: key, allowed: ["method", "quality", "engine", "rules", "max-attempts", "mux"])
            }
        }
        configuration.repair = policy
    }

    func rule(_ node: Node, key: String) throws(ConfigurationError) -> MethodRule {
        var pattern: String?
        var method: RepairMethod?
        var reason: String?
        var engine: EngineChoice?
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            switch k.name {
            case "match": pattern = try string(value, key: full)
            case "method": method = try choice(value, key: full, as: RepairMethod.self)
            case "reason": reason = try string(value, key: full)
            case "engine": engine = try choice(value, key: full, as: EngineChoice.self)
            default: throw unknown(k, in: key, allowed: ["match", "method", "engine", "reason"])
            }
        }
        guard let pattern, !pattern.isEmpty else { throw error(node, key: "\(key).match", "missing (a path pattern)") }
        guard method != nil || engine != nil else {
            throw error(
                node, key: "\(key).method",
                "missing (resample or stretch; or an engine: polyphase, soxr or libsamplerate)")
        }
        return MethodRule(pattern: GlobPattern(pattern), method: method, reason: reason, engine: engine)
    }
}
