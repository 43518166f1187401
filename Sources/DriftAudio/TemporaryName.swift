import DriftCore
import DriftSupport
import Glibc

/// The name of a temporary output file, `.NAME.driftfix-HOST-PID-TAG.tmp`: hidden, beside its destination NAME,
/// and saying which process of which machine writes it, so that leftovers of dead processes can be told from files
/// still being written.
public struct TemporaryName: Equatable, Sendable {
    /// The final file's name.
    public let destinationName: String
    /// The writer's machine (`hostTag`).
    public let host: String
    public let pid: Int32

    /// This machine's name, made safe for a file name.
    public static let hostTag = tag(forHost: Machine.name)

    /// A machine name made safe for a file name (letters and digits; anything else becomes `_`).
    public static func tag(forHost name: String) -> String {
        let safe = name.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }
        return safe.isEmpty ? "host" : String(safe.prefix(32))
    }

    static func make(for name: String, host: String, pid: Int32, tag: String) -> String {
        "." + token(for: name) + ".driftfix-\(host)-\(pid)-\(tag).tmp"
    }

    /// The destination as the temporary name holds it: the name itself, or, where the whole would pass the 255 bytes
    /// a file name may have, its first bytes and a hash of all of it (`take….wav~5f3a…`). Compare a parsed
    /// `destinationName` with `token(for:)` of a name.
    public static func token(for name: String) -> String {
        // The rest of the temporary name: '.', ".driftfix-", a host tag of up to 32, a pid, a tag and ".tmp".
        let room = 255 - 80
        let bytes = PathText.bytes(of: name)
        guard bytes.count > room else { return name }
        var hash = FNV1a64()
        bytes.withUnsafeBytes { hash.update($0) }
        // Whole characters of the name (as text), then the hash.
        var head = ""
        for character in name {
            guard PathText.bytes(of: head + String(character)).count <= room - 18 else { break }
            head.append(character)
        }
        return head + "~" + hash.hex
    }

    /// Parses a file name; nil unless it has exactly the temporary-file shape.
    public init?(parsing fileName: String) {
        guard fileName.hasPrefix("."), fileName.hasSuffix(".tmp") else { return nil }
        let body = fileName.dropFirst().dropLast(4)
        // From the end: TAG (hex), PID (digits), HOST (no '-'), then ".driftfix" ending the destination's name.
        let parts = body.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4 else { return nil }
        let tag = parts[parts.count - 1]
        let pidText = parts[parts.count - 2]
        let host = parts[parts.count - 3]
        let head = parts[..<(parts.count - 3)].joined(separator: "-")
        guard !tag.isEmpty, tag.allSatisfy(\.isHexDigit), let pid = Int32(pidText), pid > 0,
            !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
            head.hasSuffix(".driftfix"), head.count > ".driftfix".count
        else { return nil }
        destinationName = String(head.dropLast(".driftfix".count))
        self.host = String(host)
        self.pid = pid
    }
}
