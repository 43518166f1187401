import DriftAudio
import DriftRules
import Foundation

extension DeviceRules {
    /// The device of `recording`, found under `root` (nil when not known: the folder alone is used), with its
    /// metadata when `readsMetadata`.
    public func identify(recording: String, root: String?, metadata: RecordingMetadata?) -> DeviceIdentity {
        let relative = Self.relativePath(recording, root: root)
        for source in sources {
            let found: String?
            switch source {
            case .path(let template): found = Self.path(template, relativePath: relative)
            case .pattern(let pattern): found = pattern.device(in: relative)
            case .metadata(let field): found = metadata.flatMap { field.value(in: $0) }
            case .folder: found = Self.folder(relativePath: relative, root: root)
            }
            if let name = found.flatMap(Self.clean) { return DeviceIdentity(name: name, source: source.label) }
        }
        return DeviceIdentity(
            name: Self.folder(relativePath: relative, root: root) ?? "/", source: DeviceSource.folder.label)
    }
}

extension DeviceMetadataField {
    /// This field's value in `metadata`, or nil.
    func value(in metadata: RecordingMetadata) -> String? {
        switch self {
        case .bwfOriginator: return metadata.originator
        case .bwfOriginatorReference: return metadata.originatorReference
        case .bwfDescription(let key):
            guard let description = metadata.bextDescription else { return nil }
            guard let key else { return description }
            return Self.entry(key, in: description)
        case .ixml(let path): return metadata.ixml.flatMap { IXMLText.element(path, in: $0) }
        case .quicktime:
            let make = metadata.tag("com.apple.quicktime.make") ?? metadata.tag("make")
            let model = metadata.tag("com.apple.quicktime.model") ?? metadata.tag("model")
            let parts = [make, model].compactMap { $0 }
            // A model that already names its make ("Canon EOS R5" by "Canon") is not doubled.
            if let make, let model, model.lowercased().hasPrefix(make.lowercased()) { return model }
            return parts.isEmpty ? nil : parts.joined(separator: " ")
        case .encoder: return metadata.tag("encoder") ?? metadata.tag("software") ?? metadata.tag("encoded_by")
        }
    }

    /// The value of `KEY=value` in a bext description (entries end at a line break, `;` or the end).
    static func entry(_ key: String, in description: String) -> String? {
        for line in description.split(whereSeparator: { $0.isNewline || $0 == ";" }) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "="),
                trimmed[..<equals].trimmingCharacters(in: .whitespaces) == key
            else { continue }
            return String(trimmed[trimmed.index(after: equals)...])
        }
        return nil
    }
}
