import DriftCore
import DriftRules
import Yams

import struct SystemPackage.FilePath

extension NodeReader {
    func strings(_ node: Node, key: String) throws(ConfigurationError) -> [String] {
        var values: [String] = []
        for (index, item) in try sequence(node, key: key).enumerated() {
            values.append(try string(item, key: "\(key)[\(index)]"))
        }
        return values
    }

    func bool(_ node: Node, key: String) throws(ConfigurationError) -> Bool {
        switch try string(node, key: key).lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        case let other: throw error(node, key: key, "'\(other)' is not true or false")
        }
    }

    /// A non-negative exact number (`1`, `0.5`, `1/3`).
    func number(_ node: Node, key: String) throws(ConfigurationError) -> Rational {
        let text = try string(node, key: key)
        do {
            let value = try Rational(parsing: text)
            guard value.numerator >= 0 else { throw error(node, key: key, "must not be negative") }
            return value
        } catch let failure as RationalParseError {
            throw error(node, key: key, failure.description)
        } catch let failure as ConfigurationError {
            throw failure
        } catch {
            throw self.error(node, key: key, "\(error)")
        }
    }

    func extensions(_ node: Node, key: String) throws(ConfigurationError) -> [String] {
        let values = try strings(node, key: key).map { $0.lowercased().trimmingPrefix(".") }
        guard !values.isEmpty, values.allSatisfy({ !$0.isEmpty && !$0.contains("/") }) else {
            throw error(node, key: key, "expected a list of file extensions like [wav, flac]")
        }
        return values
    }

    func pairingRules(_ node: Node, key: String) throws(ConfigurationError) -> PairingRules {
        var rules = PairingRules()
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            switch k.name {
            case "recordings": rules.recordingExtensions = try extensions(value, key: full)
            case "references": rules.referenceExtensions = try extensions(value, key: full)
            case "ignore": rules.ignore = try strings(value, key: full).map(GlobPattern.init)
            case "movie-header-fallback": rules.movieHeaderFallback = try bool(value, key: full)
            case "ambiguous-references":
                rules.ambiguousReferences = try choice(value, key: full, as: AmbiguousReferences.self)
            case "self-pairs": rules.selfPairs = try bool(value, key: full)
            case "pair-by": rules.pairBy = try choice(value, key: full, as: PairBy.self)
            case "sound-output":
                let template = try string(value, key: full)
                let ext =
                    template.split(separator: ".").count > 1
                    ? String(template.split(separator: ".").last ?? "").lowercased() : ""
                guard template.contains("{stem}"), !template.hasPrefix("/"),
                    !template.split(separator: "/").contains(".."),
                    ["wav", "flac", "w64", "rf64", "aif", "aiff", "caf"].contains(ext)
                else {
                    throw error(
                        value, key: full,
                        "expected a path below the output root with {stem} and an audio extension, like {folder}/{stem}.wav"
                    )
                }
                rules.soundOutput = template
            case "device": rules.device = try deviceRules(value, key: full)
            case "sound-group": rules.soundGroup = try soundGroup(value, key: full)
            case "sound-search": rules.soundSearch = try choice(value, key: full, as: SoundSearch.self)
            case "patterns":
                rules.patterns = []
                for (index, item) in try sequence(value, key: full).enumerated() {
                    rules.patterns.append(try pairPattern(item, key: "\(full)[\(index)]"))
                }
            default:
                throw unknown(
                    k, in: key,
                    allowed: [
                        "recordings", "references", "patterns", "ignore", "movie-header-fallback",
                        "ambiguous-references", "self-pairs", "pair-by", "sound-output", "device",
                        "sound-group", "sound-search",
                    ])
            }
        }
        return rules
    }

    /// `scan.sound-group`: `root` (the default: each root one group), or one part or a list of them, joined: `day`
    /// or any device source (`"{1}"`, a pattern, a metadata field, `folder`).
    func soundGroup(_ node: Node, key: String) throws(ConfigurationError) -> SoundGroupRules {
        let items: [(Node, String)]
        if case .scalar = node {
            if try string(node, key: key).trimmingCharacters(in: .whitespaces) == "root" { return SoundGroupRules() }
            items = [(node, key)]
        } else {
            items = try sequence(node, key: key).enumerated().map { ($1, "\(key)[\($0)]") }
        }
        guard !items.isEmpty else {
            throw error(node, key: key, "expected root, day, a device source, or a list of them")
        }
        var rules = SoundGroupRules()
        for (item, itemKey) in items {
            if case .scalar = item, try string(item, key: itemKey).trimmingCharacters(in: .whitespaces) == "day" {
                rules.parts.append(.day)
            } else {
                rules.parts.append(.device(try deviceSource(item, key: itemKey)))
            }
        }
        return rules
    }

    /// `scan.device`: one source or a list of them, tried in order (the folder is always the last resort). A source is
    /// a path template (`"{1}"`), a pattern with named captures (`"(?<device>[^/_]+)_"`), a metadata field
    /// (`bwf-originator`, `ixml:TAPE`, ...), `folder`, or a mapping `{pattern: ..., name: ...}`.
    func deviceRules(_ node: Node, key: String) throws(ConfigurationError) -> DeviceRules {
        let items: [(Node, String)]
        if case .scalar = node {
            items = [(node, key)]
        } else {
            items = try sequence(node, key: key).enumerated().map { ($1, "\(key)[\($0)]") }
        }
        guard !items.isEmpty else { throw error(node, key: key, "expected a source or a list of sources") }
        var rules = DeviceRules(sources: [])
        for (item, itemKey) in items {
            rules.sources.append(try deviceSource(item, key: itemKey))
        }
        return rules
    }

    private func deviceSource(_ node: Node, key: String) throws(ConfigurationError) -> DeviceSource {
        func pattern(_ expression: String, name: String?, at node: Node, key: String) throws(ConfigurationError)
            -> DeviceSource
        {
            do {
                return .pattern(try DevicePattern(expression, name: name))
            } catch {
                throw self.error(node, key: key, error.description)
            }
        }
        if case .scalar = node {
            let text = try string(node, key: key).trimmingCharacters(in: .whitespaces)
            if text.contains("(?<") || text.contains("(?P<") { return try pattern(text, name: nil, at: node, key: key) }
            if text.contains("{") { return try pathTemplate(text, at: node, key: key) }
            if text == "folder" { return .folder }
            if let field = DeviceMetadataField(label: text) { return .metadata(field) }
            throw error(
                node, key: key,
                "'\(text)' is not a device source: a path template (\"{1}\"), a pattern with a "
                    + "(?<device>...) capture, folder, or one of bwf-originator, bwf-originator-reference, "
                    + "bwf-description[:KEY], ixml:ELEMENT[/ELEMENT], quicktime, encoder")
        }
        var expression: String?
        var name: String?
        var template: String?
        var field: String?
        for (k, value) in try mapping(node, key: key) {
            switch k.name {
            case "pattern": expression = try string(value, key: "\(key).pattern")
            case "name": name = try string(value, key: "\(key).name")
            case "path": template = try string(value, key: "\(key).path")
            case "metadata": field = try string(value, key: "\(key).metadata")
            default: throw unknown(k, in: key, allowed: ["pattern", "name", "path", "metadata"])
            }
        }
        switch (expression, template, field) {
        case (let expression?, nil, nil): return try pattern(expression, name: name, at: node, key: key)
        case (nil, let template?, nil) where name == nil:
            return try pathTemplate(template, at: node, key: "\(key).path")
        case (nil, nil, let field?) where name == nil:
            guard let parsed = DeviceMetadataField(label: field) else {
                throw error(
                    node, key: "\(key).metadata",
                    "'\(field)' is not one of bwf-originator, bwf-originator-reference, "
                        + "bwf-description[:KEY], ixml:ELEMENT[/ELEMENT], quicktime, encoder")
            }
            return .metadata(parsed)
        default:
            throw error(node, key: key, "expected one of pattern (with an optional name), path or metadata")
        }
    }

    private func pathTemplate(_ template: String, at node: Node, key: String) throws(ConfigurationError) -> DeviceSource
    {
        do {
            return try DeviceSource.checkedPath(template)
        } catch {
            throw self.error(node, key: key, error.description)
        }
    }

    func pairPattern(_ node: Node, key: String) throws(ConfigurationError) -> PairPattern {
        var recording: String?
        var reference: String?
        for (k, value) in try mapping(node, key: key) {
            switch k.name {
            case "recording": recording = try string(value, key: "\(key).recording")
            case "reference": reference = try string(value, key: "\(key).reference")
            default: throw unknown(k, in: key, allowed: ["recording", "reference"])
            }
        }
        guard let recording, recording.contains("{stem}") else {
            throw error(node, key: "\(key).recording", "missing, or without {stem}")
        }
        guard let reference, reference.contains("{stem}") else {
            throw error(node, key: "\(key).reference", "missing, or without {stem}")
        }
        return PairPattern(recording: recording, reference: reference)
    }

    func driftPolicy(_ node: Node, key: String) throws(ConfigurationError) -> DriftPolicy {
        var policy = DriftPolicy()
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            switch k.name {
            case "tolerance-ms":
                let ms = try number(value, key: full)
                policy.tolerance = ms.multipliedExactly(by: Rational(1, 1000)) ?? policy.tolerance
            case "refuse-limit-percent":
                let percent = try number(value, key: full)
                guard percent.numerator > 0 else { throw error(value, key: full, "must be greater than 0") }
                policy.refuseLimit = percent.multipliedExactly(by: Rational(1, 100)) ?? policy.refuseLimit
            case "clock-drift-limit-ppm":
                policy.clockDriftLimitPPM = try number(value, key: full).doubleValue
            default:
                throw unknown(k, in: key, allowed: ["tolerance-ms", "refuse-limit-percent", "clock-drift-limit-ppm"])
            }
        }
        return policy
    }
}

