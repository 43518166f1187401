import DriftCore
import Foundation

/// One place a recording's device - the recorder it came from - can be read. QA groups drift, trends and alerts by
/// device; a device is rarely the last folder of a path.
public enum DeviceSource: Sendable, Equatable {
    /// Folders of the recording's path under its scan root, by a template: `{1}` is the first folder under the root,
    /// `{2}` the second, `{-1}` the recording's own folder, `{-2}` its parent; `{stem}` is the file name without its
    /// extension. Other text is kept (`"{1}-{2}"`). Names nothing when a folder it asks for does not exist.
    case path(String)
    /// A regular expression searched in the path relative to the root; see `DevicePattern`.
    case pattern(DevicePattern)
    /// A metadata field of the recording.
    case metadata(DeviceMetadataField)
    /// The recording's folder under its root, leaving out folders that name a date or a night (`2026-11-23`,
    /// `20261123`, `night3`, `day-2`, `run_5`): the default, and the last resort after every configured source.
    case folder

    /// A path template, checked: it names at least one folder or the stem, and only `{N}`/`{-N}`/`{stem}`.
    public static func checkedPath(_ template: String) throws(DevicePatternError) -> DeviceSource {
        let placeholders = DevicePattern.placeholders(in: template)
        guard !placeholders.isEmpty else {
            throw DevicePatternError(expression: template, reason: "names no folder ({1}, {-1}, ...)")
        }
        for placeholder in placeholders where placeholder != "stem" {
            guard let index = Int(placeholder), index != 0 else {
                throw DevicePatternError(
                    expression: template,
                    reason: "{\(placeholder)} is not a folder number: {1} is the "
                        + "first folder under the root, {-1} the recording's own folder, {stem} its file name")
            }
        }
        return .path(template)
    }

    /// How the report names this source (`deviceSource`).
    public var label: String {
        switch self {
        case .path(let template): return "path \(template)"
        case .pattern(let pattern): return "pattern \(pattern.expression)"
        case .metadata(let field): return field.label
        case .folder: return "folder"
        }
    }
}

/// A regular expression over the path relative to the scan root, with named captures: the device is the capture
/// named `device`, or `name`, a template over the captures (`"{site}/{unit}"`).
public final class DevicePattern: Sendable, Equatable {
    public let expression: String
    public let name: String
    // NSRegularExpression is immutable once made and documented as safe to use from several threads.
    private nonisolated(unsafe) let regex: NSRegularExpression
    private let captureNames: [String]

    /// - Throws: `DevicePatternError` when the expression does not compile, or names no capture the device can
    ///   come from.
    public init(_ expression: String, name: String? = nil) throws(DevicePatternError) {
        do {
            regex = try NSRegularExpression(pattern: expression)
        } catch {
            throw DevicePatternError(expression: expression, reason: "not a regular expression")
        }
        self.expression = expression
        captureNames = Self.captureNames(in: expression)
        let template = name ?? "{device}"
        let used = Self.placeholders(in: template)
        guard !used.isEmpty else {
            throw DevicePatternError(expression: expression, reason: "the name '\(template)' uses no capture")
        }
        for placeholder in used where !captureNames.contains(placeholder) {
            throw DevicePatternError(
                expression: expression,
                reason: name == nil
                    ? "no capture named 'device' (write (?<device>...), or give a name template)"
                    : "the name uses {\(placeholder)}, which the expression does not capture")
        }
        self.name = template
    }

    /// The device this pattern finds in `relativePath`, or nil when it does not match (or a capture is empty).
    package func device(in relativePath: String) -> String? {
        let whole = NSRange(relativePath.startIndex..., in: relativePath)
        guard let match = regex.firstMatch(in: relativePath, range: whole) else { return nil }
        var values: [String: String] = [:]
        for capture in captureNames {
            let range = match.range(withName: capture)
            guard range.location != NSNotFound, let swiftRange = Range(range, in: relativePath) else { continue }
            values[capture] = String(relativePath[swiftRange])
        }
        return DeviceRules.fill(name, with: values)
    }

