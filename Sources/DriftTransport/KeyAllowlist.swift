import DriftCore
import Foundation

/// The worker public keys a coordinator admits: a file of keys (one per line, or `public-key = "..."` lines), or
/// a folder whose `*.pub` files each hold one. Re-read whenever the file or folder changed (checked at each
/// authentication, which happens once per connection), so keys are added or revoked without a restart.
public final class KeyAllowlist {
    public let path: String
    /// Keys admitted besides the file's (the coordinator's own, for its local workers).
    private let extra: Set<String>
    private var keys: Set<String> = []
    private var signature: [String] = []
    /// Lines that were not keys, from the last read (for the log).
    public private(set) var problems: [String] = []

    /// Seconds between checks for a change (0: at every lookup). The ZAP handler looks up once per handshake and
    /// checks every time; the coordinator looks up per message and checks at most once a second.
    private let recheckInterval: Double
    private var checkedAt: ContinuousClock.Instant?

    public init(path: String, alsoAllow extra: [String] = [], recheckInterval: Double = 0) {
        self.path = path
        self.extra = Set(extra)
        self.recheckInterval = recheckInterval
        reloadIfChanged()
    }

    /// Whether `key` (Z85) is admitted, after picking up any change to the allowlist.
    public func admits(_ key: String) -> Bool {
        reloadIfChanged()
        return extra.contains(key) || keys.contains(key)
    }

    /// Keys currently admitted from the file or folder.
    public var count: Int {
        reloadIfChanged()
        return keys.count
    }

    /// Whether the file or folder exists at all.
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// Why the allowlist cannot be trusted, if so: whoever can write it can admit any key, so neither the folder
    /// nor a key file in it may be writable by group or others.
    public var unsafePermissions: String? {
        for file in [path] + files().filter({ $0 != path }) {
            var info = stat()
            guard PathText.withCString(file, { lstat($0, &info) }) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFLNK { return "\(file) is a symbolic link" }
            let mode = info.st_mode & 0o777
            if mode & 0o022 != 0 {
                return
                    "\(file) is writable by others (mode \(String(mode, radix: 8))): anybody could admit a key; chmod go-w it"
            }
        }
        return nil
    }

    private func files() -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasSuffix(".pub") && !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
    }

    private func reloadIfChanged() {
        let clock = ContinuousClock.now
        if recheckInterval > 0, let checkedAt, clock - checkedAt < .milliseconds(Int64(recheckInterval * 1000)) {
            return
        }
        checkedAt = clock
        let current = files()
        let now = current.map { file -> String in
            var info = stat()
            guard PathText.withCString(file, { stat($0, &info) }) == 0 else { return file }
            // The change time too: nobody can set it back, so an edit that keeps size and mtime is still seen.
            return "\(file):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):"
                + "\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
        }
        guard now != signature || signature.isEmpty && keys.isEmpty && !now.isEmpty else { return }
        signature = now
        var found: Set<String> = []
        var problems: [String] = []
        for file in current {
            guard let data = FileManager.default.contents(atPath: file), data.count < 4 << 20 else {
                // Keep the previous keys and try again next time: a passing error (descriptors, an editor's
                // half-written file) must not look like a revocation.
                signature = []
                self.problems = ["\(file): cannot be read"]
                return
            }
            for field in CurveKeyFile.parse(String(decoding: data, as: UTF8.self)) where field.name == "public-key" {
                if CurveKeyPair.isValidKey(field.value) {
                    found.insert(field.value)
                } else {
                    problems.append("\(file): not a Z85 public key: \(field.value.prefix(50))")
                }
            }
        }
        keys = found
        self.problems = problems
    }
}
