import DriftCore
import DriftSchema
import Foundation
import Testing

import struct SystemPackage.FilePath

/// A report row gives its paths as the bytes of the names, and its JSON keeps them as the report's text: a name that
/// is not UTF-8 survives both ways, where `FilePath(text)` would name other bytes.
@Suite("Schema: a row's paths are the names' bytes")
struct RowPathTests {
    /// `/m/take` + 0xFF + `.wav`: no UTF-8 holds it.
    static let bytes: [UInt8] = Array("/m/take".utf8) + [0xFF] + Array(".wav".utf8)

    static var raw: FilePath {
        (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
            FilePath(platformString: $0.baseAddress!)
        }
    }

    static func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test("a pair's recording: the bytes in, the report's text in the JSON, the bytes back")
    func pairRow() throws {
        let row = PairReport(recording: Self.raw, reference: "/m/take.mov", folder: "/m", error: "unreadable")
        #expect(row.recording == Self.raw)
        #expect(row.recording != FilePath(PathText.text(Self.bytes)), "the text's own UTF-8 is another name")
        let json = try Self.object(row)
        #expect(json["recording"] as? String == PathText.text(Self.bytes))
        #expect(json["recording"] as? String == "/m/take\u{F7FF}.wav")
        let back = try JSONDecoder().decode(PairReport.self, from: JSONEncoder().encode(row))
        #expect(back.recording == Self.raw && back.folder == FilePath("/m"))
    }

    @Test("a sound group's lists and a file status: the same bytes through the JSON")
    func soundGroup() throws {
        var group = SoundPairingReport.Group(
            folder: "/m", unmatchedClips: [Self.raw], unmatchedRecordings: ["/m/a.wav"])
        group.files = [SoundPairingReport.FileStatus(path: Self.raw, kind: .clip, status: .unheard)]
        let json = try Self.object(group)
        #expect(json["unmatchedClips"] as? [String] == [PathText.text(Self.bytes)])
        let back = try JSONDecoder().decode(SoundPairingReport.Group.self, from: JSONEncoder().encode(group))
        #expect(back.unmatchedClips == [Self.raw] && back.files.map(\.path) == [Self.raw] && back.clips == [Self.raw])
        #expect(back == group)
    }
}