extension NodeReader {
    func workerSection(_ node: Node, key: String, into configuration: inout Configuration) throws(ConfigurationError) {
        var mappings: [PathMapping] = []
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            switch k.name {
            case "path-map":
                for (index, item) in try sequence(value, key: full).enumerated() {
                    var from: String?
                    var to: String?
                    for (entry, text) in try mapping(item, key: "\(full)[\(index)]") {
                        switch entry.name {
                        case "from": from = try string(text, key: "\(full)[\(index)].from")
                        case "to": to = try string(text, key: "\(full)[\(index)].to")
                        default: throw unknown(entry, in: "\(full)[\(index)]", allowed: ["from", "to"])
                        }
                    }
                    guard let from, from.hasPrefix("/"), let to, to.hasPrefix("/") else {
                        throw error(item, key: "\(full)[\(index)]", "needs absolute 'from' and 'to' paths")
                    }
                    mappings.append(PathMapping(from: from, to: to))
                }
            case "input-roots":
                configuration.workerInputRoots = try sequence(value, key: full).map { item throws(ConfigurationError) in
                    guard let path = try path(item, key: full), path.isAbsolute else {
                        throw error(item, key: full, "needs absolute paths")
                    }
                    return path
                }
            case "output-root":
                let root = try path(value, key: full)
                guard root?.isAbsolute ?? true else { throw error(value, key: full, "needs an absolute path") }
                configuration.workerOutputRoot = root
            case "idle-cores":
                configuration.workerIdleCores = try wholeNumber(value, key: full, in: 0...1024)
            default: throw unknown(k, in: key, allowed: ["path-map", "input-roots", "output-root", "idle-cores"])
            }
        }
        configuration.pathMapping = mappings
    }
}

