import DriftFixtures
import Foundation

/// A shared library driftfix loads at first use, hidden from one driftfix process as on a host without it.
struct HiddenLibrary {
    /// The file behind the library's soname on this machine (what the loader opens).
    let file: String

    /// The library whose soname is `name`.so.N here, nil when it is not installed or this machine cannot hide it
    /// (that takes root and util-linux's unshare).
    init?(_ name: String) {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
            let listing = try? runTool("/sbin/ldconfig", ["-p"])
        else { return nil }
        for line in listing.split(separator: "\n") {
            let fields = line.split(whereSeparator: \.isWhitespace)  // each line begins with a tab
            guard let soname = fields.first, soname.hasPrefix(name + ".so."),
                soname.dropFirst(name.count + 4).allSatisfy(\.isNumber), let path = fields.last
            else { continue }
            file = URL(fileURLWithPath: String(path)).resolvingSymlinksInPath().path
            return
        }
        return nil
    }

    /// Runs driftfix where the library cannot be loaded: in a mount namespace of its own, /dev/null is bound over the
    /// library's file (dlopen fails: "file too short").
    func driftfix(_ arguments: [String]) throws -> CommandResult {
        try runChild(
            "/usr/bin/unshare",
            ["--mount", "--", "/bin/sh", "-c", "mount --bind /dev/null \"$0\" && exec \"$@\"", file, driftfixPath()]
                + arguments)
    }
}
