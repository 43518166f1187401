import DriftFixtures
import Foundation
import Testing

@testable import DriftWorker

@Suite("the volume a failed destination lies on, as a worker names it")
struct VolumeTests {
    @Test(
        "the mount point of a path, or of its nearest existing folder, is the one util-linux's findmnt names, while other mounts come and go"
    )
    func mountPoint() throws {
        let folder = TemporaryFolder()
        var paths = ["/", folder.path, folder.file("not/yet/made.wav"), "/proc/self/status"]
        // A mount of its own (as root): a folder in it that does not exist yet is still on it.
        let mount = TmpfsMount.available ? try TmpfsMount(kibibytes: 64, readOnly: true) : nil
        if let mount { paths += [mount.path, mount.path + "/device1/take1.wav"] }
        // Mounts made and undone meanwhile must not change the answer.
        let churn = TmpfsMount.available ? (0..<20).compactMap { _ in try? TmpfsMount(kibibytes: 16) } : []
        for path in paths {
            var existing = path
            while !FileManager.default.fileExists(atPath: existing) {
                existing = (existing as NSString).deletingLastPathComponent
            }
            let findmnt = try runChild("/usr/bin/findmnt", ["-n", "-o", "TARGET", "--target", existing])
            let expected = findmnt.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(findmnt.status == 0 && !expected.isEmpty, "\(findmnt.stderr)")
            #expect(Volume.mountPoint(of: path) == expected, "\(path)")
        }
        if let mount { #expect(Volume.mountPoint(of: mount.path + "/device1/take1.wav") == mount.path) }
        withExtendedLifetime((mount, churn)) {}
    }
}
