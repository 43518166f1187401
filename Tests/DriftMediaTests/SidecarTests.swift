import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftMedia

@Suite("Sidecar references")
struct SidecarTests {
    @Test(
        "decimal, fraction and frames@rate, with comments",
        arguments: [
            ("3600.0375\n", Rational(36_000_375, 10_000)),
            ("# camera A, take 3\n108108/30   # 1:00:03.6\n", Rational(108_108, 30)),
            ("172800000@48000\n", Rational(3600, 1)),
        ])
    func parses(text: String, seconds: Rational) throws {
        let folder = TemporaryFolder()
        let path = folder.file("take.duration")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let duration = try ReferenceProbe.duration(of: path).get()
        #expect(duration.seconds == seconds)
        #expect(duration.source == "sidecar")
    }

    @Test("bad sidecars give a reason", arguments: ["", "abc\n", "1\n2\n", "-5\n", "0@48000\n"])
    func refuses(text: String) throws {
        let folder = TemporaryFolder()
        let path = folder.file("bad.duration")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        guard case .failure(let error) = ReferenceProbe.duration(of: path) else {
            Issue.record("accepted '\(text)'")
            return
        }
        #expect(error.path == path)
    }
}