extension String {
    func trimmingPrefix(_ prefix: String) -> String { hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self }
}

extension NodeReader {
    func journalSection(_ node: Node, key: String, into settings: inout JournalSettings) throws(ConfigurationError) {
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            switch k.name {
            case "path":
                settings.path = try path(value, key: full)
            case "history-runs":
                settings.historyRuns = try wholeNumber(value, key: full, in: 2...1000)
            case "alert-ppm":
                let ppm = try number(value, key: full)
                guard ppm.numerator > 0 else { throw error(value, key: full, "must be greater than 0") }
                settings.alertPPM = ppm.doubleValue
            case "alert-spread-ppm":
                let ppm = try number(value, key: full)
                guard ppm.numerator > 0 else { throw error(value, key: full, "must be greater than 0") }
                settings.alertSpreadPPM = ppm.doubleValue
            case "alert-start-ms":
                // `off` (or null), or a positive number of milliseconds.
                if let text = value.scalar?.string, ["off", "", "~", "null"].contains(text.lowercased()) {
                    settings.alertStartMs = nil
                    continue
                }
                let ms = try number(value, key: full)
                guard ms.numerator > 0 else { throw error(value, key: full, "must be greater than 0, or off") }
                settings.alertStartMs = ms.doubleValue
            case "keep-runs":
                settings.keepRuns = try wholeNumber(value, key: full, in: 1...100_000)
            default:
                throw unknown(
                    k, in: key,
                    allowed: ["path", "history-runs", "alert-ppm", "alert-spread-ppm", "alert-start-ms", "keep-runs"])
            }
        }
    }

    func metricsSection(_ node: Node, key: String, into settings: inout JournalSettings) throws(ConfigurationError) {
        for (k, value) in try mapping(node, key: key) {
            switch k.name {
            case "textfile":
                settings.metricsFile = try path(value, key: "\(key).textfile")
            case "device-limit":
                settings.metricsDeviceLimit = try wholeNumber(value, key: "\(key).device-limit", in: 0...100_000)
            default: throw unknown(k, in: key, allowed: ["textfile", "device-limit"])
            }
        }
    }
}