    public static func == (a: DevicePattern, b: DevicePattern) -> Bool {
        a.expression == b.expression && a.name == b.name
    }

    private static func captureNames(in expression: String) -> [String] {
        // (?<name>...) and (?P<name>...); (?<= and (?<! are lookbehinds, not names.
        var names: [String] = []
        var rest = Substring(expression)
        while let open = rest.range(of: "(?") {
            var after = rest[open.upperBound...]
            if after.hasPrefix("P<") { after = after.dropFirst() }
            if after.hasPrefix("<"), let close = after.firstIndex(of: ">") {
                let candidate = after[after.index(after: after.startIndex)..<close]
                if let first = candidate.first, first.isLetter,
                    candidate.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
                {
                    names.append(String(candidate))
                }
            }
            rest = rest[open.upperBound...]
        }
        return names
    }

    package static func placeholders(in template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}

/// A device pattern that cannot be used.
public struct DevicePatternError: Error, Equatable, CustomStringConvertible {
    public let expression: String
    public let reason: String
    public var description: String { "'\(expression)': \(reason)" }
}

/// A metadata field that may name the recorder.
public enum DeviceMetadataField: Sendable, Equatable {
    /// The BWF `bext` Originator (often the recorder's make and model).
    case bwfOriginator
    /// The BWF `bext` OriginatorReference (often with the unit's serial number).
    case bwfOriginatorReference
    /// The BWF `bext` Description, or, with a key, the value of its `KEY=value` entry (recorders write
    /// `sTAPE=...`, `dNAME=...` lines there).
    case bwfDescription(key: String?)
    /// The text of an iXML element, by its path below the root (`TAPE`, `USER/SERIAL`).
    case ixml(path: [String])
    /// The QuickTime/MP4 make and model (`com.apple.quicktime.make`/`model`, or `©mak`/`©mod`), joined by a space.
    case quicktime
    /// The encoder or software tag (`encoder`, WAV `ISFT`).
    case encoder

    public var label: String {
        switch self {
        case .bwfOriginator: return "bwf-originator"
        case .bwfOriginatorReference: return "bwf-originator-reference"
        case .bwfDescription(let key): return "bwf-description" + (key.map { ":" + $0 } ?? "")
        case .ixml(let path): return "ixml:" + path.joined(separator: "/")
        case .quicktime: return "quicktime"
        case .encoder: return "encoder"
        }
    }

    /// Parses a configuration word: `bwf-originator`, `bwf-description:sTAPE`, `ixml:USER/SERIAL`, ...
    public init?(label: String) {
        let parts = label.split(separator: ":", maxSplits: 1).map(String.init)
        let argument = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
        switch parts.first?.lowercased() {
        case "bwf-originator" where argument == nil: self = .bwfOriginator
        case "bwf-originator-reference" where argument == nil: self = .bwfOriginatorReference
        case "bwf-description": self = .bwfDescription(key: argument.flatMap { $0.isEmpty ? nil : $0 })
        case "ixml":
            guard let argument, !argument.isEmpty else { return nil }
            // "A//B" and "A/" are typing errors, not the path A/B.
            let path = argument.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard path.allSatisfy({ !$0.isEmpty && !$0.contains("<") && !$0.contains(">") }) else { return nil }
            self = .ixml(path: path)
        case "quicktime" where argument == nil: self = .quicktime
        case "encoder" where argument == nil: self = .encoder
        default: return nil
        }
    }
}

/// The device a recording came from, and which source named it.
public struct DeviceIdentity: Sendable, Equatable {
    public var name: String
    /// The source's label (`path {1}`, `bwf-originator`, `folder`, ...).
    public var source: String

