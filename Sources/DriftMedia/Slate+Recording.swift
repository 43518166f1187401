import DriftAudio
import DriftSchema
import Foundation

extension Slate {
    /// The slate a recorder wrote: iXML's PROJECT, SCENE, TAKE, TAPE and TRACK_LIST, each else the bext description's
    /// `sPROJECT=`, `sSCENE=`, `sTAKE=`, `sTAPE=` (iXML's guidelines ask readers to favour iXML); nil when neither
    /// says anything.
    public init?(ixml: String?, bextDescription: String?) {
        let keys = Self.descriptionKeys(bextDescription ?? "")
        func value(_ name: String) -> String? {
            ixml.flatMap { IXMLText.element([name], in: $0) } ?? keys["s" + name]
        }
        self.init(
            project: value("PROJECT"), scene: value("SCENE"), take: value("TAKE"), tape: value("TAPE"),
            tracks: ixml.map(IXMLText.trackNames(in:)) ?? [])
        if isEmpty { return nil }
    }

    /// `KEY=value` lines of a bext description (Sound Devices, Zoom, Aaton write `sSCENE=12A` and the like).
    private static func descriptionKeys(_ text: String) -> [String: String] {
        var keys: [String: String] = [:]
        for line in text.split(whereSeparator: { $0 == "\r" || $0 == "\n" }) {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            if !value.isEmpty { keys[parts[0].trimmingCharacters(in: .whitespaces)] = value }
        }
        return keys
    }
}