extension NodeReader {
    func securitySection(_ node: Node, key: String) throws(ConfigurationError) -> SecuritySettings {
        var settings = SecuritySettings()
        for (k, value) in try mapping(node, key: key) {
            let path = try path(value, key: "\(key).\(k.name)")
            switch k.name {
            case "secret-key": settings.secretKey = path
            case "allow": settings.allow = path
            case "server-key": settings.serverKey = path
            default: throw unknown(k, in: key, allowed: ["secret-key", "allow", "server-key"])
            }
        }
        return settings
    }

    func slurmSection(_ node: Node, key: String) throws(ConfigurationError) -> SlurmSettings {
        var settings = SlurmSettings()
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            switch k.name {
            case "args":
                var arguments: [String] = []
                for (index, item) in try sequence(value, key: full).enumerated() {
                    let text = try string(item, key: "\(full)[\(index)]")
                    guard text.hasPrefix("-") else {
                        throw error(item, key: full, "'\(text)' is not an sbatch option (they start with -)")
                    }
                    arguments.append(text)
                }
                settings.arguments = arguments
            case "log-folder":
                settings.logFolder = try path(value, key: full)
            case "max-resubmits":
                settings.maxResubmits = try wholeNumber(value, key: full, in: 0...10_000)
            case "start-grace":
                settings.startGrace = .seconds(try wholeNumber(value, key: full, in: 1...86_400))
            default: throw unknown(k, in: key, allowed: ["args", "log-folder", "max-resubmits", "start-grace"])
            }
        }
        return settings
    }

    func processSection(_ node: Node, key: String) throws(ConfigurationError) -> ProcessSettings {
        var settings = ProcessSettings()
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            let text = try string(value, key: full)
            switch k.name {
            case "format":
                guard !text.isEmpty else { continue }
                settings.format = try choice(value, key: full, as: FileType.self)
            case "encoding":
                guard !text.isEmpty else { continue }
                guard let encoding = SampleEncoding.names[text] else {
                    throw error(
                        value, key: full,
                        "'\(text)' is not one of: \(SampleEncoding.names.keys.sorted().joined(separator: ", "))")
                }
                settings.encoding = encoding
            default: throw unknown(k, in: key, allowed: ["format", "encoding"])
            }
        }
        return settings
    }
}