    public init(name: String, source: String) {
        self.name = name
        self.source = source
    }
}

/// How the scan names each recording's device: sources tried in order, the first that names one wins, and the
/// folder (`DeviceSource.folder`) when none does.
public struct DeviceRules: Sendable, Equatable {
    public var sources: [DeviceSource]

    public init(sources: [DeviceSource] = [.folder]) {
        self.sources = sources
    }

    /// Whether any source reads the recording's metadata (the scan then reads its tags, bext and iXML).
    public var readsMetadata: Bool {
        sources.contains { if case .metadata = $0 { return true } else { return false } }
    }

    /// Whether the iXML chunk is needed.
    package var readsIXML: Bool {
        sources.contains { if case .metadata(.ixml) = $0 { return true } else { return false } }
    }

    /// `recording` relative to `root` ("devA/night1/take.wav"); the path as given when it is not under the root.
    package static func relativePath(_ recording: String, root: String?) -> String {
        guard let root else { return recording }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return recording.hasPrefix(prefix) ? String(recording.dropFirst(prefix.count)) : recording
    }

    /// A path template filled from the folders of `relativePath` (its last component is the file).
    package static func path(_ template: String, relativePath: String) -> String? {
        let components = relativePath.split(separator: "/").map(String.init)
        let folders = components.dropLast()
        let stem = components.last.map { ($0 as NSString).deletingPathExtension } ?? ""
        var values: [String: String] = ["stem": stem]
        for placeholder in DevicePattern.placeholders(in: template) where placeholder != "stem" {
            guard let index = Int(placeholder), index != 0 else { return nil }
            let position = index > 0 ? index - 1 : folders.count + index
            guard folders.indices.contains(position) else { return nil }
            values[placeholder] = folders[position]
        }
        return fill(template, with: values)
    }

    /// Replaces each `{name}` in `template` by its value; nil when one has no value or the result is empty.
    package static func fill(_ template: String, with values: [String: String]) -> String? {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            guard let value = values[String(rest[rest.index(after: open)..<close])], !value.isEmpty else { return nil }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result.isEmpty ? nil : result
    }

    /// The folders of `relativePath` that do not name a date or a night, joined; the root's own name when none
    /// remains; nil when there is nothing to name.
    package static func folder(relativePath: String, root: String?) -> String? {
        let folders = relativePath.split(separator: "/").dropLast().map(String.init)
        let kept = folders.filter { !isDateLike($0) }
        if !kept.isEmpty { return kept.joined(separator: "/") }
        if let root {
            let name = (root as NSString).lastPathComponent
            return name.isEmpty ? "/" : name
        }
        return folders.last
    }

    /// `2026-11-23`, `2026_11_23`, `20261123`, `23.11.2026`, `2026-11-23T0130`, `night3`, `Day-2`, `run_5`,
    /// `session 4`, `week12`: a folder that says when, not which recorder.
    package static func isDateLike(_ name: String) -> Bool {
        dateLike?.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }

    // Immutable after creation; NSRegularExpression matching is thread-safe. A constant expression (tested).
    private nonisolated(unsafe) static let dateLike = try? NSRegularExpression(
        pattern:
            #"^(\d{4}[-_.]?\d{2}[-_.]?\d{2}([T_ -]?\d{2,6})?|\d{2}[-_.]\d{2}[-_.]\d{4}|(night|day|date|run|session|shift|week|batch)[-_ ]?\d+)$"#,
        options: [.caseInsensitive])

    /// Trims a found name; control characters become spaces; empty is no name.
    package static func clean(_ name: String) -> String? {
        // Printable ASCII with no space at either end, as nearly every folder name is, is already clean.
        if let first = name.utf8.first, let last = name.utf8.last, first != 0x20, last != 0x20,
            name.utf8.allSatisfy({ (0x20..<0x7F).contains($0) })
        {
            return name
        }
        let cleaned = String(
            name.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) }
        )
        .trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty ? nil : cleaned
    }
}
